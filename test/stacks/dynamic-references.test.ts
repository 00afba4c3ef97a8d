/**
 * Dynamic references over real HTTP: `{{resolve:secretsmanager:…}}` (whole or embedded, named by a
 * secret's Name or by a Ref to a secret the stack makes, a JSON key of it) and `{{resolve:ssm:…}}`
 * (by name or ARN) resolve when a resource is made; the stack keeps the reference, so a secret's
 * value is in no answer, event or log line, and nowhere in the SQLite file in plain text. A reference
 * that names nothing fails its step (and the deployment rolls back); a malformed or misplaced one is
 * a located diagnostic.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api } from '../helpers/service.js';
import { plainAtRest, watchedService } from './helpers.js';
import { SECRET, SSM_PARAMETER } from './store-types.js';

/** A login whose write-only Password must have the shape of the secrets below: a reference left unresolved fails. */
const LOGIN = JSON.stringify({
  typeName: 'Test::Vault::Login',
  description: 'A login for stack tests.',
  properties: {
    Name: { type: 'string' },
    Password: { type: 'string', pattern: '^((x-)?pw-[a-z]{4}-[0-9]{4}|[A-Za-z0-9]{12})$' },
    Host: { type: 'string' },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  writeOnlyProperties: ['/properties/Password'],
});

const PASSWORD = 'pw-qzvk-8172';
const MADE_PASSWORD = 'pw-hjwu-5530';

const TEMPLATE = `
Resources:
  Made:
    Type: AWS::SecretsManager::Secret
    Properties:
      Name: made-here
      SecretString: '{"password": "${MADE_PASSWORD}"}'
  Admin:
    Type: Test::Vault::Login
    Properties:
      Name: admin
      Password: '{{resolve:secretsmanager:db-credentials:SecretString:password}}'
      Host: '{{resolve:ssm:arn:aws:ssm:us-east-1:123456789012:parameter/app/host}}'
  Embedded:
    Type: Test::Vault::Login
    Properties:
      Name: embedded
      Password: !Sub 'x-{{resolve:secretsmanager:\${Made}:SecretString:password}}'
      Host: 'db.{{resolve:ssm:/app/host}}:5432'
  Generated:
    Type: AWS::SecretsManager::Secret
    Properties:
      Name: generated
      GenerateSecretString:
        SecretStringTemplate: '{"username": "app"}'
        GenerateStringKey: password
        PasswordLength: 12
        ExcludePunctuation: true
  FromGenerated:
    Type: Test::Vault::Login
    Properties:
      Name: from-generated
      Password: !Sub '{{resolve:secretsmanager:\${Generated}:SecretString:password}}'
`;

test("a secretsmanager reference's value reaches the resource and no answer, event, log line or store file", async (t) => {
  const { s, call, answers, logs } = await watchedService(t);
  for (const doc of [SECRET, LOGIN, SSM_PARAMETER])
    assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  const secret = await s.call('POST', '/v1/resources/AWS::SecretsManager::Secret?wait=10', {
    desiredState: {
      Name: 'db-credentials',
      SecretString: JSON.stringify({ user: 'app', password: PASSWORD }),
    },
  });
  assert.equal(secret.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(secret.body));
  const host = await s.call('POST', '/v1/resources/AWS::SSM::Parameter?wait=10', {
    desiredState: { Name: '/app/host', Type: 'String', Value: 'pg.internal' },
  });
  assert.equal(host.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(host.body));

  const plan = await call('POST', '/v1/stacks/vault/plans', { template: TEMPLATE, parameters: {} });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  const embedded = plan.body.changes.find((c: { logicalId: string }) => c.logicalId === 'Embedded');
  assert.equal(embedded.properties.Host, 'db.{{resolve:ssm:/app/host}}:5432', 'a plan shows the reference');
  const applied = await call('POST', `/v1/stacks/vault/plans/${plan.body.planId}/apply?wait=20`);
  // The Password pattern refuses a reference left as it is: complete means each was resolved.
  assert.equal(applied.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(applied.body));
  const login = await call('GET', '/v1/resources/Test::Vault::Login/embedded');
  assert.equal(login.body.properties.Host, 'db.pg.internal:5432');
  assert.equal(
    (await call('GET', '/v1/resources/Test::Vault::Login/admin')).body.properties.Host,
    'pg.internal',
  );

  // Unchanged references are no change, though the stack has kept only the references.
  const again = await call('POST', '/v1/stacks/vault/plans', { template: TEMPLATE, parameters: {} });
  assert.deepEqual(
    again.body.changes.map((c: { action: string }) => c.action),
    ['NoChange', 'NoChange', 'NoChange', 'NoChange', 'NoChange'],
  );
  // Drift compares what the references name now with what the resources hold; for a caller who does
  // not reach AWS::SSM::Parameter, with the references as written.
  assert.equal((await call('GET', '/v1/stacks/vault/drift')).body.status, 'IN_SYNC');
  const reader = await s.call('POST', '/v1/tokens', {
    role: 'reader',
    types: ['Test::*', 'AWS::SecretsManager::*'],
  });
  const unreached = await api(s.url, reader.body.token).call('GET', '/v1/stacks/vault/drift');
  const admin = unreached.body.resources.find((r: { logicalId: string }) => r.logicalId === 'Admin');
  assert.deepEqual(admin.differences, [
    {
      path: '/Host',
      expected: '{{resolve:ssm:arn:aws:ssm:us-east-1:123456789012:parameter/app/host}}',
      actual: 'pg.internal',
      kind: 'NOT_EQUAL',
    },
  ]);
  for (const path of ['', '/events?maxResults=1000', '/outputs'])
    await call('GET', `/v1/stacks/vault${path}`);
  await call('GET', '/v1/resources/Test::Vault::Login');
  await call('GET', '/v1/requests?maxResults=100');
  const deleted = await call('DELETE', '/v1/stacks/vault?wait=20');
  assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE', JSON.stringify(deleted.body));

  const everything = answers.join('\n');
  assert.match(everything, /db\.\{\{resolve:ssm:\/app\/host\}\}:5432/, 'the answers were read');
  for (const value of [PASSWORD, MADE_PASSWORD]) {
    assert.ok(!everything.includes(value), `${value} in an answer`);
    assert.ok(!logs().includes(value), `${value} in the log`);
  }
  await s.close();
  assert.deepEqual(plainAtRest(s.dataDir, [PASSWORD, MADE_PASSWORD]), [], 'no secret in plain text at rest');
});

test('a reference naming nothing fails its step and rolls back; a malformed or misplaced one is located', async (t) => {
  const { s, call } = await watchedService(t);
  for (const doc of [SECRET, LOGIN, SSM_PARAMETER])
    assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  const missing = `
Resources:
  Admin:
    Type: Test::Vault::Login
    Properties:
      Name: admin
      Password: '{{resolve:secretsmanager:no-such-secret:SecretString:password}}'
`;
  const put = await call('PUT', '/v1/stacks/lost?wait=20', { template: missing, parameters: {} });
  assert.equal(put.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(put.body));
  const events = await call('GET', '/v1/stacks/lost/events?maxResults=100');
  const failed = events.body.events.find((e: { status: string }) => e.status === 'CREATE_FAILED');
  assert.match(
    failed.reason,
    /\{\{resolve:secretsmanager:no-such-secret:SecretString:password\}\}: no AWS::SecretsManager::Secret with the Id or Name 'no-such-secret'/,
  );

  const wrong = `
Resources:
  Admin:
    Type: Test::Vault::Login
    Properties:
      Name: admin
      Host: '{{resolve:secretsmanager:db-credentials}}'
      Password: '{{resolve:ssm:/app/password:3}}'
  Other:
    Type: Test::Vault::Login
    Properties:
      Name: other
      Password: '{{resolve:vault:x}}'
`;
  const validated = await call('POST', '/v1/stacks/validate', { template: wrong });
  assert.equal(validated.body.valid, false);
  assert.deepEqual(
    validated.body.diagnostics.map((d: { rule: string; pointer: string; line: number }) => [
      d.rule,
      d.pointer,
      d.line,
    ]),
    [
      ['TP4027', '/Resources/Admin/Properties/Host', 7],
      ['TP4027', '/Resources/Admin/Properties/Password', 8],
      ['TP4027', '/Resources/Other/Properties/Password', 13],
    ],
  );
  const [host, version, service] = validated.body.diagnostics.map((d: { message: string }) => d.message);
  assert.match(host, /is a secret, and Test::Vault::Login\.Host is not write-only/);
  assert.match(version, /not its versions; drop ':3'/);
  assert.match(service, /the services are ssm, ssm-secure and secretsmanager, not 'vault'/);
});

test("an ssm-secure value reaches the resource and is in none of the stack's answers", async (t) => {
  const { s, call, answers } = await watchedService(t);
  for (const doc of [LOGIN, SSM_PARAMETER])
    assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  const secure = 'pw-ssmx-4401';
  const made = await s.call('POST', '/v1/resources/AWS::SSM::Parameter?wait=10', {
    desiredState: { Name: '/app/password', Type: 'String', Value: secure },
  });
  assert.equal(made.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(made.body));
  const template = `
Resources:
  Admin:
    Type: Test::Vault::Login
    Properties: { Name: admin, Password: '{{resolve:ssm-secure:/app/password}}' }
`;
  const plan = await call('POST', '/v1/stacks/secure/plans', { template, parameters: {} });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  const applied = await call('POST', `/v1/stacks/secure/plans/${plan.body.planId}/apply?wait=20`);
  // The Password pattern refuses the reference as it is: complete means it was resolved.
  assert.equal(applied.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(applied.body));
  for (const path of ['', '/events?maxResults=100', '/drift']) await call('GET', `/v1/stacks/secure${path}`);
  await call('GET', '/v1/resources/Test::Vault::Login/admin');
  assert.equal(answers.length, 6);
  assert.ok(!answers.join('\n').includes(secure), 'the value in an answer');
});

test('a reference a parameter hands in is resolved only for a token that reaches the type it reads', async (t) => {
  const { s } = await watchedService(t);
  for (const doc of [SECRET, LOGIN]) assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  const secret = await s.call('POST', '/v1/resources/AWS::SecretsManager::Secret?wait=10', {
    desiredState: { Name: 'db-credentials', SecretString: JSON.stringify({ password: PASSWORD }) },
  });
  assert.equal(secret.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(secret.body));
  const scoped = await s.call('POST', '/v1/tokens', { role: 'writer', types: ['Test::*'] });
  assert.equal(scoped.status, 201, JSON.stringify(scoped.body));
  const template = `
Parameters:
  Handed: { Type: String }
Resources:
  Admin:
    Type: Test::Vault::Login
    Properties: { Name: admin, Password: !Ref Handed }
`;
  const put = await api(s.url, scoped.body.token).call('PUT', '/v1/stacks/handed?wait=20', {
    template,
    parameters: { Handed: '{{resolve:secretsmanager:db-credentials:SecretString:password}}' },
  });
  assert.equal(put.status, 202, JSON.stringify(put.body));
  assert.equal(put.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(put.body));
  const events = await s.call('GET', '/v1/stacks/handed/events?maxResults=100');
  const failed = events.body.events.find((e: { status: string }) => e.status === 'CREATE_FAILED');
  assert.match(
    failed.reason,
    /AccessDenied: .* reads the server's AWS::SecretsManager::Secret resources, which the token deploying this stack cannot reach/,
  );
  assert.equal(
    (await s.call('GET', '/v1/resources/Test::Vault::Login/admin')).status,
    404,
    'nothing was made',
  );
});

test('in Outputs, a {{resolve:ssm}} reference is resolved and a secure one stays the reference, as CloudFormation shows them; one naming nothing fails the deployment', async (t) => {
  const { s, call, answers } = await watchedService(t);
  for (const doc of [SECRET, LOGIN, SSM_PARAMETER])
    assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  for (const desiredState of [
    { Name: '/app/host', Type: 'String', Value: 'pg.internal' },
    { Name: '/app/key', Type: 'String', Value: 'pw-keyx-1234' },
  ]) {
    const made = await s.call('POST', '/v1/resources/AWS::SSM::Parameter?wait=10', { desiredState });
    assert.equal(made.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(made.body));
  }
  const secret = await s.call('POST', '/v1/resources/AWS::SecretsManager::Secret?wait=10', {
    desiredState: { Name: 'db-credentials', SecretString: JSON.stringify({ password: PASSWORD }) },
  });
  assert.equal(secret.body.progressEvent.operationStatus, 'SUCCESS');
  const template = (host: string) => `
Resources:
  Admin:
    Type: Test::Vault::Login
    Properties: { Name: admin }
Outputs:
  Host: { Value: 'db.{{resolve:ssm:${host}}}:5432' }
  Key: { Value: '{{resolve:ssm-secure:/app/key}}' }
  Password: { Value: '{{resolve:secretsmanager:db-credentials:SecretString:password}}' }
`;
  const put = await call('PUT', '/v1/stacks/outs?wait=20', { template: template('/app/host') });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
  const outputs = (await call('GET', '/v1/stacks/outs/outputs')).body.outputs;
  assert.deepEqual(
    Object.fromEntries(outputs.map((o: { name: string; value: unknown }) => [o.name, o.value])),
    {
      Host: 'db.pg.internal:5432',
      Key: '{{resolve:ssm-secure:/app/key}}',
      Password: '{{resolve:secretsmanager:db-credentials:SecretString:password}}',
    },
  );
  assert.ok(!answers.join('\n').includes(PASSWORD), 'the secret is in no answer');
  assert.ok(!answers.join('\n').includes('pw-keyx-1234'), 'the secure string is in no answer');

  const lost = await call('PUT', '/v1/stacks/outs?wait=20', { template: template('/app/none') });
  assert.equal(lost.body.stack.status, 'UPDATE_ROLLBACK_COMPLETE', JSON.stringify(lost.body));
  assert.match(lost.body.stack.statusReason, /output: .*\{\{resolve:ssm:\/app\/none\}\}/);
});

/**
 * A new instance whose recipe needs nothing of a stack's records is made without one: its resources
 * are made directly, and its stack is written when first needed (its drift, an update, an upgrade),
 * adopting what was made — the same resources, with the names, stack id and values the stack's own
 * deployment gives them, none made twice. One made and since deleted by hand is adopted all the same,
 * and drift finds it gone. A recipe whose resources a policy judges deploys its stack at create, as a
 * stack reviews its plan whole before making anything. Over real HTTP, on each store.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { eachStoreService, serviceOn } from '../helpers/each-store.js';
import { PG_URL, pgSkip } from '../helpers/postgres.js';
import { settle, startTestService, type Api } from '../helpers/service.js';
import { stackNameOf } from '../../src/recipes/instance-stack.js';
import {
  BOX_TYPE,
  judgeDatabases,
  LOGIN_TYPE,
  RECIPE,
  registerSampleTypes,
  SAMPLE_TYPE,
} from './fixtures.js';
import { SSM_PARAMETER } from '../stacks/store-types.js';

const enc = encodeURIComponent;
const SAMPLE = `/v1/resources/${enc(SAMPLE_TYPE)}`;

/** A type the stack names when the template leaves its name out (an optional, identifying string). */
const BUCKET_TYPE = 'Test::Recipe::Bucket';
const BUCKET = JSON.stringify({
  typeName: BUCKET_TYPE,
  description: 'A bucket a recipe makes, named by its stack, for tests.',
  properties: {
    BucketName: { type: 'string', maxLength: 90 },
    Owner: { type: 'string' },
    Label: { type: 'string' },
  },
  additionalProperties: false,
  primaryIdentifier: ['/properties/BucketName'],
  createOnlyProperties: ['/properties/BucketName'],
});

/** A bucket named by the stack, holding the stack's id, and a login naming the bucket. */
const NAMED = `
Resources:
  Bucket:
    Type: ${BUCKET_TYPE}
    Properties:
      Owner: !Ref AWS::StackId
      Label: !GetAtt context.resource.properties.size
  Login:
    Type: ${LOGIN_TYPE}
    Properties:
      User: !Sub '\${context.resource.name}_user'
      Database: !Ref Bucket
Outputs:
  result:
    Value:
      values:
        status.binding.hostname: !Ref Bucket
        status.binding.username: !Ref Login
        status.binding.secret: !GetAtt Bucket.Owner
`;

async function register(s: Api, template: string): Promise<void> {
  await registerSampleTypes(s);
  const bucket = await s.call('POST', '/v1/types', BUCKET, { 'content-type': 'application/json' });
  assert.equal(bucket.status, 201, JSON.stringify(bucket.body));
  const reg = await s.call('POST', '/v1/recipes', { typeName: SAMPLE_TYPE, template });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
}

async function made(s: Api, name: string, size = 'S'): Promise<any> {
  const r = await s.call('POST', SAMPLE, { desiredState: { name, size } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const done = await settle(s, r.body.progressEvent.requestToken, 20_000);
  assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
  return done;
}

/** Delete a resource (as the admin), to its end. */
async function deleted(s: Api, path: string): Promise<void> {
  const r = await s.call('DELETE', path);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const done = await settle(s, r.body.progressEvent.requestToken, 20_000);
  assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
}

/** The sample recipe's instance `orders`, made without a stack, and then its login deleted by hand. */
async function madeThenLoginDeleted(s: Api): Promise<void> {
  await register(s, RECIPE);
  await made(s, 'orders');
  await deleted(s, `/v1/resources/${enc(LOGIN_TYPE)}/orders_user`);
}

async function identifiers(s: Api, typeName: string): Promise<string[]> {
  const r = await s.call('GET', `/v1/resources/${enc(typeName)}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.resourceDescriptions as { identifier: string }[]).map((d) => d.identifier).sort();
}

const propertiesOf = async (s: Api, typeName: string, identifier: string) => {
  const r = await s.call('GET', `/v1/resources/${enc(typeName)}/${enc(identifier)}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.resourceDescription?.properties ?? r.body.properties) as Record<string, string>;
};

eachStoreService(
  "an instance made without a stack gets one when first needed: what was made adopted, with the stack's names and id, none made twice, in sync",
  async (s) => {
    await register(s, NAMED);
    const done = await made(s, 'orders');
    const stack = stackNameOf(SAMPLE_TYPE, 'orders');
    const missing = await s.call('GET', `/v1/stacks/${stack}`);
    assert.equal(missing.status, 404, 'no stack is written at create');
    assert.match(
      missing.body.message,
      /written when the instance is first updated, upgraded or checked for drift/,
    );

    // Named as the stack names what its template leaves unnamed; the stack id is the one it will have.
    const [bucketName] = await identifiers(s, BUCKET_TYPE);
    assert.match(bucketName!, new RegExp(`^${stack}-Bucket-[A-Z0-9]{13}$`));
    const bucket = await propertiesOf(s, BUCKET_TYPE, bucketName!);
    assert.match(bucket.Owner!, new RegExp(`:stack/${stack}/[0-9a-f-]{36}$`));
    assert.equal(bucket.Label, 'S');
    assert.deepEqual(done.resourceModel.status.binding, {
      hostname: bucketName,
      username: 'orders_user',
      secret: bucket.Owner,
    });

    const drift = await s.call('GET', `${SAMPLE}/orders/drift`);
    assert.equal(drift.status, 200, JSON.stringify(drift.body));
    assert.equal(drift.body.status, 'IN_SYNC', JSON.stringify(drift.body));
    const view = await s.call('GET', `/v1/stacks/${stack}`);
    assert.equal(view.status, 200, JSON.stringify(view.body));
    assert.equal(view.body.status, 'CREATE_COMPLETE');
    // AWS::StackId is the stack's id as an ARN: its name and unique part.
    assert.equal(
      bucket.Owner!.split(':stack/')[1],
      view.body.stackId.split(':stack/')[1],
      'the stack has the id its resources were given',
    );
    assert.deepEqual(
      (view.body.resources as { logicalId: string; identifier: string }[])
        .map((r) => [r.logicalId, r.identifier])
        .sort(),
      [
        ['Bucket', bucketName],
        ['Login', 'orders_user'],
      ],
    );
    const outputs = await s.call('GET', `/v1/stacks/${stack}/outputs`);
    assert.equal(outputs.status, 200, JSON.stringify(outputs.body));
    assert.equal(outputs.body.outputs[0].value.values['status.binding.hostname'], bucketName);
    await adoptedOnce(s, 'orders');
    assert.deepEqual(await identifiers(s, BUCKET_TYPE), [bucketName], 'none made twice');
    // A second drift read finds the stack written: nothing is adopted again.
    assert.equal((await s.call('GET', `${SAMPLE}/orders/drift`)).body.status, 'IN_SYNC');
    assert.equal((await s.call('GET', `/v1/stacks/${stack}`)).body.version, view.body.version);

    // An update deploys to the adopted stack: the bucket changes in place, keeping its name.
    const patched = await s.call('PATCH', `${SAMPLE}/orders`, {
      patchDocument: [{ op: 'replace', path: '/size', value: 'L' }],
    });
    assert.equal(patched.status, 202, JSON.stringify(patched.body));
    const updated = await settle(s, patched.body.progressEvent.requestToken, 20_000);
    assert.equal(updated.operationStatus, 'SUCCESS', JSON.stringify(updated));
    assert.deepEqual(await identifiers(s, BUCKET_TYPE), [bucketName]);
    assert.equal((await propertiesOf(s, BUCKET_TYPE, bucketName!)).Label, 'L');

    // Made directly and updated through its stack, it is deleted through its stack: nothing left.
    await deleted(s, `${SAMPLE}/orders`);
    assert.deepEqual(await identifiers(s, BUCKET_TYPE), []);
    assert.deepEqual(await identifiers(s, LOGIN_TYPE), []);
  },
);

eachStoreService(
  'a resource made and since deleted by hand is adopted as made, drift finds it gone, and deleting the instance removes the rest',
  async (s) => {
    await madeThenLoginDeleted(s);
    const drift = await s.call('GET', `${SAMPLE}/orders/drift`);
    assert.equal(drift.status, 200, JSON.stringify(drift.body));
    assert.equal(drift.body.status, 'DRIFTED', JSON.stringify(drift.body));
    const login = (drift.body.resources as { logicalId: string; status: string }[]).find(
      (r) => r.logicalId === 'Login',
    );
    assert.equal(login?.status, 'DELETED', JSON.stringify(drift.body));
    assert.deepEqual(await identifiers(s, BOX_TYPE), ['orders_db'], 'the adoption deleted nothing');

    await deleted(s, `${SAMPLE}/orders`);
    assert.deepEqual(await identifiers(s, BOX_TYPE), []);
  },
);

eachStoreService(
  'a missing resource does not stop the deletion of an instance made without a stack; a recipe a policy judges deploys its stack at create',
  async (s) => {
    await madeThenLoginDeleted(s);
    const stack = stackNameOf(SAMPLE_TYPE, 'orders');
    await deleted(s, `${SAMPLE}/orders`);
    assert.deepEqual(await identifiers(s, BOX_TYPE), []);
    assert.equal((await s.call('GET', `/v1/stacks/${stack}`)).status, 404, 'no stack was ever written');

    // A policy that judges only the login's deletions is enough: a stack reviews every change its
    // plan holds, so an instance whose resources anything judges is deployed as a stack at create.
    const deletions = await s.call('POST', '/v1/policies', {
      name: 'logins-kept',
      match: { types: [LOGIN_TYPE], operations: ['DELETE'] },
      action: 'Deny',
      validations: [{ expression: "oldObject.User != 'root'" }],
    });
    assert.equal(deletions.status, 201, JSON.stringify(deletions.body));
    await made(s, 'audit');
    const audit = await s.call('GET', `/v1/stacks/${stackNameOf(SAMPLE_TYPE, 'audit')}`);
    assert.equal(audit.status, 200, `its stack was deployed at create: ${JSON.stringify(audit.body)}`);
    assert.equal((await s.call('DELETE', '/v1/policies/logins-kept')).status, 204);

    // A policy judges the database's creates: the instance's stack reviews its plan whole at create.
    await judgeDatabases(s);
    await made(s, 'billing');
    const view = await s.call('GET', `/v1/stacks/${stackNameOf(SAMPLE_TYPE, 'billing')}`);
    assert.equal(view.status, 200, `its stack was deployed at create: ${JSON.stringify(view.body)}`);
    assert.equal(view.body.status, 'CREATE_COMPLETE');
    assert.deepEqual(await identifiers(s, BOX_TYPE), ['audit_db', 'billing_db']);
  },
);

eachStoreService(
  'a dynamic reference a recipe builds as it is evaluated is resolved as a stack resolves it: as the recipe, which may not read the parameter store unless granted',
  async (s) => {
    await registerSampleTypes(s);
    assert.equal((await s.call('POST', '/v1/types', SSM_PARAMETER)).status, 201);
    const host = await s.call('POST', `/v1/resources/${enc('AWS::SSM::Parameter')}?wait=10`, {
      desiredState: { Name: '/app/host', Type: 'String', Value: 'pg.internal' },
    });
    assert.equal(host.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(host.body));
    // Built from two pieces: no template text names a dynamic reference, so the instance is made
    // without a stack, and its step resolves what the value turns out to be.
    const reg = await s.call('POST', '/v1/recipes', {
      typeName: SAMPLE_TYPE,
      template: `
Resources:
  Login:
    Type: ${LOGIN_TYPE}
    Properties:
      User: !Sub '\${context.resource.name}_user'
      Database: !Join ['', ['{{resol', 've:ssm:/app/host}}']]
Outputs:
  result:
    Value:
      values:
        status.binding.hostname: !GetAtt Login.Database
        status.binding.username: !Ref Login
        status.binding.secret: none
`,
    });
    assert.equal(reg.status, 201, JSON.stringify(reg.body));
    const r = await s.call('POST', SAMPLE, { desiredState: { name: 'orders', size: 'S' } });
    const done = await settle(s, r.body.progressEvent.requestToken, 20_000);
    assert.equal(done.operationStatus, 'FAILED', JSON.stringify(done));
    assert.equal(done.errorCode, 'AccessDenied', JSON.stringify(done));
    assert.match(done.statusMessage, /^Login: .*reads the server's AWS::SSM::Parameter resources/);
    assert.deepEqual(await identifiers(s, LOGIN_TYPE), [], 'nothing made');
  },
);

/** The stack's adoption, as its events tell it: the stack and each of its resources completed once. */
async function adoptedOnce(s: Api, identifier: string): Promise<void> {
  const stack = stackNameOf(SAMPLE_TYPE, identifier);
  const view = await s.call('GET', `/v1/stacks/${stack}`);
  assert.equal(view.status, 200, JSON.stringify(view.body));
  assert.equal(view.body.status, 'CREATE_COMPLETE');
  const events = (await s.call('GET', `/v1/stacks/${stack}/events?maxResults=100`)).body.events as {
    logicalId: string;
    status: string;
  }[];
  for (const logicalId of [stack, 'Bucket', 'Login'])
    assert.equal(
      events.filter((e) => e.logicalId === logicalId && e.status === 'CREATE_COMPLETE').length,
      1,
      `${identifier}: ${JSON.stringify(events)}`,
    );
}

eachStoreService(
  'first needs of a stack at once (drift checks and an upgrade plan) share one write: each is answered, none refused',
  async (s) => {
    await register(s, NAMED);
    await made(s, 'orders');
    const answers = await Promise.all([
      s.call('GET', `${SAMPLE}/orders/drift`),
      s.call('GET', `${SAMPLE}/orders/upgrade`),
      s.call('GET', `${SAMPLE}/orders/drift`),
    ]);
    for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(answers[0]!.body.status, 'IN_SYNC');
    assert.equal(answers[2]!.body.status, 'IN_SYNC');
    const changes = answers[1]!.body.changes as { action: string }[];
    assert.deepEqual(
      changes.map((c) => c.action),
      ['NoChange', 'NoChange'],
    );
    await adoptedOnce(s, 'orders');
  },
);

test(
  "two replicas writing the same stack at once from what was made: the one second to write takes the first one's, none refused",
  { skip: pgSkip },
  async (t) => {
    const secretKey = randomBytes(32).toString('base64');
    const one = await serviceOn(t, 'postgresql', { secretKey });
    const other = await startTestService({
      database: { url: PG_URL, schema: one.schema! },
      adminToken: one.token,
      secretKey,
    });
    t.after(() => other.close());
    await register(one, NAMED);
    const names = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
    for (const name of names) await made(one, name);
    // Each instance checked on both replicas at once: at least one of each pair finds no stack, writes it, and may lose the race.
    const answers = await Promise.all(
      names.flatMap((name) => [
        one.call('GET', `${SAMPLE}/${name}/drift`),
        other.call('GET', `${SAMPLE}/${name}/drift`),
      ]),
    );
    for (const a of answers) {
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(a.body.status, 'IN_SYNC', JSON.stringify(a.body));
    }
    for (const name of names) await adoptedOnce(other, name);
  },
);

eachStoreService(
  'an instance deleted while a drift check writes its stack leaves no stack and no resource behind',
  async (s) => {
    await register(s, NAMED);
    const names = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8'];
    for (const name of names) await made(s, name);
    // Each instance's drift and its deletion at once: the drift's stack is written before, during or
    // after the deletion's own look for it.
    const outcomes = await Promise.all(
      names.map(async (name, i) => {
        const drift = s.call('GET', `${SAMPLE}/${name}/drift`);
        if (i % 2) await new Promise((resolve) => setImmediate(resolve));
        const removal = await s.call('DELETE', `${SAMPLE}/${name}`);
        assert.equal(removal.status, 202, JSON.stringify(removal.body));
        const done = await settle(s, removal.body.progressEvent.requestToken, 20_000);
        return { drift: await drift, done };
      }),
    );
    for (const { drift, done } of outcomes) {
      assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
      // Answered in sync (it ran first) or not found (the deletion did): never a failure of its own.
      assert.ok([200, 404].includes(drift.status), JSON.stringify(drift.body));
    }
    // A stack being deleted is let finish.
    for (let tries = 0; ; tries++) {
      const stacks = (await s.call('GET', '/v1/stacks?maxResults=100')).body.stacks as {
        stackName: string;
        status: string;
      }[];
      const left = stacks.filter((st) => st.stackName.startsWith('tp-recipe-'));
      if (left.length === 0) break;
      assert.ok(tries < 100, `stacks left: ${JSON.stringify(left)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(await identifiers(s, BUCKET_TYPE), []);
    assert.deepEqual(await identifiers(s, LOGIN_TYPE), []);
  },
);

/**
 * NoEcho parameter values and write-only property values, through a stack's whole life (validate,
 * plan, deploy, update, drift, outputs, events, delete), are absent from every HTTP answer, from the
 * server's log at its most verbose level, and from every byte of the store's files (the SQLite
 * database and its WAL).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainAtRest, watchedService } from './helpers.js';

const NO_ECHO = 'noecho-Zq81xv-secret';
const NO_ECHO_2 = 'noecho-Pm44wd-rotated';
const LITERAL = 'writeonly-Hk29ff-literal';

test('NoEcho and write-only values are in no answer, no log line and no store file', async (t) => {
  const { s, call, answers, logs: log } = await watchedService(t);
  const template = `
Parameters:
  Password: { Type: String, NoEcho: true }
Resources:
  A:
    Type: Test::Shop::Widget
    Properties: { Name: a, Secret: !Ref Password, Color: red }
  B:
    Type: Test::Shop::Widget
    Properties: { Name: b, Secret: ${LITERAL}, Color: !GetAtt A.Color }
Outputs:
  Password: { Value: !Ref Password }
  Composite: { Value: !Sub "pw=\${Password};color=\${B.Color}" }
  Plain: { Value: !GetAtt A.Name }
`;
  const validated = await call('POST', '/v1/stacks/validate', {
    template,
    parameters: { Password: NO_ECHO },
  });
  assert.equal(validated.body.valid, true, JSON.stringify(validated.body));
  const plan = await call('POST', '/v1/stacks/s/plans', { template, parameters: { Password: NO_ECHO } });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  await call('GET', `/v1/stacks/s/plans/${plan.body.planId}`);
  const put = await call('POST', `/v1/stacks/s/plans/${plan.body.planId}/apply?wait=20`);
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
  const outputs = await call('GET', '/v1/stacks/s/outputs');
  assert.deepEqual(
    Object.fromEntries(outputs.body.outputs.map((o: { name: string; value: unknown }) => [o.name, o.value])),
    { Password: '****', Composite: '****', Plain: 'a' },
    'an output built from a NoEcho value is masked; others are shown',
  );

  // A new NoEcho value: the plan's patch and the update say so without showing either value.
  const update = await call('POST', '/v1/stacks/s/plans', { template, parameters: { Password: NO_ECHO_2 } });
  const a = update.body.changes.find((c: { logicalId: string }) => c.logicalId === 'A');
  assert.equal(a.action, 'Modify', JSON.stringify(update.body));
  const updated = await call('PUT', '/v1/stacks/s?wait=20', {
    template,
    parameters: { Password: NO_ECHO_2 },
  });
  assert.equal(updated.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(updated.body));

  for (const path of ['', '/events?maxResults=1000', '/drift', '/outputs'])
    await call('GET', `/v1/stacks/s${path}`);
  await call('GET', '/v1/stacks');
  await call('GET', '/v1/resources/Test::Shop::Widget');
  await call('GET', '/v1/requests?maxResults=100');
  const deleted = await call('DELETE', '/v1/stacks/s?wait=20');
  assert.equal(deleted.status, 202);

  const secrets = [NO_ECHO, NO_ECHO_2, LITERAL];
  const everything = answers.join('\n');
  assert.match(everything, /\*\*\*\*/, 'the answers were read');
  for (const secret of secrets) {
    assert.ok(
      !everything.includes(secret),
      `${secret} in an answer:\n${answers.filter((x) => x.includes(secret)).join('\n')}`,
    );
    assert.ok(!log().includes(secret), `${secret} in the log`);
  }
  assert.ok(log().includes('"component":"stacks"') || log().includes('/v1/stacks'), 'the log was written');
  await s.close();
  assert.deepEqual(plainAtRest(s.dataDir, secrets), [], 'no secret in plain text at rest');
});

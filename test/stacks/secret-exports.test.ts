/**
 * An export built from a NoEcho value stays secret in the stack that imports it: the importer's
 * outputs, view, plans and events show `****`, its store holds it sealed, the log never has it, and a
 * reader that reaches only the importer's types (not the exporter's) cannot read it there.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, settle } from '../helpers/service.js';
import { GADGET, plainAtRest, watchedService } from './helpers.js';

const SECRET = 'export-Tq62mh-secret';

const EXPORTER = `
Parameters:
  Password: { Type: String, NoEcho: true }
Resources:
  W: { Type: Test::Shop::Widget, Properties: { Name: w, Secret: !Ref Password } }
Outputs:
  Password: { Value: !Ref Password, Export: { Name: shared-password } }
`;

/** The importer; \`note\` is what its gadget's Note is (planned only: a gadget's properties are not sealed). */
const importer = (note: string) => `
Resources:
  G: { Type: Test::Shop::Gadget, Properties: { Note: ${note} } }
Outputs:
  Imported: { Value: !ImportValue shared-password }
  Joined: { Value: !Join ["", ["pw=", !ImportValue shared-password]] }
  Encoded: { Value: !Base64 { "Fn::ImportValue": shared-password } }
`;

test('a secret export imported by another stack is masked there, sealed at rest, and unread by a reader scoped to the importer', async (t) => {
  const { s, call, answers, logs } = await watchedService(t);
  assert.equal((await s.call('POST', '/v1/types', GADGET)).status, 201);
  const exported = await s.call('PUT', '/v1/stacks/exporter?wait=20', {
    template: EXPORTER,
    parameters: { Password: SECRET },
  });
  assert.equal(exported.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(exported.body));
  const minted = await s.call('POST', '/v1/tokens', { role: 'reader', types: ['Test::Shop::Gadget'] });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  const gadgetReader = api(s.url, minted.body.token);
  const refused = await gadgetReader.call('GET', '/v1/stacks/exporter/outputs');
  assert.ok([403, 404].includes(refused.status), 'the exporter is out of its reach');
  const imported = importer('!ImportValue shared-password');
  const plan = await call('POST', '/v1/stacks/importer/plans', { template: imported });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  assert.equal(plan.body.changes[0].properties.Note, '****');
  const put = await call('PUT', '/v1/stacks/importer?wait=20', { template: importer('plain') });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
  for (const client of [s, gadgetReader]) {
    const outputs = await call('GET', '/v1/stacks/importer/outputs', undefined, client);
    assert.equal(outputs.status, 200, JSON.stringify(outputs.body));
    assert.deepEqual(
      Object.fromEntries(
        outputs.body.outputs.map((o: { name: string; value: unknown }) => [o.name, o.value]),
      ),
      { Imported: '****', Joined: '****', Encoded: '****' },
    );
    await call('GET', '/v1/stacks/importer', undefined, client);
    await call('GET', '/v1/stacks/importer/events?maxResults=1000', undefined, client);
  }
  const update = await call('POST', '/v1/stacks/importer/plans', { template: imported });
  assert.equal(update.status, 201, JSON.stringify(update.body));
  assert.deepEqual(update.body.changes[0].patch, [{ op: 'replace', path: '/Note', value: '****' }]);

  const encoded = Buffer.from(SECRET).toString('base64');
  for (const secret of [SECRET, encoded]) {
    assert.deepEqual(
      answers.filter((a) => a.includes(secret)),
      [],
      `${secret} shown`,
    );
    assert.ok(!logs().includes(secret), `${secret} in the log`);
  }
  await s.close();
  assert.deepEqual(plainAtRest(s.dataDir, [SECRET, encoded]), [], 'in plain text at rest');
});

test("an importer's drift shows an imported secret masked", async (t) => {
  const { s } = await watchedService(t);
  assert.equal((await s.call('POST', '/v1/types', GADGET)).status, 201);
  const exported = await s.call('PUT', '/v1/stacks/exporter?wait=20', {
    template: EXPORTER,
    parameters: { Password: SECRET },
  });
  assert.equal(exported.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(exported.body));
  const put = await s.call('PUT', '/v1/stacks/importer?wait=20', {
    template: importer('!ImportValue shared-password'),
  });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
  const gadget = put.body.stack.resources[0].identifier;
  const patched = await s.call('PATCH', `/v1/resources/Test::Shop::Gadget/${encodeURIComponent(gadget)}`, {
    patchDocument: [{ op: 'replace', path: '/Note', value: 'changed' }],
  });
  assert.equal(patched.status, 202, JSON.stringify(patched.body));
  await settle(s, patched.body.progressEvent.requestToken);
  const drift = await s.call('GET', '/v1/stacks/importer/drift');
  assert.equal(drift.body.status, 'DRIFTED', JSON.stringify(drift.body));
  assert.deepEqual(drift.body.resources[0].differences, [
    { path: '/Note', expected: '****', actual: 'changed', kind: 'NOT_EQUAL' },
  ]);
});

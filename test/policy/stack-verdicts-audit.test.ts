/**
 * What admission policies said of a stack deployment's changes is in the audit trail: a deployment
 * runs on after the request that began it, so each change it makes that a review gave verdicts is
 * recorded on its own, as the deployer's — verb, type, identifier, begun (202) or denied (403), the
 * verdicts (Deny, Warn and Audit) and the stack, logical id and deployment. The plan's verdicts are
 * in the deploying request's record, Audit ones included, and shown to no one. Over real HTTP, with
 * the store's trail, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { trailUntil } from '../audit/helpers.js';
import { eachStoreService } from '../helpers/each-store.js';
import { api, WIDGET, WIDGET_TYPE } from '../helpers/service.js';

const NO_RED = {
  name: 'no-red',
  match: { types: ['Test::Shop::*'], operations: ['CREATE', 'UPDATE'] },
  validations: [{ expression: "!has(object.Color) || object.Color != 'red'", message: 'red is not sold' }],
  action: 'Deny',
};
const NOTE_BLUE = {
  name: 'note-blue',
  match: { types: ['*'], operations: ['CREATE'] },
  validations: [{ expression: "!has(object.Color) || object.Color != 'blue'", message: 'blue noted' }],
  action: 'Warn',
};
const COUNTED = {
  name: 'counted',
  match: { types: ['*'], operations: ['CREATE'] },
  validations: [{ expression: 'has(object.Count)', message: 'no Count' }],
  action: 'Audit',
};

// Later's Color is Red's identifier: known only once Red is made, so the plan cannot judge it.
const TEMPLATE = `
Resources:
  Red: { Type: ${WIDGET_TYPE}, Properties: { Name: red } }
  Blue: { Type: ${WIDGET_TYPE}, Properties: { Name: blue-one, Color: blue, Count: 1 } }
  Later: { Type: ${WIDGET_TYPE}, DependsOn: [Red, Blue], Properties: { Name: later, Color: !Ref Red, Count: 1 } }
`;

const verdictsOf = (record: any) => JSON.parse(record.annotations['typeplane.dev/verdicts']);

eachStoreService(
  'a stack deployment’s reviewed changes are recorded with their verdicts, as the deployer’s',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    for (const p of [NO_RED, NOTE_BLUE, COUNTED])
      assert.equal((await svc.call('POST', '/v1/policies', p)).status, 201);
    const made = await svc.call('POST', '/v1/tokens', { role: 'writer', description: 'ci deploys' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const deployer = api(svc.url, made.body.token);

    // The plan shows the Warn, never the Audit verdict.
    const plan = await deployer.call('POST', '/v1/stacks/audited/plans', { template: TEMPLATE });
    assert.equal(plan.status, 201, JSON.stringify(plan.body));
    const planned = Object.fromEntries(plan.body.changes.map((c: any) => [c.logicalId, c]));
    assert.equal(planned.Red.verdicts, undefined, 'an Audit verdict is told to no one');
    assert.deepEqual(
      planned.Blue.verdicts.map((v: any) => v.name),
      ['note-blue'],
    );

    const deployed = await deployer.call('PUT', '/v1/stacks/audited?wait=20', {
      template: TEMPLATE,
      noRollback: true,
    });
    assert.equal(deployed.status, 202, JSON.stringify(deployed.body));
    assert.equal(deployed.body.stack.status, 'CREATE_FAILED', JSON.stringify(deployed.body));
    const deploymentId = deployed.body.deploymentId;

    const reviewedChanges = (records: any[]) =>
      records.filter((r) => r.annotations?.['typeplane.dev/stack'] === 'audited');
    const deploying = (records: any[]) =>
      records.find((r) => r.verb === 'update' && r.requestURI.startsWith('/v1/stacks/audited'));
    // The deploying request's record follows its answer: wait for it too, not only the steps'.
    const records = await trailUntil(
      svc,
      (all) => reviewedChanges(all).length >= 3 && deploying(all) !== undefined,
    );
    const byId = Object.fromEntries(
      reviewedChanges(records).map((r) => [r.annotations['typeplane.dev/logical-id'], r]),
    );
    for (const id of ['Red', 'Blue', 'Later']) {
      const r = byId[id];
      assert.ok(r, `${id} is recorded`);
      assert.equal(r.verb, 'create');
      assert.equal(r.stage, 'ResponseComplete');
      assert.equal(r.requestURI, '/v1/stacks/audited');
      assert.equal(r.user.tokenId, made.body.id);
      assert.equal(r.user.role, 'writer');
      assert.equal(r.user.description, 'ci deploys');
      assert.equal(r.objectRef.resource, 'resources');
      assert.equal(r.objectRef.typeName, WIDGET_TYPE);
      assert.equal(r.objectRef.name, 'audited');
      assert.equal(r.annotations['typeplane.dev/deployment'], deploymentId);
      assert.equal(r.annotations['typeplane.dev/deployment-phase'], 'forward');
    }
    // Begun: the operation's request token, to pair with its end.
    assert.equal(byId.Red.responseStatus.code, 202);
    assert.ok(byId.Red.objectRef.requestToken);
    assert.deepEqual(verdictsOf(byId.Red), [
      { source: 'policy', name: 'counted', action: 'Audit', message: 'no Count' },
    ]);
    assert.equal(byId.Blue.responseStatus.code, 202);
    assert.deepEqual(verdictsOf(byId.Blue), [
      { source: 'policy', name: 'note-blue', action: 'Warn', message: 'blue noted' },
    ]);
    // Denied at apply time: nothing began, the denial is the record's outcome.
    assert.equal(byId.Later.responseStatus.code, 403);
    assert.equal(byId.Later.responseStatus.errorCode, 'AccessDenied');
    assert.match(byId.Later.responseStatus.message, /policy no-red: red is not sold/);
    assert.equal(byId.Later.objectRef.requestToken, undefined);
    assert.deepEqual(verdictsOf(byId.Later), [
      { source: 'policy', name: 'no-red', action: 'Deny', message: 'red is not sold' },
    ]);
    assert.equal((await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/later`)).status, 404);

    // The deploying request's record holds what its plan said, the Audit verdict included.
    const put = deploying(records);
    assert.ok(put, 'the deploying request is recorded');
    assert.deepEqual(
      verdictsOf(put)
        .map((v: any) => `${v.name}:${v.action}`)
        .sort(),
      ['counted:Audit', 'note-blue:Warn'],
    );
  },
  () => ({ audit: { store: true, batch: { maxWaitMs: 20 } } }),
);

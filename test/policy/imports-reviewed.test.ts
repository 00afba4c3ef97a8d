/**
 * Taking charge of a resource Typeplane did not make goes through the review a create goes through
 * (admission policies and hooks, one reviewer), over real HTTP: `resource import` (adopt) of a
 * resource a Deny policy refuses is 403 with the verdict and records nothing, one a Warn policy warns
 * of is recorded with the warning (answer and Warning header); a stack import of a denied resource is
 * refused before anything runs (its plan shows the Deny on the Import), and one whose stored plan
 * predates the policy fails at its import step, the resource left out of the stack.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceOn } from '../helpers/each-store.js';
import { memoryProvider } from '../helpers/providers.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';

const T = encodeURIComponent(WIDGET_TYPE);
const noPink = {
  name: 'no-pink',
  match: { types: ['Test::Shop::*'], operations: ['CREATE'] },
  validations: [{ expression: "!has(object.Color) || object.Color != 'pink'", message: 'pink is banned' }],
  action: 'Deny',
};
const blueWarned = {
  name: 'blue-warned',
  match: { types: ['Test::Shop::*'], operations: ['CREATE'] },
  validations: [{ expression: "!has(object.Color) || object.Color != 'blue'", message: 'blue fades' }],
  action: 'Warn',
};

const template = (name: string) =>
  `Resources:\n  Old:\n    Type: ${WIDGET_TYPE}\n    DeletionPolicy: Retain\n    Properties: { Name: ${name} }\n`;
const toImport = (name: string) => [
  { LogicalResourceId: 'Old', ResourceType: WIDGET_TYPE, ResourceIdentifier: { Name: name } },
];

test('resource import and stack import are reviewed as a create is: Deny refuses, Warn warns', async (t) => {
  const provider = memoryProvider();
  for (const [name, color] of [
    ['p1', 'pink'],
    ['p2', 'pink'],
    ['b1', 'blue'],
    ['g1', 'green'],
  ])
    provider.store.set(name!, { Name: name, Color: color });
  const s = await serviceOn(t, 'sqlite', { providers: new Map([[WIDGET_TYPE, provider]]) });
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  // Recorded before the policies exist: a stack may import it later.
  assert.equal((await s.call('POST', `/v1/resources/${T}/p2/import`)).status, 200);
  for (const p of [noPink, blueWarned]) assert.equal((await s.call('POST', '/v1/policies', p)).status, 201);

  const denied = await s.call('POST', `/v1/resources/${T}/p1/import`);
  assert.equal(denied.status, 403, JSON.stringify(denied.body));
  assert.equal(denied.body.errorCode, 'AccessDenied');
  assert.deepEqual(
    denied.body.details.map((d: any) => [d.source, d.name, d.action, d.message]),
    [['policy', 'no-pink', 'Deny', 'pink is banned']],
  );
  assert.equal((await s.call('GET', `/v1/resources/${T}/p1`)).status, 404, 'nothing recorded');

  const warned = await s.call('POST', `/v1/resources/${T}/b1/import`);
  assert.equal(warned.status, 200, JSON.stringify(warned.body));
  assert.deepEqual(
    warned.body.progressEvent.warnings.map((w: any) => [w.name, w.message]),
    [['blue-warned', 'blue fades']],
  );
  assert.match(String(warned.headers.get('warning')), /policy blue-warned: blue fades/);
  assert.equal((await s.call('GET', `/v1/resources/${T}/b1`)).status, 200, 'recorded');

  // A stack import of the pink one: its plan shows the Deny, and deploying it is refused up front.
  const plan = await s.call('POST', '/v1/stacks/app/plans', {
    template: template('p2'),
    resourcesToImport: toImport('p2'),
  });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  assert.equal(plan.body.changes[0].action, 'Import');
  assert.deepEqual(
    plan.body.changes[0].verdicts.map((v: any) => [v.name, v.action]),
    [['no-pink', 'Deny']],
  );
  const refused = await s.call('PUT', '/v1/stacks/app?wait=20', {
    template: template('p2'),
    resourcesToImport: toImport('p2'),
  });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.match(refused.body.message, /no-pink/);
  assert.equal((await s.call('GET', '/v1/stacks/app')).status, 404, 'no stack was made');

  // A plan made before the policy applies with its verdicts (none): the import step reviews it, and fails.
  assert.equal((await s.call('DELETE', '/v1/policies/no-pink')).status, 204);
  const early = await s.call('POST', '/v1/stacks/late/plans', {
    template: template('p2'),
    resourcesToImport: toImport('p2'),
  });
  assert.equal(early.status, 201, JSON.stringify(early.body));
  assert.equal(early.body.changes[0].verdicts, undefined);
  assert.equal((await s.call('POST', '/v1/policies', noPink)).status, 201);
  const applied = await s.call('POST', `/v1/stacks/late/plans/${early.body.planId}/apply?wait=20`);
  assert.equal(applied.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(applied.body));
  const events = (await s.call('GET', '/v1/stacks/late/events')).body.events;
  const failed = events.find((e: any) => e.logicalId === 'Old' && e.status === 'IMPORT_FAILED');
  assert.ok(failed, JSON.stringify(events));
  assert.equal(failed.reason, 'AccessDenied: the change is refused by policy no-pink: pink is banned');
  assert.deepEqual(applied.body.stack.resources ?? [], [], 'the resource stayed out of the stack');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET } from '../helpers/service.js';
import { GADGET } from './helpers.js';

async function service(t: import('node:test').TestContext) {
  const s = await startTestService();
  t.after(() => s.close());
  for (const doc of [WIDGET, GADGET]) assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  return s;
}

const V1 = `
Resources:
  Keep: { Type: Test::Shop::Widget, Properties: { Name: keep } }
  Change: { Type: Test::Shop::Widget, Properties: { Name: change, Color: red } }
  Rename: { Type: Test::Shop::Widget, Properties: { Name: old-name } }
  Gone: { Type: Test::Shop::Widget, Properties: { Name: gone } }
  Kept: { Type: Test::Shop::Widget, DeletionPolicy: Retain, Properties: { Name: kept } }
`;
const V2 = `
Resources:
  Keep: { Type: Test::Shop::Widget, Properties: { Name: keep } }
  Change: { Type: Test::Shop::Widget, Properties: { Name: change, Color: blue, Count: 2 } }
  Rename: { Type: Test::Shop::Widget, Properties: { Name: new-name } }
  New:
    Type: Test::Shop::Gadget
    Properties: { WidgetName: !Ref Rename }
  After:
    Type: Test::Shop::Gadget
    Properties: { Note: !GetAtt New.GadgetId }
`;

test('a plan says per resource Add, Modify (JSON Patch), Replace (the create-only property), Remove, NoChange', async (t) => {
  const s = await service(t);
  assert.equal(
    (await s.call('PUT', '/v1/stacks/shop?wait=20', { template: V1 })).body.stack.status,
    'CREATE_COMPLETE',
  );
  const made = await s.call('POST', '/v1/stacks/shop/plans', { template: V2 });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const byId = Object.fromEntries(made.body.changes.map((c: any) => [c.logicalId, c]));
  assert.equal(byId.Keep.action, 'NoChange');
  assert.equal(byId.Change.action, 'Modify');
  assert.deepEqual(byId.Change.patch, [
    { op: 'replace', path: '/Color', value: 'blue' },
    { op: 'add', path: '/Count', value: 2 },
  ]);
  assert.equal(byId.Rename.action, 'Replace');
  assert.deepEqual(byId.Rename.replacement, { properties: ['/properties/Name'], deleteFirst: false });
  assert.equal(byId.New.action, 'Add');
  assert.equal(byId.New.properties.WidgetName, '(known after apply)');
  assert.equal(byId.After.properties.Note, '(known after apply)');
  assert.equal(byId.Gone.action, 'Remove');
  assert.equal(byId.Kept.action, 'Remove');
  assert.equal(byId.Kept.retain, true);

  // The plan is stored and applied by its id.
  const fetched = await s.call('GET', `/v1/stacks/shop/plans/${made.body.planId}`);
  assert.deepEqual(fetched.body.changes, made.body.changes);
  const applied = await s.call('POST', `/v1/stacks/shop/plans/${made.body.planId}/apply?wait=20`);
  assert.equal(applied.status, 202, JSON.stringify(applied.body));
  assert.equal(applied.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(applied.body.stack));
  const widgets = await s.call('GET', '/v1/resources/Test::Shop::Widget');
  assert.deepEqual(
    widgets.body.resourceDescriptions.map((d: any) => d.identifier).sort(),
    ['change', 'keep', 'kept', 'new-name'],
    'old-name was replaced and deleted after the update, gone removed, kept retained',
  );
  assert.equal(
    widgets.body.resourceDescriptions.find((d: any) => d.identifier === 'change').properties.Color,
    'blue',
  );
  const events = (await s.call('GET', '/v1/stacks/shop/events')).body.events.map(
    (e: any) => `${e.logicalId} ${e.status}`,
  );
  const at = (line: string) => events.lastIndexOf(line);
  assert.ok(
    at('shop UPDATE_COMPLETE_CLEANUP_IN_PROGRESS') < at('Gone DELETE_COMPLETE'),
    'removals come last',
  );
  assert.ok(at('After CREATE_COMPLETE') < at('Gone DELETE_COMPLETE'));
  assert.ok(events.includes('Kept DELETE_SKIPPED'));
  assert.ok(at('Rename DELETE_COMPLETE') > at('Rename CREATE_COMPLETE'), 'the replacement is created first');

  // The same plan again: the stack changed since.
  const stale = await s.call('POST', `/v1/stacks/shop/plans/${made.body.planId}/apply`);
  assert.equal(stale.status, 409);
  assert.match(stale.body.message, /changed since plan/);
});

test('a Replace keeping a user-given identifier deletes the old resource first', async (t) => {
  const s = await service(t);
  // Size cannot change in place for this type (made create-only here), and the name is kept.
  const doc = JSON.parse(WIDGET);
  doc.typeName = 'Test::Shop::Sized';
  doc.createOnlyProperties = ['/properties/Name', '/properties/Size'];
  assert.equal((await s.call('POST', '/v1/types', JSON.stringify(doc))).status, 201);
  const v = (size: string) =>
    `Resources:\n  S: { Type: Test::Shop::Sized, Properties: { Name: s1, Size: ${size} } }\n`;
  assert.equal(
    (await s.call('PUT', '/v1/stacks/sized?wait=20', { template: v('S') })).body.stack.status,
    'CREATE_COMPLETE',
  );
  const plan = await s.call('POST', '/v1/stacks/sized/plans', { template: v('L') });
  assert.deepEqual(plan.body.changes[0].replacement, { properties: ['/properties/Size'], deleteFirst: true });
  const applied = await s.call('POST', `/v1/stacks/sized/plans/${plan.body.planId}/apply?wait=20`);
  assert.equal(applied.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(applied.body.stack));
  assert.equal((await s.call('GET', '/v1/resources/Test::Shop::Sized/s1')).body.properties.Size, 'L');
});

test('exports are unique; a stack whose export is imported cannot be deleted, and the error names the importer', async (t) => {
  const s = await service(t);
  const exporter = `Resources:\n  W: { Type: Test::Shop::Widget, Properties: { Name: base } }\nOutputs:\n  N: { Value: !Ref W, Export: { Name: base-name } }\n`;
  const importer = `Resources:\n  G: { Type: Test::Shop::Gadget, Properties: { WidgetName: !ImportValue base-name } }\n`;
  assert.equal(
    (await s.call('PUT', '/v1/stacks/base?wait=20', { template: exporter })).body.stack.status,
    'CREATE_COMPLETE',
  );
  const other = await s.call('PUT', '/v1/stacks/copycat?wait=20', {
    template: exporter.replace('base }', 'other }'),
  });
  assert.equal(other.status, 409);
  assert.match(other.body.message, /export base-name is already exported by stack base/);
  assert.equal(
    (await s.call('PUT', '/v1/stacks/app?wait=20', { template: importer })).body.stack.status,
    'CREATE_COMPLETE',
  );
  const refused = await s.call('DELETE', '/v1/stacks/base');
  assert.equal(refused.status, 409);
  assert.match(refused.body.message, /imported by stack app/);
  assert.equal((await s.call('DELETE', '/v1/stacks/app?wait=20')).status, 202);
  assert.equal((await s.call('GET', '/v1/stacks/app')).status, 404);
  const plan = await s.call('POST', '/v1/stacks/base/plans', { template: exporter });
  assert.equal((await s.call('GET', `/v1/stacks/base/plans/${plan.body.planId}`)).status, 200);
  assert.equal(
    (await s.call('GET', `/v1/stacks/app/plans/${plan.body.planId}`)).status,
    404,
    "a plan is its stack's",
  );
  const deleted = await s.call('DELETE', '/v1/stacks/base?wait=20');
  assert.equal(deleted.status, 202);
  assert.equal(
    (await s.call('GET', `/v1/stacks/base/plans/${plan.body.planId}`)).status,
    404,
    'a deleted stack takes its plans with it',
  );
  assert.equal((await s.call('GET', '/v1/resources/Test::Shop::Widget')).body.resourceDescriptions.length, 0);
});

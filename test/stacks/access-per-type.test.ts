/**
 * Access to stacks through real tokens: deploying (or planning, deleting) needs the writer role and a
 * scope reaching every type the template uses and the stack holds; a reader cannot deploy; events
 * show only the resources of types the token may read, and outputs, drift and the listing need
 * every type of the stack.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, startTestService, WIDGET } from '../helpers/service.js';
import { GADGET } from './helpers.js';

const TEMPLATE = `
Resources:
  W: { Type: Test::Shop::Widget, Properties: { Name: w } }
  G: { Type: Test::Shop::Gadget, Properties: { WidgetName: !Ref W, Note: hidden-note } }
Outputs:
  Note: { Value: !GetAtt G.Note }
`;

test('a writer must reach every type of the template; reads of a stack follow the token type scope', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  for (const doc of [WIDGET, GADGET]) assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  const token = async (role: string, types?: string[]) => {
    const res = await s.call('POST', '/v1/tokens', { role, ...(types ? { types } : {}) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return api(s.url, res.body.token);
  };
  const widgetWriter = await token('writer', ['Test::Shop::Widget']);
  const shopWriter = await token('writer', ['Test::Shop::*']);
  const reader = await token('reader');
  const widgetReader = await token('reader', ['Test::Shop::Widget']);

  for (const [method, path] of [
    ['PUT', '/v1/stacks/shop'],
    ['POST', '/v1/stacks/shop/plans'],
  ] as const) {
    const refused = await widgetWriter.call(method, path, { template: TEMPLATE });
    assert.equal(refused.status, 403, `${method} ${path}: ${JSON.stringify(refused.body)}`);
    assert.equal(refused.body.errorCode, 'AccessDenied');
    assert.match(refused.body.message, /Test::Shop::Gadget/);
  }
  assert.equal((await reader.call('PUT', '/v1/stacks/shop', { template: TEMPLATE })).status, 403);
  assert.equal((await s.call('GET', '/v1/stacks/shop')).status, 404, 'nothing was started');
  assert.equal((await s.call('GET', '/v1/resources/Test::Shop::Widget')).body.resourceDescriptions.length, 0);

  const put = await shopWriter.call('PUT', '/v1/stacks/shop?wait=20', { template: TEMPLATE });
  assert.equal(put.status, 202, JSON.stringify(put.body));
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE');

  // A widget-only writer cannot delete or redeploy a stack holding a gadget, and is not told the type.
  const del = await widgetWriter.call('DELETE', '/v1/stacks/shop');
  assert.equal(del.status, 403, JSON.stringify(del.body));
  assert.match(del.body.message, /cannot reach every type of stack shop/);
  assert.doesNotMatch(del.body.message, /Gadget/);

  // A widget-only reader: the stack without its gadget, no outputs, events of widgets only.
  const shown = await widgetReader.call('GET', '/v1/stacks/shop');
  assert.equal(shown.status, 200);
  assert.deepEqual(
    shown.body.resources.map((r: { logicalId: string }) => r.logicalId),
    ['W'],
  );
  assert.deepEqual(shown.body.outputs, []);
  const events = await widgetReader.call('GET', '/v1/stacks/shop/events');
  assert.equal(events.status, 200);
  const types = new Set(events.body.events.map((e: { type: string }) => e.type));
  assert.deepEqual([...types].sort(), ['Test::Shop::Widget', 'Typeplane::Stack']);
  for (const path of ['/outputs', '/drift']) {
    const r = await widgetReader.call('GET', `/v1/stacks/shop${path}`);
    assert.equal(r.status, 403, `${path}: ${JSON.stringify(r.body)}`);
    assert.doesNotMatch(JSON.stringify(r.body), /hidden-note/);
  }
  assert.deepEqual((await widgetReader.call('GET', '/v1/stacks')).body.stacks, []);

  // A value another stack exports is that stack's: importing it needs every type of the exporter.
  const exporter = `${TEMPLATE}  Exported: { Value: !GetAtt G.Note, Export: { Name: shop-note } }\n`;
  assert.equal(
    (await shopWriter.call('PUT', '/v1/stacks/shop?wait=20', { template: exporter })).body.stack.status,
    'UPDATE_COMPLETE',
  );
  const importer =
    'Resources:\n  W: { Type: Test::Shop::Widget, Properties: { Name: copy, Color: !ImportValue shop-note } }\n';
  for (const [method, path] of [
    ['PUT', '/v1/stacks/copy'],
    ['POST', '/v1/stacks/copy/plans'],
  ] as const) {
    const r = await widgetWriter.call(method, path, { template: importer });
    assert.equal(r.status, 403, `${method} ${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.message, /cannot reach every type of the stack exporting shop-note/);
    assert.doesNotMatch(r.body.message, /Gadget/);
    assert.doesNotMatch(JSON.stringify(r.body), /hidden-note/);
  }
  assert.equal((await s.call('GET', '/v1/resources/Test::Shop::Widget/copy')).status, 404);

  // Validation sees the registry as the token does: a type out of reach is refused by name, and a
  // misspelt one is not told about types out of reach.
  const typo = 'Resources:\n  G: { Type: Test::Shop::Gadgets, Properties: {} }\n';
  const scopedTypo = await (
    await token('writer', ['Test::Shop::Widget', 'Test::Shop::Gadgets'])
  ).call('POST', '/v1/stacks/validate', { template: typo });
  assert.equal(scopedTypo.status, 200, JSON.stringify(scopedTypo.body));
  assert.match(scopedTypo.body.diagnostics[0].message, /not registered/);
  assert.doesNotMatch(JSON.stringify(scopedTypo.body), /Test::Shop::Gadget\b(?!s)/);
  const adminTypo = await s.call('POST', '/v1/stacks/validate', { template: typo });
  assert.match(adminTypo.body.diagnostics[0].message, /did you mean Test::Shop::Gadget\?/);
  const outOfReach = await widgetWriter.call('POST', '/v1/stacks/validate', { template: TEMPLATE });
  assert.equal(outOfReach.status, 403, JSON.stringify(outOfReach.body));
  assert.match(outOfReach.body.message, /Test::Shop::Gadget/);

  // An unscoped reader sees it all, and still cannot change it.
  const outputs = await reader.call('GET', '/v1/stacks/shop/outputs');
  assert.deepEqual(outputs.body.outputs, [
    { name: 'Note', value: 'hidden-note' },
    { name: 'Exported', value: 'hidden-note', exportName: 'shop-note' },
  ]);
  assert.equal((await reader.call('GET', '/v1/stacks/shop/events')).body.events.length, 9);
  assert.deepEqual(
    (await reader.call('GET', '/v1/stacks')).body.stacks.map((x: { stackName: string }) => x.stackName),
    ['shop'],
  );
  assert.equal((await reader.call('DELETE', '/v1/stacks/shop')).status, 403);
  assert.equal((await shopWriter.call('DELETE', '/v1/stacks/shop?wait=20')).status, 202);
});

test('a failure among resources out of reach is not quoted to a reader scoped to the others', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  for (const doc of [WIDGET, GADGET]) assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  const failing = `
Resources:
  W: { Type: Test::Shop::Widget, Properties: { Name: w } }
  G: { Type: Test::Shop::Gadget, Properties: { Note: !GetAtt W.Id } }
`;
  const put = await s.call('PUT', '/v1/stacks/failing?wait=20', { template: failing });
  assert.equal(put.body.stack.status, 'ROLLBACK_COMPLETE');
  assert.match(put.body.stack.statusReason, /^G: Fn::GetAtt W\.Id/);
  const res = await s.call('POST', '/v1/tokens', { role: 'reader', types: ['Test::Shop::Widget'] });
  const widgetReader = api(s.url, res.body.token);
  const shown = await widgetReader.call('GET', '/v1/stacks/failing');
  assert.equal(shown.body.status, 'ROLLBACK_COMPLETE');
  assert.equal(shown.body.statusReason, undefined);
  const events = (await widgetReader.call('GET', '/v1/stacks/failing/events')).body.events;
  assert.ok(events.some((e: { logicalId: string }) => e.logicalId === 'W'));
  assert.doesNotMatch(JSON.stringify(events), /Fn::GetAtt|\bG\b/);
  const all = (await s.call('GET', '/v1/stacks/failing/events')).body.events;
  assert.match(JSON.stringify(all), /G: Fn::GetAtt W\.Id/);
});

test("a stack's operations run as the token that deployed it: a reference to a type out of its reach is refused", async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  const holder = JSON.parse(WIDGET);
  holder.typeName = 'Test::Shop::Holder';
  holder.properties.Held = { type: 'string' };
  holder.traits = { references: [{ typeName: 'Test::Shop::Widget', ids: { Name: '/properties/Held' } }] };
  for (const doc of [WIDGET, JSON.stringify(holder)])
    assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  const made = await s.call('POST', '/v1/resources/Test::Shop::Widget?wait=10', {
    desiredState: { Name: 'secret-widget' },
  });
  assert.equal(made.body.progressEvent.operationStatus, 'SUCCESS');
  const res = await s.call('POST', '/v1/tokens', { role: 'writer', types: ['Test::Shop::Holder'] });
  const holderWriter = api(s.url, res.body.token);
  const template =
    'Resources:\n  H: { Type: Test::Shop::Holder, Properties: { Name: h, Held: secret-widget } }\n';
  const put = await holderWriter.call('PUT', '/v1/stacks/holder?wait=20', { template });
  assert.equal(put.status, 202, JSON.stringify(put.body));
  assert.equal(put.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(put.body.stack));
  assert.match(put.body.stack.statusReason ?? '', /AccessDenied/);
  // The admin's deployment of the same template runs as the admin, who reaches both.
  const admin = await s.call('PUT', '/v1/stacks/holder?wait=20', { template });
  assert.equal(admin.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(admin.body.stack));
});

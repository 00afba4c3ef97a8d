/**
 * What the web console reads that the API gained for it: the diff between two registered versions of
 * a type with its verdicts, one resource's operation history, and each stack resource's dependencies
 * (the graph's edges) — each scoped to what the token may see.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, settle, startTestService, WIDGET, type TestService } from '../helpers/service.js';

const OTHER = JSON.stringify({
  typeName: 'Other::Team::Thing',
  description: 'A type of another team.',
  properties: { Name: { type: 'string' } },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
});
const widget = JSON.parse(WIDGET);
const { Color: _removed, ...kept } = widget.properties;
const WIDGET_V2 = JSON.stringify({ ...widget, properties: { ...kept, Shape: { type: 'string' } } });

let s: TestService;
let reader: ReturnType<typeof api>;

before(async () => {
  s = await startTestService();
  for (const doc of [WIDGET, OTHER]) assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  assert.equal((await s.call('POST', '/v1/types?allowBreaking=true', WIDGET_V2)).status, 201);
  const token = await s.call('POST', '/v1/tokens', { role: 'reader', types: ['Test::Shop::*'] });
  reader = api(s.url, token.body.token);
});
after(() => s.close());

test('the diff between two versions lists each change with its verdict, breaking first', async () => {
  const diff = await reader.call('GET', '/v1/types/Test::Shop::Widget/diff?from=1&to=2');
  assert.equal(diff.status, 200, JSON.stringify(diff.body));
  assert.equal(diff.body.from, '1');
  assert.equal(diff.body.to, '2');
  const verdictOf = (property: string) =>
    diff.body.changes.find((c: { property?: string }) => c.property === property)?.verdict;
  assert.equal(verdictOf('/properties/Color'), 'breaking');
  assert.equal(diff.body.changes[0].verdict, 'breaking');
  assert.equal(
    diff.body.counts.breaking,
    diff.body.changes.filter((c: any) => c.verdict === 'breaking').length,
  );
  // The other way round, the added property is the removed one.
  const back = await reader.call('GET', '/v1/types/Test::Shop::Widget/diff?from=2&to=1');
  assert.equal(back.body.changes.find((c: any) => c.property === '/properties/Shape')?.verdict, 'breaking');
});

test('a diff names both versions, each registered, of a type the token sees', async () => {
  const missing = await reader.call('GET', '/v1/types/Test::Shop::Widget/diff?from=1');
  assert.equal(missing.status, 400);
  assert.equal(missing.body.details[0].pointer, '/query/to');
  assert.equal((await reader.call('GET', '/v1/types/Test::Shop::Widget/diff?from=1&to=x')).status, 400);
  const unknown = await reader.call('GET', '/v1/types/Test::Shop::Widget/diff?from=1&to=9');
  assert.equal(unknown.status, 404);
  const hidden = await reader.call('GET', '/v1/types/Other::Team::Thing/diff?from=1&to=1');
  assert.equal(hidden.status, 403);
});

test("a resource's operation history: its own operations only, newest first; scoped and checked", async () => {
  for (const name of ['a', 'b']) {
    const created = await s.call('POST', '/v1/resources/Test::Shop::Widget', {
      desiredState: { Name: name },
    });
    await settle(s, created.body.progressEvent.requestToken);
  }
  const updated = await s.call('PATCH', '/v1/resources/Test::Shop::Widget/a', {
    patchDocument: [{ op: 'add', path: '/Count', value: 2 }],
  });
  await settle(s, updated.body.progressEvent.requestToken);
  const history = await reader.call('GET', '/v1/requests?typeName=Test::Shop::Widget&identifier=a');
  assert.equal(history.status, 200, JSON.stringify(history.body));
  assert.deepEqual(
    history.body.progressEvents.map((e: any) => [e.identifier, e.operation]),
    [
      ['a', 'UPDATE'],
      ['a', 'CREATE'],
    ],
  );
  const ofType = await reader.call('GET', '/v1/requests?typeName=Test::Shop::Widget');
  assert.equal(ofType.body.progressEvents.length, 3);
  const alone = await reader.call('GET', '/v1/requests?identifier=a');
  assert.equal(alone.status, 400);
  assert.equal(alone.body.details[0].pointer, '/query/identifier');
  assert.equal((await reader.call('GET', '/v1/requests?typeName=Other::Team::Thing')).status, 403);
  assert.equal((await reader.call('GET', '/v1/requests?typeName=A&typeName=B')).status, 400);
});

test("a stack's resources say what they depend on; a scoped token sees only edges among what it sees", async () => {
  const template = `
Resources:
  Thing: { Type: Other::Team::Thing, Properties: { Name: t } }
  First: { Type: Test::Shop::Widget, DependsOn: Thing, Properties: { Name: first } }
  Second: { Type: Test::Shop::Widget, Properties: { Name: second, Shape: !GetAtt First.Name } }
`;
  const put = await s.call('PUT', '/v1/stacks/edges?wait=20', { template });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
  const edges = (body: any) =>
    Object.fromEntries(body.resources.map((r: any) => [r.logicalId, [...r.dependsOn].sort()]));
  assert.deepEqual(edges((await s.call('GET', '/v1/stacks/edges')).body), {
    Thing: [],
    First: ['Thing'],
    Second: ['First'],
  });
  const scoped = await reader.call('GET', '/v1/stacks/edges');
  assert.equal(scoped.status, 200, JSON.stringify(scoped.body));
  assert.deepEqual(edges(scoped.body), { First: [], Second: ['First'] });
  assert.doesNotMatch(JSON.stringify(scoped.body), /Thing/);
});

/**
 * Run by no-async-context-tax.test.ts in a process of its own (the test runner enables async hooks
 * in its own): a server in this process serves creates and reads judged by a policy, deploys and
 * deletes a stack; prints, as the last line, whether a promise made before and after that
 * work was marked by Node's async hooks (they mark each promise while any hook is enabled).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestService, WIDGET } from '../helpers/service.js';
import { GADGET } from '../stacks/helpers.js';

const tracked = () =>
  Object.getOwnPropertySymbols(Promise.resolve()).some((s) => String(s) === 'Symbol(async_id_symbol)');

const TEMPLATE = `
Resources:
  First:
    Type: Test::Shop::Widget
    Properties: { Name: first, Size: M }
  Gadget:
    Type: Test::Shop::Gadget
    Properties: { WidgetName: !Ref First, Note: n }
`;

function expect(ok: boolean, what: string, body: unknown): void {
  if (!ok) throw new Error(`${what}: ${JSON.stringify(body)}`);
}

const before = tracked();
const s = await startTestService();
for (const doc of [WIDGET, GADGET]) {
  const r = await s.call('POST', '/v1/types', doc);
  expect(r.status === 201, 'type registered', r.body);
}
// A policy that warns: each change's review gives a verdict, collected for the request's record.
const policy = await s.call('POST', '/v1/policies', {
  name: 'warn-widgets',
  match: { types: ['Test::Shop::Widget'], operations: ['CREATE', 'UPDATE', 'DELETE'] },
  action: 'Warn',
  validations: [{ expression: "object.Name != 'nope'", message: 'not nope' }],
});
expect(policy.status === 201, 'policy registered', policy.body);
const created = await s.call('POST', '/v1/resources/Test::Shop::Widget?wait=10', {
  desiredState: { Name: 'plain', Size: 'S' },
});
expect(created.body.progressEvent?.operationStatus === 'SUCCESS', 'created', created.body);
expect((await s.call('GET', '/v1/resources/Test::Shop::Widget/plain')).status === 200, 'read', {});
const put = await s.call('PUT', '/v1/stacks/shop?wait=20', { template: TEMPLATE });
expect(put.body.stack?.status === 'CREATE_COMPLETE', 'deployed', put.body);
const deleted = await s.call('DELETE', '/v1/stacks/shop?wait=20');
expect(deleted.status === 202, 'stack deleted', deleted.body);
await sleep(20);
const after = tracked();
await s.close();
console.log(JSON.stringify({ before, after }));

/**
 * DeletionPolicy and UpdateReplacePolicy as CloudFormation has them, over real HTTP: Retain keeps the
 * resource on a stack's deletion, a removal, a replacement and a rollback (Typeplane's record of it
 * stays, outside the stack); RetainExceptOnCreate deletes it when the deployment that created it rolls
 * back; Snapshot is refused, located, since no provider here takes snapshots.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const T = encodeURIComponent(WIDGET_TYPE);

async function service(t: import('node:test').TestContext) {
  const provider = memoryProvider({
    create: (req, store) => {
      if (req.desiredState.Name === 'doomed')
        return { status: 'FAILED', errorCode: 'ServiceLimitExceeded', message: 'no room' };
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const s = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  return { s, provider };
}

const widget = (name: string, extra = '') =>
  [`    Type: ${WIDGET_TYPE}`, `    Properties: { Name: ${name} }`, extra].filter(Boolean).join('\n');

test('DeletionPolicy Retain keeps the resource and its record when the stack is deleted; Delete deletes', async (t) => {
  const { s, provider } = await service(t);
  const template = `Resources:\n  Kept:\n${widget('kept', '    DeletionPolicy: Retain')}\n  Gone:\n${widget('gone')}\n`;
  const put = await s.call('PUT', '/v1/stacks/app?wait=20', { template });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body.stack));
  const deleted = await s.call('DELETE', '/v1/stacks/app?wait=20');
  assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE');
  assert.deepEqual([...provider.store.keys()], ['kept']);
  assert.equal((await s.call('GET', `/v1/resources/${T}/kept`)).status, 200, 'its record stays');
  assert.equal((await s.call('GET', `/v1/resources/${T}/gone`)).status, 404);
  const events = (await s.call('GET', '/v1/stacks/app/events')).body.events.map(
    (e: { logicalId: string; status: string; reason?: string }) =>
      `${e.logicalId} ${e.status} ${e.reason ?? ''}`,
  );
  assert.ok(events.includes('Kept DELETE_SKIPPED DeletionPolicy: Retain'), events.join('\n'));
});

test('UpdateReplacePolicy Retain keeps the replaced resource, recorded, outside the stack', async (t) => {
  const { s, provider } = await service(t);
  const template = (name: string) => `Resources:\n  W:\n${widget(name, '    UpdateReplacePolicy: Retain')}\n`;
  assert.equal(
    (await s.call('PUT', '/v1/stacks/app?wait=20', { template: template('first') })).body.stack.status,
    'CREATE_COMPLETE',
  );
  const replaced = await s.call('PUT', '/v1/stacks/app?wait=20', { template: template('second') });
  assert.equal(replaced.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(replaced.body.stack));
  assert.deepEqual([...provider.store.keys()].sort(), ['first', 'second']);
  assert.equal((await s.call('GET', `/v1/resources/${T}/first`)).status, 200);
  assert.deepEqual(
    replaced.body.stack.resources.map((r: { identifier: string }) => r.identifier),
    ['second'],
  );
});

test('a rolled back create keeps a Retain resource, deletes a RetainExceptOnCreate one', async (t) => {
  const { s, provider } = await service(t);
  const template = [
    'Resources:',
    '  Kept:',
    widget('kept', '    DeletionPolicy: Retain'),
    '  Undone:',
    widget('undone', '    DeletionPolicy: RetainExceptOnCreate'),
    '  Doomed:',
    widget('doomed', '    DependsOn: [Kept, Undone]'),
  ].join('\n');
  const put = await s.call('PUT', '/v1/stacks/app?wait=20', { template });
  assert.equal(put.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(put.body.stack));
  assert.deepEqual([...provider.store.keys()], ['kept']);
  assert.equal((await s.call('GET', `/v1/resources/${T}/kept`)).status, 200, 'kept, recorded');
  assert.equal((await s.call('GET', `/v1/resources/${T}/undone`)).status, 404);
  assert.deepEqual(put.body.stack.resources, [], 'neither is in the stack');
});

test('RetainExceptOnCreate keeps the resource once its create is done: a later deletion leaves it', async (t) => {
  const { s, provider } = await service(t);
  const template = `Resources:\n  W:\n${widget('lasting', '    DeletionPolicy: RetainExceptOnCreate')}\n`;
  assert.equal(
    (await s.call('PUT', '/v1/stacks/app?wait=20', { template })).body.stack.status,
    'CREATE_COMPLETE',
  );
  assert.equal((await s.call('DELETE', '/v1/stacks/app?wait=20')).body.stack.status, 'DELETE_COMPLETE');
  assert.deepEqual([...provider.store.keys()], ['lasting']);
});

test('Snapshot is refused where it is written, saying why and what to use instead', async (t) => {
  const { s } = await service(t);
  const template = `Resources:\n  W:\n${widget('w', '    DeletionPolicy: Snapshot\n    UpdateReplacePolicy: Snapshot')}\n`;
  const checked = await s.call('POST', '/v1/stacks/validate', { template });
  assert.equal(checked.body.valid, false);
  const problems = checked.body.diagnostics.map(
    (d: { line: number; message: string }) => `${d.line} ${d.message}`,
  );
  assert.deepEqual(problems, [
    `5 DeletionPolicy Snapshot: ${WIDGET_TYPE} has no snapshot support in Typeplane (its provider takes no snapshots); use Retain to keep the resource, or Delete`,
    `6 UpdateReplacePolicy Snapshot: ${WIDGET_TYPE} has no snapshot support in Typeplane (its provider takes no snapshots); use Retain to keep the resource, or Delete`,
  ]);
  const unknown = `Resources:\n  W:\n${widget('w', '    UpdateReplacePolicy: RetainExceptOnCreate')}\n`;
  const refused = await s.call('POST', '/v1/stacks/validate', { template: unknown });
  assert.match(refused.body.diagnostics[0].message, /UpdateReplacePolicy must be Delete, Retain/);
});

/**
 * Every change is put to the engine's reviewer before it begins, the same way for create, update
 * (PATCH), replace (PUT) and delete: a `Deny` verdict refuses it with nothing written, a `Warn` one
 * comes back on the event, and the reviewer sees the old and new states and who asks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { Engine, engineLogger, type ReviewRequest } from '../../src/engine/index.js';
import { createStateProvider } from '../../src/providers/index.js';
import { Registry } from '../../src/registry/registry.js';
import { createSealer } from '../../src/secrets/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { DeniedByVerdicts, type Verdict } from '../../src/verdict.js';
import { WIDGET, WIDGET_TYPE, tempDir } from '../helpers/service.js';

async function setUp(decide: (r: ReviewRequest) => Verdict[]) {
  const store = await openSqliteStore(join(tempDir(), 'typeplane.db'));
  const registry = new Registry(store);
  await registry.register(WIDGET);
  const state = createStateProvider(store, async (typeName) => (await registry.get(typeName)).type);
  const seen: ReviewRequest[] = [];
  const engine = new Engine({
    store,
    registry,
    providerFor: () => state,
    sealer: createSealer(randomBytes(32)),
    logger: engineLogger(pino({ level: 'silent' })),
    reviewer: {
      review: async (request) => {
        seen.push(request);
        return decide(request);
      },
    },
  });
  return { engine, store, seen };
}

const deny = (name: string): Verdict => ({
  source: 'policy',
  name,
  action: 'Deny',
  message: `${name} says no`,
});
const warn = (name: string): Verdict => ({ source: 'hook', name, action: 'Warn', message: `${name} warns` });

test('a denied create is refused with its verdicts and writes nothing', async (t) => {
  const { engine, store, seen } = await setUp((r) => (r.object?.Name === 'bad' ? [deny('no-bad')] : []));
  t.after(() => store.close());
  const refusal = await engine.create(WIDGET_TYPE, { Name: 'bad' }).then(
    () => assert.fail('the create was not refused'),
    (e: unknown) => e,
  );
  assert.ok(refusal instanceof DeniedByVerdicts);
  assert.equal(refusal.status, 403);
  assert.equal(refusal.code, 'AccessDenied');
  assert.deepEqual(refusal.details, [deny('no-bad')]);
  assert.match(refusal.message, /policy no-bad: no-bad says no/);
  assert.equal(await store.getResource(WIDGET_TYPE, 'bad'), undefined);
  assert.equal(seen[0]?.operation, 'CREATE');
  assert.equal(seen[0]?.identifier, 'bad');
  const ok = await engine.create(WIDGET_TYPE, { Name: 'good' });
  assert.equal(ok.operationStatus, 'SUCCESS');
  assert.equal(ok.warnings, undefined);
});

test('rules alone refuse with 400; warnings come back on the event of every kind of change', async (t) => {
  const { engine, store, seen } = await setUp((r) =>
    r.operation === 'DELETE' && r.oldObject?.Name === 'keep'
      ? [{ source: 'rule', name: '/x-typeplane-validations/0', action: 'Deny', message: 'kept' }]
      : [warn(`w-${r.operation}`), { source: 'policy', name: 'a', action: 'Audit', message: 'noted' }],
  );
  t.after(() => store.close());
  const created = await engine.create(WIDGET_TYPE, { Name: 'keep', Labels: [] });
  assert.deepEqual(created.warnings, [warn('w-CREATE')]);
  const patched = await engine.update(WIDGET_TYPE, 'keep', [{ op: 'add', path: '/Labels/-', value: 'x' }]);
  assert.deepEqual(patched.warnings, [warn('w-UPDATE')]);
  const update = seen.at(-1)!;
  assert.deepEqual(update.oldObject?.Labels, []);
  assert.deepEqual(update.object?.Labels, ['x']);
  const replaced = await engine.put(WIDGET_TYPE, 'keep', { Name: 'keep', Labels: ['y'] });
  assert.deepEqual(replaced.warnings, [warn('w-UPDATE')]);
  await assert.rejects(engine.delete(WIDGET_TYPE, 'keep'), (e: DeniedByVerdicts) => e.status === 400);
  assert.ok(await store.getResource(WIDGET_TYPE, 'keep'), 'the refused delete left the resource');
  await engine.create(WIDGET_TYPE, { Name: 'other' });
  const deleted = await engine.delete(WIDGET_TYPE, 'other');
  assert.deepEqual(deleted.warnings, [warn('w-DELETE')]);
  // Kept with the operation: read back from the store, its events still carry them.
  assert.deepEqual((await engine.getRequest(patched.requestToken)).warnings, [warn('w-UPDATE')]);
  assert.deepEqual((await store.getOperation(deleted.requestToken))?.warnings, [warn('w-DELETE')]);
});

test('the reviewer is told who asks', async (t) => {
  const { engine, store, seen } = await setUp(() => []);
  t.after(() => store.close());
  const caller = { id: 'tok-1', canSee: () => true, role: 'writer', description: 'team a', stack: 'net' };
  await engine.create(WIDGET_TYPE, { Name: 'c' }, undefined, caller);
  assert.equal(seen[0]?.caller, caller);
});

/**
 * A patch applies to the resource as it is when the update begins: when another update gets in
 * between the read a patch was computed from and its begin, the engine computes it again on the
 * newer state instead of refusing it, a bounded number of times. The interference is made
 * deterministic by a store that lets another update in just before an update is written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { Engine, engineLogger } from '../../src/engine/index.js';
import { createStateProvider } from '../../src/providers/index.js';
import { Registry } from '../../src/registry/registry.js';
import { createSealer } from '../../src/secrets/index.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { WIDGET, WIDGET_TYPE, tempDir } from '../helpers/service.js';

/** An engine over `store`, with the state provider. */
function engineOn(store: Store, sealer: ReturnType<typeof createSealer>): Engine {
  const registry = new Registry(store);
  const state = createStateProvider(store, async (typeName) => (await registry.get(typeName)).type);
  return new Engine({
    store,
    registry,
    providerFor: () => state,
    sealer,
    logger: engineLogger(pino({ level: 'silent' })),
  });
}

/**
 * Two engines on one SQLite file; the first's store runs `interfere` (an update through the second)
 * before each of its first `times` update writes.
 */
async function setUp(times: number) {
  const real = await openSqliteStore(join(tempDir(), 'typeplane.db'));
  const sealer = createSealer(randomBytes(32));
  const other = engineOn(real, sealer);
  let interfered = 0;
  const interfering: Store = Object.create(real) as Store;
  interfering.completeOperation = async (operation, hash, decide) => {
    if (operation.operation === 'UPDATE' && interfered < times) {
      interfered++;
      const event = await other.update(WIDGET_TYPE, 'w', [
        { op: 'add', path: '/Labels/-', value: `other-${interfered}` },
      ]);
      assert.equal(event.operationStatus, 'SUCCESS');
    }
    return real.completeOperation(operation, hash, decide);
  };
  const engine = engineOn(interfering, sealer);
  await new Registry(real).register(WIDGET);
  const created = await engine.create(WIDGET_TYPE, { Name: 'w', Labels: [] });
  assert.equal(created.operationStatus, 'SUCCESS');
  return { engine, real, interfered: () => interfered };
}

test('a patch overtaken by another update is applied to the newer state, not refused', async (t) => {
  const { engine, real, interfered } = await setUp(3);
  t.after(() => real.close());
  const event = await engine.update(WIDGET_TYPE, 'w', [{ op: 'add', path: '/Labels/-', value: 'mine' }]);
  assert.equal(event.operationStatus, 'SUCCESS', event.statusMessage);
  assert.equal(interfered(), 3, 'three other updates got in first');
  // Nothing lost: the three that got in first, then this one, in that order.
  const stored = await real.getResource(WIDGET_TYPE, 'w');
  assert.deepEqual(stored?.properties.Labels, ['other-1', 'other-2', 'other-3', 'mine']);
});

test('a test operation is checked again on the newer state', async (t) => {
  const { engine, real } = await setUp(1);
  t.after(() => real.close());
  // Computed while Labels was [], applied after another update made it ['other-1']: the test fails.
  await assert.rejects(
    engine.update(WIDGET_TYPE, 'w', [
      { op: 'test', path: '/Labels', value: [] },
      { op: 'add', path: '/Labels/-', value: 'mine' },
    ]),
    (e: Error & { code?: string }) => e.code === 'InvalidRequest',
  );
  assert.deepEqual((await real.getResource(WIDGET_TYPE, 'w'))?.properties.Labels, ['other-1']);
});

test('an update overtaken every time is refused with ResourceConflict after a bounded number of tries', async (t) => {
  const { engine, real, interfered } = await setUp(Infinity);
  t.after(() => real.close());
  await assert.rejects(
    engine.update(WIDGET_TYPE, 'w', [{ op: 'add', path: '/Labels/-', value: 'mine' }]),
    (e: Error & { code?: string }) => e.code === 'ResourceConflict' && /kept changing/.test(e.message),
  );
  assert.equal(interfered(), 8, 'eight tries');
  assert.ok(!(await real.getResource(WIDGET_TYPE, 'w'))?.properties.Labels?.toString().includes('mine'));
});

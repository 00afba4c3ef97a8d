/**
 * A manifest's types are registered together or not at all: when one of them is refused after the
 * registration was decided (a resource of it appeared meanwhile, so its breaking change may no
 * longer go), none of the others gets its new version either. The interference is made deterministic
 * by a store that creates the resource just before the versions are written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { stringify as toYaml } from 'yaml';
import { Engine, engineLogger } from '../../src/engine/index.js';
import { TypeplaneError } from '../../src/errors.js';
import { createStateProvider } from '../../src/providers/index.js';
import { Registry } from '../../src/registry/registry.js';
import { createSealer } from '../../src/secrets/index.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { tempDir } from '../helpers/service.js';

const ALPHA = 'Test.Atomic/alpha';
const BETA = 'Test.Atomic/beta';

/** The manifest: alpha with or without a colour, beta with the sizes given. */
function manifest(alphaColour: boolean, betaSizes: string[]): string {
  const type = (properties: Record<string, unknown>) => ({
    description: 'A type registered with another.',
    apiVersions: { '2025-01-01': { schema: { type: 'object', properties } } },
  });
  return toYaml({
    namespace: 'Test.Atomic',
    types: {
      alpha: type({ size: { type: 'string' }, ...(alphaColour ? { colour: { type: 'string' } } : {}) }),
      beta: type({ size: { type: 'string', enum: betaSizes } }),
    },
  });
}

test("a manifest's types get their new versions together: one refused meanwhile keeps the others at theirs", async (t) => {
  const real = await openSqliteStore(join(tempDir(), 'typeplane.db'));
  t.after(() => real.close());
  const registry = new Registry(real);
  const state = createStateProvider(real, async (typeName) => (await registry.get(typeName)).type);
  const engine = new Engine({
    store: real,
    registry,
    providerFor: () => state,
    sealer: createSealer(randomBytes(32)),
    logger: engineLogger(pino({ level: 'silent' })),
  });
  await registry.register(manifest(false, ['S', 'M']));

  // Between deciding and writing, a beta resource of size M is created.
  let interfered = 0;
  const interfering: Store = Object.create(real) as Store;
  interfering.addTypeVersions = async (entries) => {
    if (interfered++ === 0) {
      const created = await engine.create(BETA, { name: 'b1', size: 'M' });
      assert.equal(created.operationStatus, 'SUCCESS', created.statusMessage);
    }
    return real.addTypeVersions(entries);
  };
  // Alpha gains an optional property (safe); beta loses size M (breaking, allowed while beta is unused).
  await assert.rejects(
    new Registry(interfering).register(manifest(true, ['S'])),
    (e: unknown) =>
      e instanceof TypeplaneError &&
      e.code === 'ResourceConflict' &&
      e.message.includes(BETA) &&
      !e.message.includes(ALPHA),
  );
  assert.equal(interfered, 1, 'the versions were about to be written once');
  assert.equal((await real.getTypeStamp(ALPHA))?.version, '1', 'alpha keeps its version');
  assert.equal((await real.getTypeStamp(BETA))?.version, '1', 'beta keeps its version');
  assert.deepEqual(
    (await real.listTypeVersions(ALPHA)).map((v) => v.version),
    ['1'],
  );

  // Allowed to break, both get their new version at once.
  const registered = await new Registry(real).register(manifest(true, ['S']), { allowBreaking: true });
  assert.deepEqual(
    registered.map((r) => [r.record.typeName, r.record.version]),
    [
      [ALPHA, '2'],
      [BETA, '2'],
    ],
  );
});

/**
 * Registering a document again that changes nothing stores nothing and compiles nothing: the types'
 * stored versions were compiled when they were stored, and a server restarted with `--types` over
 * the same documents would otherwise compile every one of them again (most of its start). What a
 * registration compiles shows where compiling refuses: a type stored past today's compile limits (as
 * an older release could store it) is answered `unchanged`, while a document that changes it, or
 * holds another model past the limits, is refused whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TypeplaneError } from '../../src/errors.js';
import { Registry } from '../../src/registry/registry.js';
import { SCHEMA_LIMITS } from '../../src/registry/index.js';
import { validateDocument } from '../../src/schema/index.js';
import type { Store } from '../../src/store/index.js';
import { freshStore } from '../store/fixtures.js';

const TYPE = 'Test::Unchanged::Thing';
/** An enum one value longer than the compiler takes: the meta-schema accepts it, compiling refuses it. */
const HUGE_ENUM = Array.from({ length: SCHEMA_LIMITS.maxEnumValues + 1 }, (_, i) => `v${i}`);

function schema(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    typeName: TYPE,
    description: 'A type registered twice.',
    properties: { Name: { type: 'string' }, Size: { type: 'string', enum: HUGE_ENUM }, ...extra },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
  });
}

/** Stores the document's type as it is, without compiling it (as a release with looser limits did). */
async function storeUncompiled(store: Store, text: string): Promise<void> {
  const [model] = validateDocument(text).types;
  assert.ok(model);
  await store.addTypeVersions([
    {
      type: { typeName: TYPE, model, source: text, registeredAt: new Date().toISOString() },
      expected: { defaultVersion: undefined },
    },
  ]);
}

const refusedForComplexity = (e: unknown) =>
  e instanceof TypeplaneError && e.code === 'InvalidRequest' && /too complex to validate/.test(e.message);

test('a document past the compile limits is refused when it registers its type', async (t) => {
  const registry = new Registry((await freshStore(t)).store);
  await assert.rejects(registry.register(schema()), refusedForComplexity);
});

test('registering the stored document again is unchanged, without compiling it', async (t) => {
  const store = (await freshStore(t)).store;
  await storeUncompiled(store, schema());
  const [registration] = await new Registry(store).register(schema());
  assert.equal(registration?.outcome, 'unchanged');
  assert.equal(registration?.record.version, '1');
});

test('a change to that type is compiled, and refused', async (t) => {
  const store = (await freshStore(t)).store;
  await storeUncompiled(store, schema());
  await assert.rejects(
    new Registry(store).register(schema({ Colour: { type: 'string' } })),
    refusedForComplexity,
  );
  assert.equal((await store.getType(TYPE))?.version, '1');
});

test("a manifest's model that is not served is compiled even when the served one is unchanged", async (t) => {
  const store = (await freshStore(t)).store;
  const registry = new Registry(store);
  // As JSON: YAML this long is refused before it is read.
  const manifest = (older: Record<string, unknown>) =>
    JSON.stringify({
      namespace: 'Test.Unchanged',
      types: {
        thing: {
          description: 'A type of two API versions; the later one is served.',
          apiVersions: {
            '2024-01-01': { schema: { type: 'object', properties: older } },
            '2025-01-01': { schema: { type: 'object', properties: { size: { type: 'string' } } } },
          },
        },
      },
    });
  const [first] = await registry.register(manifest({ size: { type: 'string' } }));
  assert.equal(first?.outcome, 'created');
  const [again] = await registry.register(manifest({ size: { type: 'string' } }));
  assert.equal(again?.outcome, 'unchanged');
  await assert.rejects(
    registry.register(manifest({ size: { type: 'string', enum: HUGE_ENUM } })),
    refusedForComplexity,
  );
});

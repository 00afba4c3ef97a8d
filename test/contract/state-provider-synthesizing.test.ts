/**
 * The state provider keeps the whole contract with synthesis on, its handlers driven directly (as
 * `typeplane test` drives a provider): creates fill the read-only properties, reads return them, an
 * update keeps them though its desired state has none — so `read-only properties returned` passes with
 * nothing declared absent but the one property whose pattern no string is written for.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readSchemaType, runContractSuite } from '../../src/contract/index.js';
import { createStateProvider, Synthesis } from '../../src/providers/index.js';
import { compileType } from '../../src/registry/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { explain, failedTests, root } from './helpers.js';

test('the synthesizing state provider passes the whole suite, read-only properties returned included, in under 5 s', async (t) => {
  const type = await readSchemaType(join(root, 'test/contract/state-synthesized.json'));
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-contract-synthesis-'));
  const store = await openSqliteStore(join(dir, 'typeplane.db'));
  try {
    const synthesis = new Synthesis({ synthesize: ['Test::Synth::*'] }, {}, (ty, model) =>
      compileType(ty).validateOutput(model),
    );
    const provider = createStateProvider(store, async () => type, { synthesis });
    const started = performance.now();
    const report = await runContractSuite({
      type,
      provider,
      seed: 20240501,
      allowAbsent: ['/properties/Greek'],
    });
    const ms = performance.now() - started;
    t.diagnostic(`${report.results.length} tests, ${Math.round(ms)} ms`);
    assert.deepEqual(failedTests(report), [], explain(report));
    assert.equal(report.results.find((r) => r.name === 'read-only properties returned')?.status, 'pass');
    assert.deepEqual(report.cleanup.leftovers, []);
    assert.ok(ms < 5000, `the suite took ${Math.round(ms)} ms`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readSchemaType, runContractSuite } from '../../src/contract/index.js';
import { explain, failedTests, root, stateProvider } from './helpers.js';

/**
 * The built-in state provider keeps the whole contract. The schemas have no write-only properties:
 * the state provider stores the desired state as it is and returns it on read, write-only values
 * included, which the suite counts against create→read (the engine hides them from users). It sets no
 * read-only values but a generated identifier (a type served by it has nobody else to set them), so
 * the others are declared as allowed to be absent, as `--allow-absent` would.
 */
const schemas = [
  'test/contract/state-gadget.json', // read-only generated identifier, nested objects, arrays, maps, formats, RE2 flags
  'test/contract/state-named.json', // writable identifier, built-in Tags, defaults
  'examples/queues.yaml', // a Radius-style manifest
];

for (const schema of schemas) {
  test(`the state provider passes the whole suite for ${schema}, in under 5 s`, async (t) => {
    const type = await readSchemaType(join(root, schema));
    const state = await stateProvider(type);
    try {
      const started = performance.now();
      const allowAbsent = type.readOnlyProperties.filter((p) => !type.primaryIdentifier.includes(p));
      const report = await runContractSuite({ type, provider: state.provider, seed: 20240501, allowAbsent });
      const ms = performance.now() - started;
      t.diagnostic(`${type.typeName}: ${report.results.length} tests, ${report.durationMs} ms`);
      assert.deepEqual(failedTests(report), [], explain(report));
      assert.equal(report.ok, true);
      assert.deepEqual(report.cleanup.leftovers, []);
      const ran = report.results.filter((r) => r.status === 'pass').length;
      assert.ok(ran >= 18, `only ${ran} tests passed`);
      assert.ok(ms < 5000, `the suite took ${Math.round(ms)} ms`);
    } finally {
      await state.close();
    }
  });
}

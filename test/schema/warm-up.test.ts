/**
 * A long run of documents is preceded by a warm-up document validated a few times (warm-up.ts), so
 * that V8 optimizes the walks for everything they will meet. The document must reach the walks' rare
 * paths, which it does only while it is valid (a document with errors gets no model and no Bicep
 * warnings), and nothing of it may reach a run's results.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadTypes } from '../../src/schema/index.js';
import { WARM_UP_FROM, warmUpChecks } from '../../src/schema/warm-up.js';
import { minimalSchema } from './helpers.js';

describe('warming the checks up', () => {
  it('validates a valid document that reaches the rare paths: every kind of warning, a model with references', () => {
    const result = warmUpChecks({ bicepWarnings: true });
    assert.equal(result.valid, true, JSON.stringify(result.diagnostics));
    const rules = new Set(result.diagnostics.map((d) => d.rule));
    // Number, odd enum and pattern-property Bicep warnings; an unknown format; an open object; a
    // list entry naming nothing; a wildcard permission.
    for (const rule of ['TP5001', 'TP5002', 'TP5003', 'TP2043', 'TP2040', 'TP2011', 'TP2041'])
      assert.ok(rules.has(rule), `${rule} in ${[...rules].join(', ')}`);
    const [type] = result.types;
    assert.equal(type?.typeName, 'Typeplane::Warm::Up');
    assert.deepEqual(
      type.traits.references.map((r) => Boolean(r.relationshipRef)),
      [false, true],
      'a declared reference and a relationshipRef',
    );
    // Placed as a file's findings are.
    assert.ok(result.diagnostics.every((d) => d.file === 'warm-up.json' && (d.line ?? 0) > 1));
  });

  it('leaves nothing of itself in the results of a run long enough to be warmed up', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'warm-up-'));
    try {
      for (let i = 0; i < WARM_UP_FROM; i++)
        writeFileSync(
          join(folder, `t${i}.json`),
          JSON.stringify({ ...minimalSchema(), typeName: `Org::Service::T${i}` }),
        );
      const run = await loadTypes([folder], { bicepWarnings: true });
      assert.equal(run.results.length, WARM_UP_FROM);
      assert.equal(run.types.length, WARM_UP_FROM);
      assert.ok(
        run.results.every((r) => r.valid && r.diagnostics.length === 0 && r.file?.startsWith(folder)),
      );
      assert.ok(!run.types.some((t) => t.typeName === 'Typeplane::Warm::Up'));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

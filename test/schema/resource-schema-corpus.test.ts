/**
 * Every published AWS resource schema in the shared corpus validates without an error (warnings
 * allowed) and normalises to its type. Skipped when the corpus is not checked out (fails under CI).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { validateDocument } from '../../src/schema/validate.js';
import { AWS_CORPUS as corpus, corpusSkip } from '../helpers/requirements.js';

const skip = corpusSkip();

describe('the AWS resource schema corpus', () => {
  it('holds 1489 schemas, each valid, each normalised to its type', { skip }, () => {
    const files = readdirSync(corpus)
      .filter((f) => f.endsWith('.json'))
      .sort();
    assert.equal(files.length, 1489);
    const started = performance.now();
    const failures: string[] = [];
    for (const name of files) {
      const result = validateDocument(readFileSync(corpus + name), { file: name });
      for (const d of result.diagnostics) {
        if (d.severity === 'error')
          failures.push(`${d.file}:${d.line}:${d.column} ${d.rule} ${d.pointer} ${d.message}`);
        assert.ok(
          d.line !== undefined && d.column !== undefined,
          `${name}: ${d.rule} at ${d.pointer} is located`,
        );
      }
      if (result.valid) {
        assert.equal(result.dialect, 'resource-schema', name);
        assert.equal(result.types.length, 1, name);
        assert.equal(`${result.types[0]!.typeName.replace(/::/g, '_')}.json`, name);
      }
    }
    assert.deepEqual(failures.slice(0, 50), [], `${failures.length} errors in the corpus`);
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds < 5, `validated the corpus in ${seconds.toFixed(1)} s (budget 5 s)`);
  });
});

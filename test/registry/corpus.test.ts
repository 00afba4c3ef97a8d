import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { compileType } from '../../src/registry/index.js';
import { validateDocument } from '../../src/schema/validate.js';
import { AWS_CORPUS as corpus, corpusSkip } from '../helpers/requirements.js';

test('published AWS schemas compile (every 20th file)', { skip: corpusSkip() }, () => {
  const files = readdirSync(corpus)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .filter((_, i) => i % 20 === 0);
  assert.ok(files.length >= 70);
  for (const file of files) {
    const type = validateDocument(readFileSync(corpus + file), { file }).types[0];
    assert.ok(type, `${file} normalises to a type`);
    const compiled = compileType(type);
    // Both validators run. An empty model misses required properties at most (or the `anyOf`/`oneOf`
    // branches that require them); with presence rules relaxed, it is a valid answer.
    for (const detail of compiled.validateInput({})) {
      assert.equal(typeof detail.pointer, 'string');
      assert.match(
        detail.message,
        /required property|must match/,
        `${file}: ${detail.pointer} ${detail.message}`,
      );
    }
    assert.deepEqual(compiled.validateOutput({}), [], file);
  }
});

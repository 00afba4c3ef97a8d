/**
 * A type document reached twice, once through a symbolic link (a configuration's `types` beside a
 * built-in provider's own schemas), is one document, not a type defined twice.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadTypes } from '../../src/schema/index.js';
import { tempDir } from '../helpers/service.js';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));

test('a document named directly and again through a linked folder is read once, under the path first named', async () => {
  const dir = tempDir('typeplane-symlinked-');
  mkdirSync(join(dir, 'types'));
  copyFileSync(join(examples, 'queues.yaml'), join(dir, 'types/queues.yaml'));
  symlinkSync(join(dir, 'types'), join(dir, 'linked'));
  const { valid, results, types } = await loadTypes([
    join(dir, 'types/queues.yaml'),
    join(dir, 'linked/queues.yaml'),
    join(dir, 'linked'),
  ]);
  assert.equal(valid, true, JSON.stringify(results, null, 2));
  assert.deepEqual(
    results.map((r) => r.file),
    [join(dir, 'types/queues.yaml')],
  );
  assert.deepEqual(
    types.map((t) => t.typeName),
    ['Typeplane.Messaging/queues'],
  );
});

test('two copies of a document at different places are still a type defined twice', async () => {
  const dir = tempDir('typeplane-copied-');
  copyFileSync(join(examples, 'queues.yaml'), join(dir, 'a.yaml'));
  copyFileSync(join(examples, 'queues.yaml'), join(dir, 'b.yaml'));
  const { valid, results } = await loadTypes([dir]);
  assert.equal(valid, false);
  assert.ok(results.some((r) => r.diagnostics.some((d) => d.rule === 'TP1011')));
});

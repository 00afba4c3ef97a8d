/**
 * The paths of a folder's files, joined and shown relative to a folder with each folder's part worked
 * out once, are exactly those `path.join` and `path.relative` make.
 */
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { joinerOf, relativeTo } from '../../src/schema/file-paths.js';

/** The last steps of this process's folder, which relative paths resolve against. */
const here = process.cwd().split('/').filter(Boolean).slice(-2);
/** Paths of steps that normalising changes or keeps: '.', '..', empty ones (doubled slashes), names. */
const segment = fc.constantFrom('.', '..', '', 'a', 'b', 'types', 'x.json', '.hidden', 'a b', ...here);
const path = fc
  .tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }), fc.boolean())
  .map(([absolute, steps, trailing]) => (absolute ? '/' : '') + steps.join('/') + (trailing ? '/' : ''));
/** What readdir lists: one plain segment. */
const name = fc.constantFrom('a', 'b.json', 'types', 'x.yaml', 'a b.yml', '-', 'é.json', ...here);

test('a folder joiner gives what path.join gives for each name the folder lists', () => {
  fc.assert(
    fc.property(path, fc.array(name, { minLength: 1, maxLength: 4 }), (folder, names) => {
      const childOf = joinerOf(folder);
      for (const n of names) assert.equal(childOf(n), join(folder, n), `join(${folder}, ${n})`);
    }),
    { numRuns: 2000 },
  );
});

test('paths shown relative to a folder are what path.relative gives, or the path where that is empty', () => {
  fc.assert(
    fc.property(path, fc.array(fc.tuple(path, name), { minLength: 1, maxLength: 6 }), (from, files) => {
      const shown = relativeTo(from);
      // Files in the same folders one after another, as a folder's are: the folder's part is reused.
      for (const [folder, n] of [...files, ...files]) {
        for (const file of [`${folder}/${n}`, folder, n]) {
          assert.equal(shown(file), relative(from, file) || file, `relative(${from}, ${file})`);
        }
      }
    }),
    { numRuns: 2000 },
  );
});

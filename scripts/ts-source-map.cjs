// Where a place in the TypeScript mirror (scripts/ts-mirror.mjs) is in the .ts source, from the
// mirror file's inline source map, read the first time it is asked for. Used for stack traces
// (scripts/ts-run.cjs) and test locations (scripts/test-source-reporter.mjs).
'use strict';
const { SourceMap } = process.getBuiltinModule('node:module');
const { readFileSync } = process.getBuiltinModule('node:fs');
const { join, relative } = process.getBuiltinModule('node:path');

const root = join(__dirname, '..');
const mirror = join(root, 'node_modules/.cache/typeplane-ts');
const maps = new Map();

function mapOf(file) {
  if (!maps.has(file)) {
    const inline = /sourceMappingURL=data:application\/json;base64,(\S+)\s*$/.exec(
      readFileSync(file, 'utf8'),
    );
    maps.set(
      file,
      inline ? new SourceMap(JSON.parse(Buffer.from(inline[1], 'base64').toString())) : undefined,
    );
  }
  return maps.get(file);
}

/**
 * `{ file, line, column }` (1-based) in the .ts source for that place in a mirror file; a place
 * outside the mirror as it is given.
 */
function sourceOf(file, line, column) {
  if (typeof file !== 'string' || !file.startsWith(`${mirror}/`)) return { file, line, column };
  const source = join(root, relative(mirror, file)).replace(/js$/, 'ts');
  const entry = line === undefined ? undefined : mapOf(file)?.findEntry(line - 1, (column ?? 1) - 1);
  return entry?.originalLine === undefined
    ? { file: source, line, column }
    : { file: source, line: entry.originalLine + 1, column: entry.originalColumn + 1 };
}

module.exports = { mirror, root, sourceOf };

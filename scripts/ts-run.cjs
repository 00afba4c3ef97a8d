// `node --require ./scripts/ts-run.cjs file.ts`: runs a TypeScript entry point of the project from
// its JavaScript mirror (scripts/ts-mirror.mjs), with no module hooks, and stack traces through the
// mirror's source maps to the .ts lines. The mirror is what scripts/run-tests.mjs last prepared: a
// run tests the TypeScript as it was when the run began. An entry the mirror lacks (a .ts file
// elsewhere, or made since) runs through tsx, as it would without this file.
'use strict';
const Module = process.getBuiltinModule('node:module');
const { existsSync } = process.getBuiltinModule('node:fs');
const { join, relative, resolve } = process.getBuiltinModule('node:path');
const { fileURLToPath, pathToFileURL } = process.getBuiltinModule('node:url');

const { mirror, root, sourceOf } = require('./ts-source-map.cjs');
const runMain = Module.runMain;

// Stack traces name the .ts file and line. Not through Node's source maps: enabled, they parse every
// module's map as it loads (~0.2 s of CPU for a test's ~400 modules); here a map is read only when
// a stack passes through its module.
function located(frame) {
  const text = `${frame}`;
  const name = frame.getFileName();
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  const file = name?.startsWith('file:') ? fileURLToPath(name) : name;
  const source = sourceOf(file, line, column);
  if (source.file === file) return text;
  return text.replace(`${name}:${line}:${column}`, `${source.file}:${source.line}:${source.column}`);
}
Error.prepareStackTrace = (error, frames) => {
  let header;
  try {
    header = Error.prototype.toString.call(error);
  } catch {
    header = '<error>';
  }
  return [header, ...frames.map((frame) => `    at ${located(frame)}`)].join('\n');
};
// Node calls Module.runMain with the entry point once preloads have run (tools like ts-node replace
// it the same way); the rest of the process — process.argv, the test runner's file — keeps the .ts.
Module.runMain = function runFromMirror(main = process.argv[1]) {
  const path = resolve(main);
  const inTree = relative(root, path);
  const built = join(mirror, inTree).replace(/ts$/, 'js');
  if (/\.m?ts$/.test(path) && !inTree.startsWith('..') && existsSync(built)) return runMain.call(this, built);
  if (!/\.[mc]?tsx?$/.test(path)) return runMain.call(this, main);
  const tsx = pathToFileURL(Module.createRequire(__filename).resolve('tsx')).href;
  return import(tsx).then(() => runMain.call(this, main));
};

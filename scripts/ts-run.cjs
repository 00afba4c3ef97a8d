// `node --require ./scripts/ts-run.cjs file.ts`: runs a TypeScript entry point of the project from
// its JavaScript mirror (scripts/ts-mirror.mjs), with no module hooks, and stack traces through the
// mirror's source maps to the .ts lines. The mirror is what scripts/run-tests.mjs last prepared: a
// run tests the TypeScript as it was when the run began. An entry the mirror lacks (a .ts file
// elsewhere, or made since) runs through tsx, as it would without this file.
/* global __dirname, __filename */
'use strict';
const Module = process.getBuiltinModule('node:module');
const { existsSync } = process.getBuiltinModule('node:fs');
const { join, relative, resolve } = process.getBuiltinModule('node:path');
const { pathToFileURL } = process.getBuiltinModule('node:url');

const root = join(__dirname, '..');
const mirror = join(root, 'node_modules/.cache/typeplane-ts');
const runMain = Module.runMain;

process.setSourceMapsEnabled(true);
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

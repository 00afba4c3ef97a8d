/**
 * `npm test` runs the TypeScript from a JavaScript mirror of the tree (scripts/ts-mirror.mjs,
 * scripts/ts-run.cjs): a module run that way must behave as it does under tsx — its URL is the .ts
 * file's, its imports of TypeScript and of other files load, its stack traces name the .ts lines —
 * and an entry point the mirror lacks still runs, through tsx.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { prepareMirror } from '../../scripts/ts-mirror.mjs';

const tsRun = fileURLToPath(new URL('../../scripts/ts-run.cjs', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/where-am-i.ts', import.meta.url));

function run(file: string): { status: number | null; stdout: string; stderr: string } {
  const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;
  return spawnSync(process.execPath, ['--require', tsRun, file], { env, encoding: 'utf8', timeout: 60_000 });
}

// Run by hand (through tsx), the mirror may be older than the fixtures.
before(() => prepareMirror());

test('a .ts file run from the mirror has its own URL, loads TypeScript and JSON beside it, and its stack names its .ts lines', () => {
  const out = run(fixture);
  assert.equal(out.status, 0, out.stderr);
  const seen = JSON.parse(out.stdout) as { url: string; stack: string; twice: number; data: unknown };
  assert.equal(seen.url, pathToFileURL(fixture).href);
  assert.equal(seen.twice, 42);
  assert.deepEqual(seen.data, { json: true });
  const frames = seen.stack.split('\n');
  assert.equal(frames[0], 'Error: thrown on line 12');
  assert.match(frames[1]!, /^ {4}at fail \(.*\/test\/runner\/fixtures\/where-am-i\.ts:12:9\)$/);
  assert.match(frames[2]!, /where-am-i\.ts:17:3\)?$/);
  assert.doesNotMatch(seen.stack, /typeplane-ts/);
});

test('a .ts entry point outside the mirror runs through tsx', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'typeplane-ts-run-')), 'outside.ts');
  writeFileSync(file, 'const n: number = 6;\nconsole.log(String(n * 7));\n');
  const out = run(file);
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stdout.trim(), '42');
});

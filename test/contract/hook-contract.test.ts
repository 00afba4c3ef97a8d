/**
 * `typeplane test --hook`: the contract suite invokes each handler of a hook with target inputs
 * generated from a type's schema. The example Python hook (a real child process on the provider
 * protocol) keeps the contract; a defineHook module that echoes a write-only value, judges by turns
 * and throws is failed for each, by name.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { PYTHON_HOOK, startPythonHook } from '../helpers/python-hook.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const TARGET = here('fixtures/hook-target-bucket.json');
const env = { PATH: process.env.PATH };

test('the example Python hook keeps the hook contract', async (t) => {
  const hook = await startPythonHook();
  t.after(() => hook.stop());
  const url = hook.url;
  const run = await runCli(
    [
      'test',
      '--hook',
      url,
      '--hook-schema',
      `${PYTHON_HOOK}require-tags.json`,
      '--schema',
      TARGET,
      '--runs',
      '8',
      '--seed',
      '7',
    ],
    { env },
  );
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /✓ preCreate Example::Shop::Bucket answers a HookEvent/);
  assert.match(run.stdout, /✓ preDelete Example::Shop::Bucket keeps write-only values out of its message/);
  assert.match(run.stdout, /12 passed, 0 failed/);
});

test('a hook that leaks a write-only value, judges by turns or throws fails the contract, each by name', async () => {
  const run = await runCli(
    ['test', '--hook', here('fixtures/leaky-hook.ts'), '--schema', TARGET, '--runs', '4', '-o', 'json'],
    { env },
  );
  assert.equal(run.code, 1, run.stdout + run.stderr);
  const report = JSON.parse(run.stdout) as {
    results: { name: string; passed: boolean; failures: string[] }[];
  };
  const failed = report.results.filter((r) => !r.passed).map((r) => r.name);
  assert.deepEqual(failed, [
    'preCreate Example::Shop::Bucket keeps write-only values out of its message',
    'preUpdate Example::Shop::Bucket judges an input the same way twice',
    'preDelete Example::Shop::Bucket answers a HookEvent',
  ]);
  const thrown = report.results.find(
    (r) => r.name === 'preDelete Example::Shop::Bucket answers a HookEvent',
  )!;
  assert.match(thrown.failures[0]!, /threw: not written yet/);
});

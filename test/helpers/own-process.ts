/**
 * A measuring script run in a process of its own (the test runner's bookkeeping — its async hooks,
 * its allocations — would be counted with the work otherwise), started as test/helpers/typescript.ts
 * says, outside the runner's context, its last line of output parsed as JSON.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TS_NODE } from './typescript.js';

export function lastLineOf<T>(script: URL, timeoutMs = 120_000): T {
  const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;
  const run = spawnSync(process.execPath, [...TS_NODE, fileURLToPath(script)], {
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as T;
}

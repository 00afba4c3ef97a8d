/**
 * No async context is left enabled once the work that needs one ends: while an AsyncLocalStorage is
 * enabled, Node's async hooks run for every promise of the process — every request's — and each
 * create and read pays for them. Watched in a process of its own (async-hooks-left.ts) through what
 * those hooks leave on each new promise.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

test('requests, their reviews and a stack deployment leave no async hooks enabled', () => {
  const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('async-hooks-left.ts', import.meta.url))],
    { env, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(run.status, 0, run.stderr);
  const seen = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, boolean>;
  assert.equal(seen.before, false, 'hooks enabled before the server started');
  assert.equal(seen.after, false, 'hooks still enabled after the requests and the deployment ended');
});

/**
 * No async context is left enabled once the work that needs one ends: while an AsyncLocalStorage is
 * enabled, Node's async hooks run for every promise of the process — every request's — and each
 * create and read pays for them. Watched in a process of its own (async-hooks-left.ts) through what
 * those hooks leave on each new promise.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastLineOf } from '../helpers/own-process.js';

test('requests, their reviews and a stack deployment leave no async hooks enabled', () => {
  const seen = lastLineOf<Record<string, boolean>>(new URL('async-hooks-left.ts', import.meta.url));
  assert.equal(seen.before, false, 'hooks enabled before the server started');
  assert.equal(seen.after, false, 'hooks still enabled after the requests and the deployment ended');
});

/**
 * A handler call's signal: aborted by whichever of the operation's deadline and the call's limit comes
 * first (and says which), or by the worker's own signal (a shutdown, a cancel), with its reason; once
 * the call is over, nothing of it fires.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { callSignal } from '../../src/engine/call-signal.js';

test('the deadline, when it comes first, aborts the call as a timeout and is named', async () => {
  const call = callSignal(new AbortController().signal, 20, 5_000);
  await sleep(60);
  assert.equal(call.signal.aborted, true);
  assert.equal((call.signal.reason as DOMException).name, 'TimeoutError');
  assert.equal(call.expired, 'deadline');
  call.done();
});

test("the call's limit, when it comes first, aborts the call and is named", async () => {
  const call = callSignal(new AbortController().signal, 5_000, 20);
  await sleep(60);
  assert.equal(call.signal.aborted, true);
  assert.equal(call.expired, 'callLimit');
  call.done();
});

test("the worker's signal aborts the call with its reason, and no limit is named", () => {
  const worker = new AbortController();
  const call = callSignal(worker.signal, 5_000, 5_000);
  assert.equal(call.signal.aborted, false);
  const reason = new Error('server shutting down');
  worker.abort(reason);
  assert.equal(call.signal.aborted, true);
  assert.equal(call.signal.reason, reason);
  assert.equal(call.expired, undefined);
  call.done();
  // One already aborted aborts the call at once.
  const already = callSignal(worker.signal, 5_000, 5_000);
  assert.equal(already.signal.aborted, true);
  already.done();
});

test('a call that is over is not aborted later, by its limits or by the worker', async () => {
  const worker = new AbortController();
  const call = callSignal(worker.signal, 20, 20);
  call.done();
  await sleep(60);
  worker.abort(new Error('later'));
  assert.equal(call.signal.aborted, false);
  assert.equal(call.expired, undefined);
});

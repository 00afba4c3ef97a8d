/**
 * What the server allocates per create and per read, as a count no machine's speed or load changes
 * (request-allocations.ts measures it in a process of its own, its client in a worker thread whose
 * heap is not counted), held under a ceiling: a change that adds a copy of the model, a closure or a
 * promise chain to every request shows here, where a timing benchmark would not notice it.
 *
 * The ceilings are the figures measured with ~6% of room: the create's since a pointer naming one
 * place is walked without a list of candidates per token and an identifier of one part is its value
 * (~33.7 KB; ~38.2 KB before, ~42.0 KB at 6941de4, before its checks that have nothing to ask the
 * store answered without a promise), the
 * reads' since a read looks its type up once, from memory, reads one column of the record, and answers
 * a recorded model that needs no stripping as its stored JSON text (read ~13.7 KB, was 15.5 KB; the
 * plain read ~13.3 KB; steady within 1% between runs), then ~1.2 KB more (read ~14.8 KB, plain ~14.4 KB)
 * since its SELECT waits for the end of the event loop's turn to run with the others asked for in it
 * (src/store/sqlite/read-batch.ts: a promise, its closures and a setImmediate), which cut a read's CPU
 * by about a quarter under load. Most of a read's bytes are Node's HTTP server's
 * own (the request and response objects, header parsing and writing) and fastify's; a create adds the
 * body's parsing, validation, the review, the group commit and the progress event. A create through an
 * in-process provider (the engine's asynchronous path) ~62.1 KB since pointers are walked so (67.0 KB
 * before; 74.1 KB before its handler's signal was one controller and one timer and its wait read
 * nothing, with AbortSignal.any of two AbortSignal.timeouts and two reads of the operation).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastLineOf } from '../helpers/own-process.js';

const CEILINGS = { create: 35_700, read: 15_600, plainRead: 15_300, providerCreate: 65_800 };

test('a create and a read allocate no more than their ceilings on the server', (t) => {
  const per = lastLineOf<{ create: number; read: number; plainRead: number; providerCreate: number }>(
    new URL('request-allocations.ts', import.meta.url),
    180_000,
  );
  t.diagnostic(
    `bytes allocated per create ${per.create.toFixed(0)}, per read ${per.read.toFixed(0)} (plain ${per.plainRead.toFixed(0)}), per create through an in-process provider ${per.providerCreate.toFixed(0)}`,
  );
  for (const kind of ['create', 'read', 'plainRead', 'providerCreate'] as const)
    assert.ok(
      per[kind] <= CEILINGS[kind],
      `a ${kind} allocates ${per[kind].toFixed(0)} bytes on the server (at most ${CEILINGS[kind]}): find what the change added to every ${kind}, or raise the ceiling saying why`,
    );
});

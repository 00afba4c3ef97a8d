/**
 * What the server allocates per create, per read and per recipe instance, as a count no machine's
 * speed or load changes (request-allocations.ts measures it in a process of its own, its client in a
 * worker thread whose heap is not counted), held under a ceiling: a change that adds a copy of the
 * model, a closure or a promise chain to every request shows here, where a timing benchmark would not
 * notice it.
 *
 * The ceilings are the figures measured with ~6% of room (steady within 1% between runs):
 * - create ~31.4 KB: 42.0 KB at 6941de4; 38.2 KB once its checks that have nothing to ask the store
 *   answered without a promise; 33.7 KB once a pointer naming one place was walked without a list of
 *   candidates per token and an identifier of one part was its value; 32.5 KB once a request's id
 *   and an operation's request token were each written as one string; 31.4 KB once its records were
 *   copied without a spread that adds members (src/members.ts: V8 takes a slow path for those).
 * - read ~14.3 KB, plain read ~13.9 KB: 15.5 KB before a read looked its type up once, from memory,
 *   read one column of the record and answered a recorded model that needs no stripping as its
 *   stored JSON text (13.7 and 13.3 KB); ~1.2 KB more since its SELECT waits for the end of the event
 *   loop's turn to run with the others asked for in it (src/store/sqlite/read-batch.ts: a promise,
 *   its closures and a setImmediate), which cut a read's CPU by about a quarter under load; ~0.5 KB
 *   less with the request id written as one string.
 * - a create through an in-process provider (the engine's asynchronous path) ~58.9 KB: 74.1 KB while
 *   its handler's signal was AbortSignal.any of two AbortSignal.timeouts and its wait read the
 *   operation twice; 67.0 KB with one controller, one timer and a wait that reads nothing; then the
 *   pointers, tokens and copies above.
 * - an instance made through a two-resource recipe (composed) ~116 KB: 166.6 KB at ed3c4dc, before
 *   the pointers and tokens above and each template output's secrecy worked out once per expression
 *   (142.5 KB); then its resources made with no client token (nothing of a composed create is written
 *   but the whole, so none is asked for again: 133 KB), and the copies above (129.5 KB); then its
 *   record kept in the clear but for its write-only values, its generated secrets derived, not
 *   stored.
 *   The recipe-specific share (binding the template, evaluating it, the record written) is what an
 *   instance costs beyond the three creates it decides: bench:recipes times it.
 * Measured again at c977e5d: create 30.1–30.5 KB, read 13.9 KB, recipe instance 110.7–112.5 KB
 * (three runs); the ceilings lowered to ~6% above them (create 33,300 → 32,400, read 15,100 →
 * 14,800, recipe instance 123,000 → 119,000). Then an instance's checks read without promises where
 * memory answers (whether a rule, policy or hook judges its types; whether those types changed) and
 * its template evaluated without a list of keys or an Fn::Sub text parsed per value: 107.2–108.1 →
 * 96.3–97.3 KB; its ceiling 119,000 → 103,000. Then its answer compared with what was asked without
 * copies (outcomeDifferences), and its lookups and expectations read in one statement each:
 * 93.1–94.1 KB; its ceiling 103,000 → 100,000.
 * Most of a read's bytes are Node's HTTP server's own (the request and response objects, header
 * parsing and writing) and fastify's; a create adds the body's parsing, validation, the review, the
 * group commit and the progress event.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastLineOf } from '../helpers/own-process.js';

const CEILINGS = {
  create: 32_400,
  read: 14_800,
  plainRead: 14_700,
  providerCreate: 62_500,
  recipeCreate: 100_000,
};

test('a create, a read and a recipe instance allocate no more than their ceilings on the server', (t) => {
  const per = lastLineOf<{
    create: number;
    read: number;
    plainRead: number;
    providerCreate: number;
    recipeCreate: number;
  }>(new URL('request-allocations.ts', import.meta.url), 180_000);
  t.diagnostic(
    `bytes allocated per create ${per.create.toFixed(0)}, per read ${per.read.toFixed(0)} (plain ${per.plainRead.toFixed(0)}), per create through an in-process provider ${per.providerCreate.toFixed(0)}, per recipe instance ${per.recipeCreate.toFixed(0)}`,
  );
  for (const kind of ['create', 'read', 'plainRead', 'providerCreate', 'recipeCreate'] as const)
    assert.ok(
      per[kind] <= CEILINGS[kind],
      `a ${kind} allocates ${per[kind].toFixed(0)} bytes on the server (at most ${CEILINGS[kind]}): find what the change added to every ${kind}, or raise the ceiling saying why`,
    );
});

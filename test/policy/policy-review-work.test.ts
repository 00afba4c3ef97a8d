/**
 * What the server's admission-policy review does per change, counted rather than timed (counts do
 * not depend on the machine): bench:policy's policy and typical others, reviewed by the server's
 * part over policies kept in a real SQLite store. A change's variables are converted only when an
 * expression reads them, once for all the policies, `params` never (converted when compiled); no
 * expression is planned or interpreted per change. A regression to converting every variable per
 * change, per policy, or to the interpreter for `split()`, fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { celCounters } from '../../src/cel/index.js';
import type { ReviewRequest } from '../../src/engine/index.js';
import {
  admissionPolicies,
  compilePolicy,
  notCompiledPolicy,
  Policies,
  type CompiledPolicy,
} from '../../src/policy/index.js';
import { compileType } from '../../src/registry/compile.js';
import { validateDocument } from '../../src/schema/validate.js';
import { openSqliteStore } from '../../src/store/index.js';
import { desiredState, POLICY, schema, TYPICAL_POLICIES } from '../../bench/policy-type.js';

const REVIEWS = 200;

async function reviewerWith(t: { after(fn: () => unknown): void }, documents: Record<string, unknown>[]) {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-review-work-'));
  const store = await openSqliteStore(join(dir, 'store.db'));
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const policies = new Policies<CompiledPolicy>(store, {
    compile: compilePolicy,
    notCompiled: notCompiledPolicy,
  });
  for (const document of documents) await policies.put(document, 'test');
  await policies.current();
  return admissionPolicies(policies);
}

const loaded = validateDocument(JSON.stringify(schema('Bench::Policy::Guarded', false)), {
  file: 'bench.json',
});
assert.ok(loaded.valid, JSON.stringify(loaded.diagnostics));
const compiled = compileType(loaded.types[0]!);

function change(i: number, extra: Partial<ReviewRequest> = {}): ReviewRequest {
  return {
    operation: 'CREATE',
    compiled,
    object: { ...desiredState(`w${i}`), Tags: [{ Key: 'costCenter', Value: 'c1' }] },
    caller: { id: 'tok-1', role: 'writer', description: 'deployer', canSee: () => true },
    ...extra,
  };
}

async function counted(run: () => Promise<void>): Promise<Record<keyof typeof celCounters, number>> {
  const before = { ...celCounters };
  await run();
  return {
    plans: celCounters.plans - before.plans,
    interpreted: celCounters.interpreted - before.interpreted,
    patternCompilations: celCounters.patternCompilations - before.patternCompilations,
    conversions: celCounters.conversions - before.conversions,
  };
}

test('bench:policy’s policy converts the desired state once a change and runs its split() directly', async (t) => {
  const part = await reviewerWith(t, [POLICY]);
  const work = await counted(async () => {
    for (let i = 0; i < REVIEWS; i++) assert.deepEqual(await part.review(change(i)), []);
  });
  assert.deepEqual(work, { plans: 0, interpreted: 0, patternCompilations: 0, conversions: REVIEWS });
});

test('an update to it converts the desired state only: the policy never reads the state before', async (t) => {
  const part = await reviewerWith(t, [POLICY]);
  const work = await counted(async () => {
    for (let i = 0; i < REVIEWS; i++) {
      const update = change(i, { operation: 'UPDATE', identifier: `w${i}` });
      assert.deepEqual(await part.review({ ...update, oldObject: update.object! }), []);
    }
  });
  assert.deepEqual(work, { plans: 0, interpreted: 0, patternCompilations: 0, conversions: REVIEWS });
});

test('five typical policies convert the desired state and the request once each for all of them', async (t) => {
  const part = await reviewerWith(t, [POLICY, ...Object.values(TYPICAL_POLICIES)]);
  const work = await counted(async () => {
    for (let i = 0; i < REVIEWS; i++) assert.deepEqual(await part.review(change(i)), []);
  });
  assert.deepEqual(work, { plans: 0, interpreted: 0, patternCompilations: 0, conversions: 2 * REVIEWS });
});

test('a change no policy matches converts nothing', async (t) => {
  const part = await reviewerWith(t, [TYPICAL_POLICIES['another type']!]);
  const work = await counted(async () => {
    for (let i = 0; i < REVIEWS; i++) assert.deepEqual(await part.review(change(i)), []);
  });
  assert.deepEqual(work, { plans: 0, interpreted: 0, patternCompilations: 0, conversions: 0 });
});

test('a change the policy refuses still gets its verdict with its messageExpression’s message', async (t) => {
  const part = await reviewerWith(t, [POLICY]);
  const refused = change(1);
  refused.object = { ...refused.object, Owner: 'ops@elsewhere.net' };
  assert.deepEqual(await part.review(refused), [
    {
      source: 'policy',
      name: 'bench-owner-domain',
      action: 'Deny',
      message: 'owner ops@elsewhere.net is not of an allowed domain',
    },
  ]);
  const noDomain = change(2);
  noDomain.object = { ...noDomain.object, Owner: 'ops' };
  const [failed] = await part.review(noDomain);
  assert.equal(failed?.reason, 'EvaluationError', 'split() gives one piece: [1] is out of range');
  assert.match(failed!.message, /could not be evaluated \(validation 0: .*index/i);
});

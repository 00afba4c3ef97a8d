/**
 * Benchmark (not a test): what the server's admission-policy review costs per change, in process —
 * the server's reviewer part (`admissionPolicies` over `Policies` on a real SQLite store) reviewing a
 * create of bench/policy.ts's type, one policy registered at a time: bench:policy's own (a
 * `split()` and params), typical others (a tag check with `exists`, string tests on `request`,
 * matchConditions), one bound to another type, then all of them at once. Timed in CPU time.
 *
 *   node --import tsx bench/policy-review.ts          (N=20000 reviews a round, ROUNDS=7)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReviewRequest } from '../src/engine/index.js';
import {
  admissionPolicies,
  compilePolicy,
  notCompiledPolicy,
  Policies,
  type CompiledPolicy,
} from '../src/policy/index.js';
import { compileType } from '../src/registry/compile.js';
import { validateDocument } from '../src/schema/validate.js';
import { openSqliteStore } from '../src/store/index.js';
import { desiredState, POLICY, schema, TYPICAL_POLICIES } from './policy-type.js';

const N = Number(process.env.N ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const TYPE = 'Bench::Policy::Guarded';

const loaded = validateDocument(JSON.stringify(schema(TYPE, false)), { file: 'bench.json' });
if (!loaded.valid || !loaded.types[0]) throw new Error(JSON.stringify(loaded.diagnostics));
const compiled = compileType(loaded.types[0]);

const dir = mkdtempSync(join(tmpdir(), 'typeplane-bench-review-'));
const store = await openSqliteStore(join(dir, 'store.db'));
const policies = new Policies<CompiledPolicy>(store, {
  compile: compilePolicy,
  notCompiled: notCompiledPolicy,
});
const part = admissionPolicies(policies);

const requests: ReviewRequest[] = Array.from({ length: N }, (_, i) => ({
  operation: 'CREATE',
  compiled,
  object: { ...desiredState(`w${i}`), Tags: [{ Key: 'costCenter', Value: 'c1' }] },
  caller: { id: 'tok-1', role: 'writer', description: 'deployer', canSee: () => true },
}));

/** µs of this process's CPU per review (not wall time: the machine is shared). */
async function measure(): Promise<number> {
  const started = process.cpuUsage();
  for (const request of requests) await part.review(request);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / N;
}

const cases: [string, Record<string, unknown>[]][] = [
  ['none', []],
  ['bench:policy (split, params)', [POLICY]],
  ...Object.entries(TYPICAL_POLICIES).map(([name, p]): [string, Record<string, unknown>[]] => [name, [p]]),
  ['all of the above', [POLICY, ...Object.values(TYPICAL_POLICIES)]],
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`µs of CPU per review, ${ROUNDS} rounds of ${N}:`);
for (const [name, documents] of cases) {
  for (const p of await policies.list()) await policies.delete(p.policy.name);
  for (const p of documents) await policies.put(p, 'bench');
  for (const request of requests.slice(0, 1000)) {
    const verdicts = await part.review(request);
    if (verdicts.length > 0) throw new Error(`${name}: ${JSON.stringify(verdicts)}`);
  }
  const rounds: number[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await measure());
  console.log(
    `  ${name.padEnd(34)} ${rounds.map((x) => x.toFixed(2)).join(' ')}  median ${median(rounds).toFixed(2)}`,
  );
}
store.close();
rmSync(dir, { recursive: true, force: true });

/**
 * Benchmark (not a test): what checking a type's validation rules costs per create, in process —
 * bench/policy.ts's type and its ten rules, `CompiledType.checkRules` on a fresh desired state each
 * time, against the schema's own validation (`validateInput`) of the same model. Steadier than
 * creates/s over HTTP on a shared machine, and timed in CPU time.
 *
 *   node --import tsx bench/rules-check.ts          (N=20000 checks a round, ROUNDS=7)
 */
import { compileType } from '../src/registry/compile.js';
import { validateDocument } from '../src/schema/validate.js';
import { desiredState, schema } from './policy-type.js';

const N = Number(process.env.N ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);

const loaded = validateDocument(JSON.stringify(schema('Bench::Policy::Ruled', true)), { file: 'bench.json' });
const type = loaded.types[0];
if (!loaded.valid || !type) throw new Error(JSON.stringify(loaded.diagnostics));
const compiled = compileType(type);
const check = compiled.checkRules;
if (!check) throw new Error('the type has no rules');

const models = Array.from({ length: N }, (_, i) => desiredState(`w${i}`));
// This process's CPU time, not wall time: on a loaded machine the wall clock also counts the time
// other processes had the core.
const measure = (fn: (model: Record<string, unknown>) => unknown): number => {
  const started = process.cpuUsage();
  for (const model of models) fn(model);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / N;
};
for (const model of models.slice(0, 2000)) {
  if (check(model).length > 0) throw new Error(`the rules refused ${JSON.stringify(model)}`);
}
const rules: number[] = [];
const schemaChecks: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  rules.push(measure((m) => check(m)));
  schemaChecks.push(measure((m) => compiled.validateInput(m)));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const show = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
console.log(`µs of CPU per check, ${ROUNDS} rounds of ${N}:`);
console.log(`  ten rules (checkRules):      ${show(rules)}  median ${median(rules).toFixed(2)}`);
console.log(
  `  schema (validateInput):      ${show(schemaChecks)}  median ${median(schemaChecks).toFixed(2)}`,
);

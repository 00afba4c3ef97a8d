/**
 * Benchmark (not a test): how well the state provider stands in for AWS's services. A server (in this
 * process, SQLite) registers all of the AWS corpus's schemas with `stateProvider.synthesize:
 * ['AWS::*']`, and one resource of each type is created through the engine from a minimal valid
 * model (of a few inputs the contract suite's generator makes from the schema, the one with the
 * fewest values; a type whose inputs take over 20 s to make counts as having none). Each created
 * model is checked:
 *
 * - every read-only property filled: a top-level one always, a nested one where the object holding
 *   it is there (as the contract suite's `read-only properties returned` counts);
 * - valid against the type's schema (the validator the engine checks a provider's models with);
 * - read back the same.
 *
 * The same inputs through the state provider without synthesis give the baseline, and through
 * synthesis without its final check against the schema (which leaves out the values the schema
 * refuses) how often the value writer alone is right. Prints the counts, the time synthesis takes per
 * create (warm: median, p99), and the types that miss, with what they miss.
 *
 *   npm run bench:synthesize -- [--seed 7] [--list 40]
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { createStateProvider, Synthesis, type Provider } from '../src/providers/index.js';
import { compileType } from '../src/registry/index.js';
import type { ResourceType } from '../src/schema/index.js';
import type { ProgressEvent } from '../src/engine/index.js';
import { startService } from '../src/service.js';
import { resolverOf, valuesAt, type Model } from '../src/model/index.js';
import { TypeplaneError } from '../src/errors.js';
import { fmt, numberArg, quantile, removeAtExit } from './harness.js';

const SEED = numberArg('seed', 7);
const LIST = numberArg('list', 40);
const INPUT_TIMEOUT_MS = 20_000;
const corpus = fileURLToPath(new URL('../../shared/corpus/aws-resource-schemas/', import.meta.url));
if (!existsSync(corpus)) {
  console.error(`corpus not found at ${corpus}`);
  process.exit(1);
}

/**
 * The read-only pointers a model should have: all but those also write-only (never returned) and
 * those naming no declared property (no value could be valid).
 */
function returnable(type: ResourceType): string[] {
  const resolver = resolverOf(type);
  return type.readOnlyProperties.filter((p) => !type.writeOnlyProperties.includes(p) && resolver.resolves(p));
}

/** The returnable read-only pointers a model leaves out (nested ones only where their object is there). */
function missingReadOnly(type: ResourceType, model: Model): string[] {
  return returnable(type).filter((pointer) => {
    const cut = pointer.lastIndexOf('/');
    const name = pointer
      .slice(cut + 1)
      .replace(/~1/g, '/')
      .replace(/~0/g, '~');
    if (name === '*') return false;
    const parent = pointer.slice(0, cut);
    if (parent === '/properties') return model[name] === undefined;
    return valuesAt(model, parent).some(
      ({ value }) => typeof value === 'object' && value !== null && !Array.isArray(value) && !(name in value),
    );
  });
}

/** Minimal inputs, made on a worker thread that is replaced when one takes longer than INPUT_TIMEOUT_MS. */
class Inputs {
  private worker: Worker | undefined;

  async of(typeName: string): Promise<Model[]> {
    // A worker does not inherit tsx's loader hooks (Node 20): it registers them before its module.
    this.worker ??= new Worker(
      `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register();
        return import(${JSON.stringify(new URL('./synthesize-inputs.ts', import.meta.url).href)}); });`,
      { eval: true },
    );
    const worker = this.worker;
    const file = join(corpus, `${typeName.replaceAll('::', '_')}.json`);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        void worker.terminate();
        this.worker = undefined;
        resolve([]);
      }, INPUT_TIMEOUT_MS);
      worker.once('message', ({ inputs }: { inputs: Model[] }) => {
        clearTimeout(timer);
        resolve(inputs);
      });
      worker.postMessage({ file, seed: SEED });
    });
  }

  close(): void {
    void this.worker?.terminate();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'typeplane-bench-synthesize-'));
removeAtExit(dataDir);
const started = performance.now();
const service = await startService({
  dataDir,
  port: 0,
  logger: pino({ level: 'warn' }),
  types: [corpus],
  stateProvider: { synthesize: ['AWS::*'] },
});
console.log(`registered the corpus in ${fmt((performance.now() - started) / 1000, 1)} s`);

const synthesis = new Synthesis({ synthesize: ['AWS::*'] }, {}, (t, m) => compileType(t).validateOutput(m));
// The same without the final check against the schema: how often the writer alone gets it right.
const unchecked = new Synthesis({ synthesize: ['AWS::*'] });
let plain: Provider | undefined;
const inputs = new Inputs();
const typeNames = (await service.store.listTypeStamps()).map((t) => t.typeName).sort();
const counts = {
  types: 0,
  withReadOnly: 0,
  noInput: 0,
  created: 0,
  filled: 0,
  valid: 0,
  filledAndValid: 0,
  readBackSame: 0,
  baselineFilled: 0,
  readOnly: 0,
  readOnlyFilled: 0,
  unreturnableTypes: 0,
  unreturnable: 0,
  writerValid: 0,
};
const writerMisses: string[] = [];
const misses: string[] = [];

/** A create through the engine; optional properties naming resources that do not exist are left out. */
async function createLeavingOutReferences(typeName: string, input: Model): Promise<ProgressEvent> {
  const required = new Set(((await service.registry.get(typeName)).type.schema.required ?? []) as string[]);
  for (let attempt = 0; ; attempt++) {
    try {
      return await service.engine.create(typeName, structuredClone(input));
    } catch (e) {
      const references =
        e instanceof TypeplaneError && e.message.startsWith('referenced resources do not exist');
      const names = references ? e.details.map((d) => (d.pointer ?? '').split('/')[2] ?? '') : [];
      if (attempt > 3 || names.length === 0 || names.some((n) => required.has(n) || !(n in input))) throw e;
      for (const name of names) delete input[name];
    }
  }
}
const failures: string[] = [];
const synthesisMs: number[] = [];
for (const [i, typeName] of typeNames.entries()) {
  if (i % 100 === 0) process.stderr.write(`${i} of ${typeNames.length}\n`);
  const compiled = await service.registry.get(typeName);
  const type = compiled.type;
  plain ??= createStateProvider(service.store, async () => type);
  counts.types++;
  if (type.readOnlyProperties.length > 0) counts.withReadOnly++;
  const candidates = await inputs.of(typeName);
  if (candidates.length === 0) {
    counts.noInput++;
    continue;
  }
  const unreturnable = type.readOnlyProperties.length - returnable(type).length;
  if (unreturnable > 0) {
    counts.unreturnableTypes++;
    counts.unreturnable += unreturnable;
  }
  // The first input the engine accepts; a reference to a resource that does not exist is left out.
  let event: ProgressEvent | undefined;
  let input = candidates[0]!;
  let refusal = '';
  for (const candidate of candidates) {
    input = structuredClone(candidate);
    try {
      event = await createLeavingOutReferences(typeName, input);
      break;
    } catch (e) {
      if (!(e instanceof TypeplaneError)) throw e;
      refusal ||= e.message.slice(0, 160);
    }
  }
  if (!event) {
    failures.push(`${typeName}: refused: ${refusal}`);
    continue;
  }
  const baseline = plain.recordBacked!.create(type, structuredClone(input), `baseline ${typeName}`);
  if (missingReadOnly(type, baseline).length === 0) counts.baselineFilled++;
  // Timed warm: the type's first create also compiles its output validator (the engine's, shared).
  synthesis.create(type, structuredClone(input), `warm-up ${typeName}`);
  const t = performance.now();
  synthesis.create(type, structuredClone(input), `timing ${typeName}`);
  synthesisMs.push(performance.now() - t);
  const written = unchecked.create(type, structuredClone(input), `unchecked ${typeName}`);
  const writerProblems = compiled.validateOutput(written);
  if (writerProblems.length === 0) counts.writerValid++;
  else
    writerMisses.push(
      `${typeName}: ${writerProblems
        .map((p) => `${p.pointer} ${p.message}`)
        .join('; ')
        .slice(0, 200)}`,
    );
  if (event.operationStatus !== 'SUCCESS' || event.identifier === undefined) {
    failures.push(
      `${typeName}: ${event.operationStatus} ${event.errorCode ?? ''} ${event.statusMessage?.slice(0, 160) ?? ''}`,
    );
    continue;
  }
  counts.created++;
  const read = await service.engine.read(typeName, event.identifier);
  const model = read.properties;
  if (JSON.stringify(model) === JSON.stringify(event.resourceModel)) counts.readBackSame++;
  const missing = missingReadOnly(type, model);
  const problems = compiled.validateOutput(structuredClone(model));
  counts.readOnly += returnable(type).length;
  counts.readOnlyFilled += returnable(type).length - missing.length;
  if (missing.length === 0) counts.filled++;
  if (problems.length === 0) counts.valid++;
  if (missing.length === 0 && problems.length === 0) counts.filledAndValid++;
  if (missing.length > 0 || problems.length > 0)
    misses.push(
      `${typeName}: ${missing.length > 0 ? `missing ${missing.join(', ')}` : ''}${problems.length > 0 ? ` invalid ${problems.map((p) => `${p.pointer} ${p.message}`).join('; ')}` : ''}`,
    );
}
await service.close();
inputs.close();

const pct = (n: number, of: number) => `${fmt((100 * n) / Math.max(1, of), 1)} %`;
const sorted = [...synthesisMs].sort((a, b) => a - b);
console.log(`
types                                  ${counts.types} (${counts.withReadOnly} with read-only properties)
no minimal input generated             ${counts.noInput}
created                                ${counts.created}
every read-only property filled        ${counts.filled} (${pct(counts.filled, counts.created)} of created)
valid against the schema               ${counts.valid} (${pct(counts.valid, counts.created)})
both                                   ${counts.filledAndValid} (${pct(counts.filledAndValid, counts.created)})
valid before the final check           ${counts.writerValid} of ${counts.created} (the check leaves out what the schema refuses)
read back the same                     ${counts.readBackSame}
read-only properties filled            ${counts.readOnlyFilled} of ${counts.readOnly} (${pct(counts.readOnlyFilled, counts.readOnly)})
not counted: read-only pointers that are write-only too or name no property: ${counts.unreturnable}, in ${counts.unreturnableTypes} types
baseline (no synthesis): all filled    ${counts.baselineFilled}
synthesis per create (warm)            median ${fmt(quantile(sorted, 0.5), 3)} ms, p99 ${fmt(quantile(sorted, 0.99), 2)} ms, max ${fmt(sorted.at(-1) ?? 0, 1)} ms`);
if (failures.length > 0)
  console.log(`\ncreates that failed (${failures.length}):\n  ${failures.slice(0, LIST).join('\n  ')}`);
if (writerMisses.length > 0)
  console.log(
    `\nrefused before the final check (${writerMisses.length}):\n  ${writerMisses.slice(0, LIST).join('\n  ')}`,
  );
if (misses.length > 0)
  console.log(`\ntypes with a miss (${misses.length}):\n  ${misses.slice(0, LIST).join('\n  ')}`);

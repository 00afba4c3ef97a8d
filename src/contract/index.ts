/**
 * @module The contract test suite (`typeplane test`): proves that a provider keeps the handler
 * contract, against the provider itself, with inputs generated from the schema or read from files.
 *
 * @example
 * const type = await readSchemaType('widget.json');
 * const report = await runContractSuite({ type, provider, seed: 42 });
 * process.stdout.write(textReport(report));
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Model } from '../model/index.js';
import { readOnlyPresent } from '../model/index.js';
import { compileType } from '../registry/compile.js';
import { validateDocument, type ResourceType } from '../schema/index.js';
import type { InputSet } from './runner.js';

export {
  runContractSuite,
  DEFAULT_RUNS,
  DEFAULT_MAX_SHRINKS,
  type SuiteOptions,
  type SuiteReport,
  type TestResult,
  type InputSet,
} from './runner.js';
export { CONTRACT_TESTS, TEST_NAMES, type Call, type Failure, type ContractTest } from './suite.js';
export {
  inputGenerator,
  sampleInputs,
  type InputGenerator,
  type InputPair,
  type InvalidInput,
} from './generate.js';
export { textReport, textHeader, textResult, textSummary, jsonReport, junitReport } from './report.js';
export { createApiProvider, type ApiCall, type ApiProviderOptions } from './api-provider.js';
export { apiType } from './api-type.js';

export class ContractSetupError extends Error {
  override readonly name = 'ContractSetupError';
}

/**
 * The resource type a schema file defines. A document defining several types (a manifest) needs
 * `typeName` to pick one.
 */
export async function readSchemaType(file: string, typeName?: string): Promise<ResourceType> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw new ContractSetupError(
      `cannot read the schema ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
    );
  }
  const result = validateDocument(bytes, { file });
  if (!result.valid) {
    const errors = result.diagnostics
      .filter((d) => d.severity === 'error')
      .slice(0, 5)
      .map((d) => `  ${d.file ?? file}:${d.line}:${d.column} ${d.rule} ${d.message}`);
    throw new ContractSetupError(
      `the schema ${file} is not valid (typeplane validate shows why):\n${errors.join('\n')}`,
    );
  }
  const types = result.types;
  if (typeName !== undefined) {
    const found = types.find((t) => t.typeName === typeName);
    if (!found)
      throw new ContractSetupError(
        `${file} does not define ${typeName}; it defines ${types.map((t) => t.typeName).join(', ')}`,
      );
    return found;
  }
  if (types.length !== 1)
    throw new ContractSetupError(
      `${file} defines ${types.length} types (${types.map((t) => t.typeName).join(', ')}); pick one with --type`,
    );
  return types[0]!;
}

const INPUT_FILE = /^inputs_(\d+)_(create|update|invalid)\.json$/;

/**
 * The input sets of a folder laid out as provider authors already do for `cfn test`:
 * `inputs_1_create.json`, `inputs_1_update.json`, `inputs_1_invalid.json`, `inputs_2_create.json`, …
 * Create and update inputs must be valid for the schema and its validation rules (the engine would
 * refuse them otherwise).
 */
export async function readInputs(dir: string, type: ResourceType): Promise<InputSet[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    throw new ContractSetupError(
      `cannot read the inputs folder ${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
    );
  }
  const sets = new Map<number, Partial<Record<'create' | 'update' | 'invalid', Model>>>();
  for (const name of names.sort()) {
    const match = INPUT_FILE.exec(name);
    if (!match) continue;
    const file = join(dir, name);
    let value: unknown;
    try {
      value = JSON.parse(await readFile(file, 'utf8'));
    } catch (e) {
      throw new ContractSetupError(`${file} is not valid JSON: ${(e as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new ContractSetupError(`${file} must hold a JSON object: a model of ${type.typeName}`);
    const n = Number(match[1]);
    const set = sets.get(n) ?? {};
    set[match[2] as 'create' | 'update' | 'invalid'] = value as Model;
    sets.set(n, set);
  }
  const compiled = compileType(type);
  const out: InputSet[] = [];
  for (const [n, set] of [...sets].sort(([a], [b]) => a - b)) {
    const name = `inputs_${n}`;
    if (!set.create)
      throw new ContractSetupError(`${join(dir, `${name}_update.json`)} has no ${name}_create.json`);
    for (const kind of ['create', 'update'] as const) {
      const model = set[kind];
      if (!model) continue;
      const where = join(dir, `${name}_${kind}.json`);
      const desired = JSON.parse(JSON.stringify(model)) as Model;
      const problems = compiled.validateInput(desired);
      if (problems.length > 0)
        throw new ContractSetupError(
          `${where} does not match the schema: ${problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`,
        );
      // An update is checked against its create input, as the engine checks it against the resource.
      const before = kind === 'update' ? (JSON.parse(JSON.stringify(set.create)) as Model) : undefined;
      if (before) compiled.validateInput(before);
      const verdicts = compiled.checkRules?.(desired, before) ?? [];
      if (verdicts.length > 0)
        throw new ContractSetupError(
          `${where} breaks the schema's validation rules: ${verdicts.map((v) => `rule ${v.name}${v.pointer ? ` at ${v.pointer}` : ''}: ${v.message}`).join('; ')}`,
        );
      const readOnly = kind === 'create' ? readOnlyPresent(type, model) : [];
      if (readOnly.length > 0)
        throw new ContractSetupError(
          `${where} sets read-only properties (${readOnly.join(', ')}); the provider sets them`,
        );
    }
    out.push({
      name,
      create: set.create,
      ...(set.update ? { update: set.update } : {}),
      ...(set.invalid ? { invalid: set.invalid } : {}),
    });
  }
  if (out.length === 0)
    throw new ContractSetupError(
      `${dir} holds no inputs_N_create.json (the layout is inputs_1_create.json, inputs_1_update.json, inputs_1_invalid.json)`,
    );
  return out;
}

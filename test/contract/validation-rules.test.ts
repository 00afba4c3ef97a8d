/**
 * The contract suite and a type's validation rules (CEL): generated inputs satisfy the rules (updates
 * the transition rules too), generated invalid inputs break one rule and nothing else, and through a
 * real server (`typeplane test --api`, on each store) those are refused with InvalidRequest naming
 * the rule and change nothing; a provider alone never sees them, and the suite says so. Rules no
 * generated input satisfies are reported, naming the rule.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { Client } from '../../src/cli/client.js';
import {
  apiType,
  createApiProvider,
  inputGenerator,
  readInputs,
  readSchemaType,
  runContractSuite,
  type InvalidInput,
  type SuiteOptions,
} from '../../src/contract/index.js';
import { compileType } from '../../src/registry/compile.js';
import type { ResourceType } from '../../src/schema/index.js';
import { exits, runCli } from '../helpers/cli.js';
import { eachStoreService, serviceOn } from '../helpers/each-store.js';
import { explain, failedTests, root, stateProvider } from './helpers.js';

const SCALER = join(root, 'test/contract/state-scaler.json');
const INVALID = 'invalid inputs refused by the schema';

/** The suite run against the state provider on its own (no engine in between). */
async function onState(type: ResourceType, options: Omit<SuiteOptions, 'type' | 'provider'>) {
  const state = await stateProvider(type);
  try {
    return await runContractSuite({ type, provider: state.provider, ...options });
  } finally {
    await state.close();
  }
}

/** The rules' verdicts on an input as the engine sees it (defaults applied). */
function verdicts(type: ResourceType, desired: unknown, before?: unknown) {
  const compiled = compileType(type);
  const model = structuredClone(desired) as Record<string, unknown>;
  assert.deepEqual(compiled.validateInput(model), [], `schema-valid: ${JSON.stringify(desired)}`);
  const old = before === undefined ? undefined : (structuredClone(before) as Record<string, unknown>);
  if (old) compiled.validateInput(old);
  return compiled.checkRules!(model, old);
}

test('generated create and update inputs satisfy the rules, transition rules against the create input', async () => {
  const type = await readSchemaType(SCALER);
  const generator = inputGenerator(type);
  assert.equal(generator.problem, undefined);
  const creates = fc.sample(generator.create, { seed: 11, numRuns: 100 });
  for (const input of creates) assert.deepEqual(verdicts(type, input), [], JSON.stringify(input));
  // Without the rules about half would fail the root rule (both replica counts drawn from 0..100).
  assert.ok(creates.filter((m) => m.MinReplicas !== undefined && m.MaxReplicas !== undefined).length > 40);
  const pairs = fc.sample(generator.pair, { seed: 11, numRuns: 100 });
  for (const { create, update } of pairs)
    assert.deepEqual(
      verdicts(type, update, create),
      [],
      `${JSON.stringify(create)} -> ${JSON.stringify(update)}`,
    );
  assert.ok(
    pairs.some((p) => (p.update.Size as number) > (p.create.Size as number)),
    'updates still change Size (upwards)',
  );
});

test('generated invalid inputs are schema-valid and break the rules they name: on creates, and on updates the transition rule too', async () => {
  const type = await readSchemaType(SCALER);
  const generator = inputGenerator(type);
  assert.notEqual(typeof generator.violation, 'string', String(generator.violation));
  const found = fc.sample(generator.violation as fc.Arbitrary<InvalidInput>, { seed: 5, numRuns: 120 });
  const broken = new Set<string>();
  for (const input of found) {
    const names = verdicts(type, input.desired, input.before).map((v) => v.name);
    assert.ok(names.length > 0, JSON.stringify(input));
    assert.deepEqual([...new Set(names)].sort(), [...input.rules!].sort());
    if (input.before) {
      assert.equal(input.desired.Name, input.before.Name, 'an update keeps the identifier');
      assert.deepEqual(verdicts(type, input.before), [], 'the state before is valid');
    }
    for (const name of names) broken.add(`${input.before ? 'update' : 'create'} ${name}`);
  }
  for (const expected of [
    'create /x-typeplane-validations/0',
    'create /definitions/Window/x-typeplane-validations/0',
    'update /x-typeplane-validations/0',
    'update /properties/Size/x-typeplane-validations/0',
  ])
    assert.ok(broken.has(expected), `${expected} in ${[...broken].join(', ')}`);
});

test('rules no generated input satisfies are reported, naming the rule, and inputs are asked for', async () => {
  const schema = JSON.parse(readFileSync(SCALER, 'utf8')) as Record<string, any>;
  schema.properties.Name['x-typeplane-validations'] = [
    { rule: "self.startsWith('zz-prod-')", message: 'a production name' },
  ];
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-rules-'));
  const file = join(dir, 'scaler.json');
  writeFileSync(file, JSON.stringify(schema));
  const type = await readSchemaType(file);
  const generator = inputGenerator(type);
  assert.match(
    generator.problem ?? '',
    /none of 200 generated create inputs satisfies the schema \(e\.g\. rule \/properties\/Name\/x-typeplane-validations\/0 at \/Name: a production name\);.*give inputs with --inputs$/,
  );
  // The suite then runs no test on generated inputs: each says why.
  const report = await onState(type, { seed: 1, only: ['create→read'] });
  assert.equal(report.results[0]!.status, 'error');
  assert.match(report.results[0]!.reason ?? '', /a production name/);
});

test('input files: a create or update input that breaks a rule is a setup error naming it; an invalid one that breaks only a rule counts as invalid', async () => {
  const type = await readSchemaType(SCALER);
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-rules-inputs-'));
  const write = (name: string, value: unknown) => writeFileSync(join(dir, name), JSON.stringify(value));
  write('inputs_1_create.json', { Name: 'a', Size: 5 });
  write('inputs_1_update.json', { Name: 'a', Size: 4 });
  await assert.rejects(
    readInputs(dir, type),
    /inputs_1_update\.json breaks the schema's validation rules: rule \/properties\/Size\/x-typeplane-validations\/0 at \/Size: Size may grow but never shrink: 5 -> 4/,
  );
  write('inputs_1_update.json', { Name: 'a', Size: 6 });
  write('inputs_1_invalid.json', { Name: 'b', Size: 5, MinReplicas: 3, MaxReplicas: 2 });
  const inputs = await readInputs(dir, type);
  const report = await onState(type, { inputs, only: [INVALID] });
  assert.equal(report.results[0]!.status, 'pass', explain(report));
});

test('a provider on its own is not handed rule violations (the engine refuses them): the test says to use --api', async () => {
  const type = await readSchemaType(SCALER);
  const report = await onState(type, { seed: 3, only: [INVALID] });
  assert.equal(report.results[0]!.status, 'skip');
  assert.match(report.results[0]!.reason ?? '', /with --api from the validation rules of the schema/);
});

test('through something that does not check the rules, the suite fails: a violation was not refused', async () => {
  const type = await readSchemaType(SCALER);
  // The state provider called directly, as if it were a server's API: nothing checks the rules.
  const report = await onState(type, { seed: 3, runs: 3, only: [INVALID], throughApi: true, maxShrinks: 2 });
  assert.deepEqual(failedTests(report), [INVALID]);
  assert.match(
    report.results[0]!.failures[0]!.message,
    /should fail with InvalidRequest, but answered SUCCESS/,
  );
  assert.deepEqual(report.cleanup.leftovers, [], 'what it made was deleted');
});

eachStoreService(
  'typeplane test --api: a server refuses every generated rule violation with InvalidRequest naming the rule, and the rest of the suite passes on rule-abiding inputs',
  async (s, _t, kind) => {
    const registered = await s.call('POST', '/v1/types', readFileSync(SCALER, 'utf8'), {
      'content-type': 'application/json',
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const client = new Client(s.url, s.token);
    const call = (method: string, path: string, body?: unknown) => client.call(method, path, body);
    const { type } = await apiType(call, 'Test::State::Scaler', s.url);
    const report = await runContractSuite({
      type,
      provider: createApiProvider({ endpoint: s.url, type, call }),
      seed: 8,
      runs: 6,
      throughApi: true,
      only: [INVALID, 'create→read', 'update→read'],
    });
    assert.deepEqual(failedTests(report), [], explain(report));
    const invalid = report.results.find((r) => r.name === INVALID)!;
    assert.equal(invalid.status, 'pass');
    assert.equal(invalid.runs, 6);
    assert.deepEqual(report.cleanup.leftovers, []);
    const left = await s.call('GET', '/v1/resources/Test::State::Scaler');
    assert.deepEqual(left.body.resourceDescriptions, [], 'nothing left behind');

    // The CLI sends them too, with --api only: once (the server's store is the API's concern, proven
    // on each above), a child process costs more than the rest of the test.
    if (kind !== 'sqlite') return;
    const cli = await runCli(
      [
        'test',
        '--api',
        s.url,
        '--type',
        'Test::State::Scaler',
        '--runs',
        '3',
        '--seed',
        '4',
        '--only',
        INVALID,
      ],
      { env: { PATH: process.env.PATH, TYPEPLANE_TOKEN: s.token, NO_COLOR: '1' }, timeoutMs: 60_000 },
    );
    exits(cli, 0);
    assert.match(cli.stdout, /^ {2}PASS {2}invalid inputs refused by the schema/m);
  },
);

test('every rule gets an input that breaks it, one only its own literal breaks included; a rule none breaks is said in the test, not passed over', async (t) => {
  const schema = JSON.parse(readFileSync(SCALER, 'utf8')) as Record<string, any>;
  // Labels' items are at most 16 characters long: this rule holds of every valid input.
  schema.properties.Labels.items['x-typeplane-validations'].push({ rule: 'self.size() <= 16' });
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-rules-unbroken-'));
  const file = join(dir, 'scaler.json');
  writeFileSync(file, JSON.stringify(schema));
  const type = await readSchemaType(file);
  const generator = inputGenerator(type);
  const examples = generator.violationExamples ?? [];
  const broken = new Set(
    examples.flatMap((e) => e.rules!.map((r) => `${e.before ? 'update' : 'create'} ${r}`)),
  );
  // Each rule, on creates and on updates; `self != 'default'`, which no random string breaks, by its literal.
  assert.deepEqual([...broken].sort(), [
    'create /definitions/Window/x-typeplane-validations/0',
    'create /properties/Labels/items/x-typeplane-validations/0',
    'create /x-typeplane-validations/0',
    'update /definitions/Window/x-typeplane-validations/0',
    'update /properties/Size/x-typeplane-validations/0',
    'update /x-typeplane-validations/0',
  ]);
  for (const e of examples)
    assert.deepEqual(
      verdicts(type, e.desired, e.before)
        .map((v) => v.name)
        .sort(),
      [...new Set(e.rules)].sort(),
    );
  assert.deepEqual(generator.unbrokenRules, [
    'rule /properties/Labels/items/x-typeplane-validations/1 (self.size() <= 16): no valid input with the values at its place changed (to ones near them or to its literals) breaks it, among 60 inputs changed one property at a time and 40 changed at its place',
  ]);

  // Through a real server, each example is sent (before random ones) and refused; the test says
  // which rule it could not test.
  const s = await serviceOn(t, 'sqlite');
  assert.equal((await s.call('POST', '/v1/types', schema)).status, 201);
  const client = new Client(s.url, s.token);
  const call = (method: string, path: string, body?: unknown) => client.call(method, path, body);
  const { type: served } = await apiType(call, 'Test::State::Scaler', s.url);
  const report = await runContractSuite({
    type: served,
    provider: createApiProvider({ endpoint: s.url, type: served, call }),
    seed: 8,
    runs: 2,
    throughApi: true,
    only: [INVALID],
  });
  const invalid = report.results[0]!;
  assert.equal(invalid.status, 'pass', explain(report));
  assert.equal(invalid.runs, examples.length, 'every example ran, past --runs 2');
  assert.ok(
    invalid.notes.some((n) =>
      n.startsWith('not tested: rule /properties/Labels/items/x-typeplane-validations/1 (self.size() <= 16)'),
    ),
    invalid.notes.join('\n'),
  );
});

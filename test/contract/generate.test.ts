import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { inputGenerator, readSchemaType, sampleInputs } from '../../src/contract/index.js';
import { SchemaArbitraries, toJsRegExp } from '../../src/contract/generate.js';
import { compileType } from '../../src/registry/compile.js';
import { compilePattern } from '../../src/schema/regex.js';
import { validateDocument } from '../../src/schema/index.js';
import { join } from 'node:path';
import { root, widgetType } from './helpers.js';

test('the same seed gives the same inputs; another seed others', async () => {
  const type = await widgetType();
  const a = sampleInputs(type, 1234, 10);
  const b = sampleInputs(type, 1234, 10);
  const c = sampleInputs(type, 4321, 10);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test('generated create inputs are valid, leave read-only properties out and always name the identifier', async () => {
  for (const schema of [
    'test/fixtures/broken-providers/widget.json',
    'test/contract/state-gadget.json',
    'examples/typeplane-postgresql-database.json',
    'examples/queues.yaml',
  ]) {
    const type = await readSchemaType(join(root, schema));
    const compiled = compileType(type);
    const generator = inputGenerator(type);
    assert.equal(generator.problem, undefined, schema);
    for (const input of fc.sample(generator.create, { seed: 7, numRuns: 100 })) {
      assert.deepEqual(
        compiled.validateInput(structuredClone(input)),
        [],
        `${schema}: ${JSON.stringify(input)}`,
      );
      for (const pointer of type.readOnlyProperties) {
        const name = pointer.split('/')[2]!;
        assert.equal(name in input, false, `${schema}: read-only ${name} in ${JSON.stringify(input)}`);
      }
      for (const pointer of type.primaryIdentifier) {
        if (type.readOnlyProperties.includes(pointer)) continue;
        assert.ok(pointer.split('/')[2]! in input, `${schema}: no identifier in ${JSON.stringify(input)}`);
      }
    }
  }
});

test('the inputs cover the keywords: enums, patterns, formats, bounds, nested objects, arrays, maps', async () => {
  const type = await widgetType();
  const inputs = sampleInputs(type, 99, 300) as Record<string, any>[];
  const seen = (f: (m: Record<string, any>) => boolean) => inputs.some(f);
  assert.ok(
    ['eu', 'us', 'ap'].every((r) => seen((m) => m.Region === r)),
    'every enum value',
  );
  assert.ok(
    inputs.every((m) => /^[a-z][a-z0-9-]{0,19}$/.test(m.Name)),
    'pattern',
  );
  assert.ok(
    seen((m) => typeof m.Owner === 'string' && m.Owner.includes('@')),
    'email format',
  );
  assert.ok(
    inputs.every(
      (m) => m.Count === undefined || (Number.isInteger(m.Count) && m.Count >= 1 && m.Count <= 100),
    ),
  );
  assert.ok(
    inputs.every((m) => m.Ratio === undefined || (m.Ratio > 0 && m.Ratio <= 1)),
    'exclusiveMinimum',
  );
  assert.ok(
    seen((m) => m.Settings?.Window?.Start !== undefined),
    'nested objects, date-time',
  );
  assert.ok(
    seen((m) => Array.isArray(m.Tags) && m.Tags.length > 1),
    'arrays of objects',
  );
  assert.ok(
    inputs.every((m) => m.Tags === undefined || m.Tags.length <= 4),
    'maxItems',
  );
  assert.ok(
    seen((m) => m.Labels && Object.keys(m.Labels).length > 0),
    'maps',
  );
  assert.ok(
    inputs.every((m) => Object.keys(m.Labels ?? {}).every((k) => /^[a-z]{1,8}$/.test(k))),
    'map keys match',
  );
  assert.ok(
    seen((m) => typeof m.Secret === 'string'),
    'write-only properties are inputs too',
  );
});

test('an update input keeps the create-only values and the identifier of its create input', async () => {
  const type = await widgetType();
  const pairs = fc.sample(inputGenerator(type).pair, { seed: 5, numRuns: 100 });
  for (const { create, update } of pairs) {
    assert.equal(update.Name, create.Name);
    assert.equal(update.Region, create.Region);
  }
  assert.ok(
    pairs.some((p) => p.update.Size !== p.create.Size || p.update.Count !== p.create.Count),
    'updates change something',
  );
});

test('RE2 patterns: translated where only the spelling differs, checked with RE2 always', () => {
  const g = new SchemaArbitraries({}, []);
  const cases = [
    '(?i)^sn-[0-9a-f]{6}$',
    '\\Aab\\z',
    '^[[:alpha:]]{2,5}$',
    '^\\pL\\pN$',
    '^\\p{Greek}{3}$',
    '^ab(?i:cd)ef$',
    '^\\Qa.b\\E[0-9]$',
    '(?s)^a.b$',
  ];
  for (const pattern of cases) {
    const built = g.patternStrings(pattern, 0, undefined, '/X');
    assert.ok(built.arb, `${pattern}: ${built.problem}`);
    const matches = compilePattern(pattern)!;
    for (const s of fc.sample(built.arb as fc.Arbitrary<string>, { seed: 3, numRuns: 30 }))
      assert.ok(matches(s), `${pattern} ≠ ${s}`);
  }
  assert.equal(String(toJsRegExp('(?i)^a\\z')), '/^a$/u');
});

test('a pattern no generator can satisfy is reported, not looped on', async () => {
  const text = JSON.stringify({
    typeName: 'Test::Contract::Odd',
    description: 'A pattern with a flag in the middle, which JavaScript cannot read.',
    properties: {
      Name: { type: 'string', pattern: '^x(?U)[0-9]{12}$' },
      Note: { type: 'string', pattern: '^y(?U)[0-9]{12}$' },
    },
    required: ['Name'],
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
  });
  const [type] = validateDocument(text, { file: 'odd.json' }).types;
  const generator = inputGenerator(type!);
  assert.match(
    generator.problem ?? '',
    /cannot generate strings matching the pattern "\^x\(\?U\)\[0-9\]\{12\}\$".*--inputs/,
  );
  const optional = JSON.parse(text);
  optional.properties.Name = { type: 'string' };
  const [relaxed] = validateDocument(JSON.stringify(optional), { file: 'odd.json' }).types;
  const g2 = inputGenerator(relaxed!);
  assert.equal(g2.problem, undefined);
  assert.match(g2.warnings.join(), /\/Note is left out of generated inputs/);
});

/**
 * A resource schema's Bicep warnings (TP5001–TP5003) are made in the semantic checks' walk of the
 * document, not in a walk of their own (src/schema/resource-schema/semantic.ts); the rule's own walk
 * of the model (`bicepExpressibleFindings`) is what they must equal, warning for warning. Only the
 * semantic checks enter `contains`, `dependencies` and the configuration settings, so a document with
 * each of those is checked here beside the whole AWS corpus.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { bicepExpressibleFindings } from '../../src/schema/rules/bicep-expressible.js';
import { validateDocument } from '../../src/schema/validate.js';
import type { Diagnostic } from '../../src/schema/diagnostics.js';
import { AWS_CORPUS as corpus, corpusSkip } from '../helpers/requirements.js';

const BICEP = new Set(['TP5001', 'TP5002', 'TP5003']);

/** A warning as the walks make it, before it is placed: what tells two apart. */
const key = (d: Pick<Diagnostic, 'rule' | 'pointer' | 'message'>) => `${d.rule} ${d.pointer} ${d.message}`;

/**
 * The document's diagnostics with the warnings asked for, against those without them plus the rule's
 * own walk of the types: the same warnings, and every other diagnostic unchanged.
 */
function compare(text: string | Buffer, file: string): { bicep: string[] } {
  const withWarnings = validateDocument(text, { file, bicepWarnings: true });
  const without = validateDocument(text, { file });
  const made = withWarnings.diagnostics.filter((d) => BICEP.has(d.rule));
  const others = withWarnings.diagnostics.filter((d) => !BICEP.has(d.rule));
  assert.deepEqual(others, without.diagnostics, `${file}: the other diagnostics are unchanged`);
  const expected = bicepExpressibleFindings(without.types).map(key).sort();
  const bicep = made.map(key).sort();
  assert.deepEqual(bicep, expected, `${file}: the Bicep warnings are the rule's own walk's`);
  for (const d of made)
    assert.ok(d.line !== undefined && d.column !== undefined, `${file}: ${key(d)} is placed`);
  return { bicep };
}

const number = { type: 'number' };

/** A valid resource schema named `Acme::Bicep::<name>`, identified by its read-only `Name`, with `properties` besides. */
function schemaOf(name: string, properties: Record<string, unknown>, more: Record<string, unknown> = {}) {
  return {
    typeName: `Acme::Bicep::${name}`,
    description: `The ${name} case.`,
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    readOnlyProperties: ['/properties/Name'],
    properties: { Name: { type: 'string' }, ...properties },
    ...more,
  };
}

test('the Bicep warnings are those of the nodes the rule reaches, and not of those only the semantic checks reach', () => {
  const schema = schemaOf(
    'Reach',
    {
      // Both: nested properties, items, patternProperties, branches, a list of types.
      Cfg: { type: 'object', additionalProperties: false, properties: { Inner: number } },
      Sizes: { type: 'array', items: number },
      Labels: { type: 'object', patternProperties: { '^[a-z]+$': number } },
      Mode: {
        oneOf: [
          { type: 'integer', const: 2 },
          { type: 'boolean', enum: [true] },
        ],
      },
      Either: { type: ['number', 'string'] },
      // The semantic checks only: contains and dependencies.
      Bag: { type: 'array', contains: number },
      Opts: {
        type: 'object',
        additionalProperties: false,
        properties: { A: { type: 'string' }, B: { type: 'string' } },
        dependencies: { A: { properties: { B: number } } },
      },
    },
    {
      definitions: {
        Ratio: number,
        Nested: {
          type: 'object',
          additionalProperties: false,
          properties: { R: { $ref: '#/definitions/Ratio' } },
        },
      },
      anyOf: [{ required: ['Name'] }, { properties: { Name: number } }],
      // The semantic checks only: the configuration settings.
      typeConfiguration: { properties: { Rate: number }, additionalProperties: false },
    },
  );
  const text = JSON.stringify(schema, null, 2);
  assert.equal(validateDocument(text).valid, true, JSON.stringify(validateDocument(text).diagnostics));
  const { bicep } = compare(text, 'reach.json');
  const pointers = bicep.map((k) => k.split(' ')[1]);
  for (const reached of [
    '/properties/Cfg/properties/Inner',
    '/properties/Sizes/items',
    '/properties/Labels/patternProperties',
    '/properties/Labels/patternProperties/^[a-z]+$',
    '/properties/Mode/oneOf/0/const',
    '/properties/Mode/oneOf/1/enum',
    '/properties/Either',
    '/definitions/Ratio',
    '/anyOf/1/properties/Name',
  ])
    assert.ok(pointers.includes(reached), `${reached} is warned about: ${pointers.join(', ')}`);
  for (const unreached of [
    '/properties/Bag/contains',
    '/properties/Opts/dependencies/A/properties/B',
    '/typeConfiguration/properties/Rate',
  ])
    assert.ok(!pointers.includes(unreached), `${unreached} is not the Bicep rule's to warn about`);
});

test('a schema under additionalProperties or a list of items is an error, so the rule walks no such node', () => {
  for (const [name, property, rule] of [
    ['map', { type: 'object', additionalProperties: number }, 'TP2023'],
    ['tuple', { type: 'array', items: [number] }, 'TP2025'],
  ] as const) {
    const schema = schemaOf('Unwalked', { Odd: property });
    const result = validateDocument(JSON.stringify(schema), { file: `${name}.json`, bicepWarnings: true });
    assert.ok(
      result.diagnostics.some((d) => d.rule === rule && d.severity === 'error'),
      `${name}: ${rule}: ${JSON.stringify(result.diagnostics)}`,
    );
    assert.deepEqual(result.types, []);
    compare(JSON.stringify(schema), `${name}.json`);
  }
});

test('a type that refers to a built-in schema is warned about as the rule’s walk of its model does', () => {
  // Its built-in schema is inlined into the model's definitions after the semantic walk.
  const schema = schemaOf('Common', { Tags: { $ref: 'typeplane:Tags' }, Weight: number });
  const { bicep } = compare(JSON.stringify(schema, null, 2), 'common.json');
  assert.deepEqual(
    bicep.map((k) => k.split(' ')[1]),
    ['/properties/Weight'],
  );
});

test('a document with errors gets no Bicep warnings, as it gets no types', () => {
  // Its identifier names nothing.
  const schema = schemaOf('Broken', { Weight: number }, { primaryIdentifier: ['/properties/Missing'] });
  const result = validateDocument(JSON.stringify(schema), { file: 'broken.json', bicepWarnings: true });
  assert.equal(result.valid, false);
  assert.deepEqual(
    result.diagnostics.filter((d) => BICEP.has(d.rule)),
    [],
  );
  compare(JSON.stringify(schema), 'broken.json');
});

test(
  'every AWS corpus schema gets the Bicep warnings the rule’s own walk makes',
  { skip: corpusSkip() },
  () => {
    const files = readdirSync(corpus)
      .filter((f) => f.endsWith('.json'))
      .sort();
    let warnings = 0;
    for (const file of files) warnings += compare(readFileSync(corpus + file), file).bicep.length;
    // The corpus has hundreds: the comparison above is not of empty lists.
    assert.ok(warnings > 900, `${warnings} Bicep warnings in the corpus`);
  },
);

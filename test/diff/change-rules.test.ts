/**
 * Every change rule, table-driven: each case is a pair of type versions written once and rendered in
 * both dialects (a resource schema in JSON, a manifest in YAML) where the dialect can express it; the
 * diff must report exactly the expected rules, each located in the newer document.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { stringify as toYaml } from 'yaml';
import { CHANGE_RULES, diffApiVersions, diffDocuments, type ChangeRuleId } from '../../src/diff/index.js';

type Props = Record<string, Record<string, unknown>>;

/** One version of the test type, in terms both dialects share. */
interface Spec {
  properties: Props;
  required?: string[];
  readOnly?: string[];
  writeOnly?: string[];
  createOnly?: string[];
  primary?: string[];
  description?: string;
  conditional?: string[];
  deprecated?: string[];
  /** Handler → its permissions (resource schemas only). */
  handlers?: Record<string, string[]>;
  /** Handler → its timeoutInMinutes, where given (resource schemas only). */
  timeouts?: Record<string, number>;
  /** Property → the type its values name (a `relationshipRef` to the type's `Id`; resource schemas only). */
  references?: Record<string, string>;
}

interface Case {
  name: string;
  rules: ChangeRuleId[];
  before: Spec;
  after: Spec;
  /** The pointer (in the newer model schema, before dialect placement) the first change is located at. */
  at: string;
  /** The dialects that can express the change (both when absent). */
  only?: 'resource-schema';
}

const S = { type: 'string' };
const base = (properties: Props = {}, rest: Omit<Spec, 'properties'> = {}): Spec => ({
  properties: { name: S, ...properties },
  ...rest,
});

const CASES: Case[] = [
  {
    name: 'property removed',
    rules: ['TP6001'],
    before: base({ a: S, b: S }),
    after: base({ a: S }),
    at: '/properties',
  },
  {
    name: 'property renamed',
    rules: ['TP6001'],
    before: base({ colour: S }),
    after: base({ color: S }),
    at: '/properties',
  },
  {
    name: 'nested property removed',
    rules: ['TP6001'],
    before: base({ o: { type: 'object', properties: { x: S, y: S } } }),
    after: base({ o: { type: 'object', properties: { x: S } } }),
    at: '/properties/o/properties',
  },
  {
    name: 'type changed',
    rules: ['TP6002'],
    before: base({ a: S }),
    after: base({ a: { type: 'integer' } }),
    at: '/properties/a/type',
  },
  {
    name: 'number narrowed to integer',
    rules: ['TP6002'],
    before: base({ a: { type: 'number' } }),
    after: base({ a: { type: 'integer' } }),
    at: '/properties/a/type',
  },
  {
    name: 'enum value removed',
    rules: ['TP6003'],
    before: base({ size: { type: 'string', enum: ['S', 'M', 'L'] } }),
    after: base({ size: { type: 'string', enum: ['S', 'M'] } }),
    at: '/properties/size/enum',
  },
  {
    name: 'enum added where there was none',
    rules: ['TP6003'],
    before: base({ size: S }),
    after: base({ size: { type: 'string', enum: ['S'] } }),
    at: '/properties/size/enum',
  },
  {
    name: 'pattern tightened',
    rules: ['TP6004'],
    before: base({ a: { type: 'string', pattern: '^[a-z]+$' } }),
    after: base({ a: { type: 'string', pattern: '^[a-z]{3,}$' } }),
    at: '/properties/a/pattern',
  },
  {
    name: 'pattern added',
    rules: ['TP6004'],
    before: base({ a: S }),
    after: base({ a: { type: 'string', pattern: '^[a-z]+$' } }),
    at: '/properties/a/pattern',
  },
  {
    name: 'length tightened',
    rules: ['TP6005'],
    before: base({ a: { type: 'string', maxLength: 20 } }),
    after: base({ a: { type: 'string', maxLength: 10 } }),
    at: '/properties/a/maxLength',
  },
  {
    name: 'range tightened',
    rules: ['TP6005'],
    before: base({ n: { type: 'integer', minimum: 0 } }),
    after: base({ n: { type: 'integer', minimum: 1 } }),
    at: '/properties/n/minimum',
  },
  {
    name: 'array size tightened',
    rules: ['TP6005'],
    before: base({ l: { type: 'array', items: S } }),
    after: base({ l: { type: 'array', items: S, maxItems: 5 } }),
    at: '/properties/l/maxItems',
  },
  {
    name: 'validation rule added',
    rules: ['TP6014'],
    before: base({ n: { type: 'integer' } }),
    after: base({ n: { type: 'integer', 'x-typeplane-validations': [{ rule: 'self >= 0' }] } }),
    at: '/properties/n/x-typeplane-validations/0',
  },
  {
    name: 'validation rule changed',
    rules: ['TP6014', 'TP6112'],
    before: base({ n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0' }] } }),
    after: base({ n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 1' }] } }),
    at: '/properties/n/x-kubernetes-validations/0',
  },
  {
    name: 'validation rule removed',
    rules: ['TP6112'],
    before: base({ n: { type: 'integer', 'x-typeplane-validations': [{ rule: 'self >= 0' }] } }),
    after: base({ n: { type: 'integer' } }),
    at: '/properties/n',
  },
  {
    name: 'new required property without default',
    rules: ['TP6006'],
    before: base({ a: S }),
    after: base({ a: S, b: S }, { required: ['b'] }),
    at: '/required',
  },
  {
    name: 'existing property made required',
    rules: ['TP6006'],
    before: base({ a: S }),
    after: base({ a: S }, { required: ['a'] }),
    at: '/required',
  },
  {
    name: 'property made create-only',
    rules: ['TP6007'],
    before: base({ a: S }),
    after: base({ a: S }, { createOnly: ['/properties/a'] }),
    at: 'createOnlyProperties',
    only: 'resource-schema',
  },
  {
    name: 'property made read-only',
    rules: ['TP6008'],
    before: base({ a: S }),
    after: base({ a: S }, { readOnly: ['/properties/a'] }),
    at: 'readOnlyProperties',
  },
  {
    name: 'property made write-only',
    rules: ['TP6009'],
    before: base({ a: S }),
    after: base({ a: S }, { writeOnly: ['/properties/a'] }),
    at: 'writeOnlyProperties',
  },
  {
    name: 'primary identifier changed',
    rules: ['TP6010', 'TP6007'],
    before: base({ a: S }),
    after: base({ a: S }, { primary: ['/properties/a'], createOnly: ['/properties/a'] }),
    at: 'primaryIdentifier',
    only: 'resource-schema',
  },
  {
    name: 'additionalProperties closed',
    rules: ['TP6011'],
    before: base({ o: { type: 'object', properties: { x: S } } }),
    after: base({ o: { type: 'object', properties: { x: S }, additionalProperties: false } }),
    at: '/properties/o/additionalProperties',
    only: 'resource-schema',
  },
  {
    name: 'default changed',
    rules: ['TP6201'],
    before: base({ size: { type: 'string', default: 'S' } }),
    after: base({ size: { type: 'string', default: 'M' } }),
    at: '/properties/size/default',
  },
  {
    name: 'oneOf changed',
    rules: ['TP6202'],
    before: base({ a: { type: 'object', properties: { x: S, y: S }, oneOf: [{ required: ['x'] }] } }),
    after: base({
      a: { type: 'object', properties: { x: S, y: S }, oneOf: [{ required: ['x'] }, { required: ['y'] }] },
    }),
    at: '/properties/a/oneOf',
    only: 'resource-schema',
  },
  {
    name: 'no longer write-only',
    rules: ['TP6203'],
    before: base({ a: S }, { writeOnly: ['/properties/a'] }),
    after: base({ a: S }),
    at: '/properties/a',
  },
  {
    name: 'optional property added',
    rules: ['TP6101'],
    before: base({ a: S }),
    after: base({ a: S, b: S }),
    at: '/properties/b',
  },
  {
    name: 'enum widened',
    rules: ['TP6102'],
    before: base({ size: { type: 'string', enum: ['S', 'M'] } }),
    after: base({ size: { type: 'string', enum: ['S', 'M', 'XL'] } }),
    at: '/properties/size/enum',
  },
  {
    name: 'limits relaxed',
    rules: ['TP6103', 'TP6103'],
    before: base({ a: { type: 'string', maxLength: 10 }, n: { type: 'integer', minimum: 5 } }),
    after: base({ a: { type: 'string', maxLength: 20 }, n: { type: 'integer', minimum: 1 } }),
    at: '/properties/a/maxLength',
  },
  {
    name: 'description changed',
    rules: ['TP6104'],
    before: base({ a: { type: 'string', description: 'old words' } }),
    after: base({ a: { type: 'string', description: 'new words' } }),
    at: '/properties/a',
  },
  {
    name: 'no longer read-only',
    rules: ['TP6105'],
    before: base({ a: S }, { readOnly: ['/properties/a'] }),
    after: base({ a: S }),
    at: '/properties/a',
  },
  {
    name: 'handler removed',
    rules: ['TP6013'],
    before: base({ a: S }, { handlers: { create: ['x:Create'], read: ['x:Read'] } }),
    after: base({ a: S }, { handlers: { create: ['x:Create'] } }),
    at: '/handlers',
    only: 'resource-schema',
  },
  {
    name: 'handler added',
    rules: ['TP6107'],
    before: base({ a: S }, { handlers: { create: ['x:Create'] } }),
    after: base({ a: S }, { handlers: { create: ['x:Create'], read: ['x:Read'] } }),
    at: '/handlers/read',
    only: 'resource-schema',
  },
  {
    name: 'handler needs more permissions',
    rules: ['TP6204'],
    before: base({ a: S }, { handlers: { create: ['x:Create'] } }),
    after: base({ a: S }, { handlers: { create: ['x:Create', 'x:Tag'] } }),
    at: '/handlers/create/permissions',
    only: 'resource-schema',
  },
  {
    name: 'handler needs fewer permissions',
    rules: ['TP6108'],
    before: base({ a: S }, { handlers: { create: ['x:Create', 'x:Tag'] } }),
    after: base({ a: S }, { handlers: { create: ['x:Create'] } }),
    at: '/handlers/create/permissions',
    only: 'resource-schema',
  },
  {
    name: 'property deprecated',
    rules: ['TP6205'],
    before: base({ a: S }),
    after: base({ a: S }, { deprecated: ['/properties/a'] }),
    at: 'deprecatedProperties',
  },
  {
    name: 'no longer deprecated',
    rules: ['TP6109'],
    before: base({ a: S }, { deprecated: ['/properties/a'] }),
    after: base({ a: S }),
    at: '/properties/a',
  },
  {
    name: 'property made conditionally create-only',
    rules: ['TP6206'],
    before: base({ a: S }),
    after: base({ a: S }, { conditional: ['/properties/a'] }),
    at: 'conditionalCreateOnlyProperties',
    only: 'resource-schema',
  },
  {
    name: 'conditionally create-only made create-only',
    rules: ['TP6007'],
    before: base({ a: S }, { conditional: ['/properties/a'] }),
    after: base({ a: S }, { createOnly: ['/properties/a'] }),
    at: 'createOnlyProperties',
    only: 'resource-schema',
  },
  {
    name: 'create-only made conditionally create-only',
    rules: ['TP6105'],
    before: base({ a: S }, { createOnly: ['/properties/a'] }),
    after: base({ a: S }, { conditional: ['/properties/a'] }),
    at: '/properties/a',
    only: 'resource-schema',
  },
  {
    name: 'no longer conditionally create-only',
    rules: ['TP6105'],
    before: base({ a: S }, { conditional: ['/properties/a'] }),
    after: base({ a: S }),
    at: '/properties/a',
    only: 'resource-schema',
  },
  {
    name: 'handler timeout shortened',
    rules: ['TP6209'],
    before: base({ a: S }, { handlers: { create: ['x:Create'] }, timeouts: { create: 60 } }),
    after: base({ a: S }, { handlers: { create: ['x:Create'] }, timeouts: { create: 30 } }),
    at: '/handlers/create/timeoutInMinutes',
    only: 'resource-schema',
  },
  {
    name: 'handler timeout lengthened',
    rules: ['TP6111'],
    before: base({ a: S }, { handlers: { create: ['x:Create'] }, timeouts: { create: 30 } }),
    after: base({ a: S }, { handlers: { create: ['x:Create'] }, timeouts: { create: 90 } }),
    at: '/handlers/create/timeoutInMinutes',
    only: 'resource-schema',
  },
  {
    name: 'reference added',
    rules: ['TP6207'],
    before: base({ a: S }),
    after: base({ a: S }, { references: { a: 'Test::Diff::Other' } }),
    at: '/properties/a/relationshipRef/typeName',
    only: 'resource-schema',
  },
  {
    name: 'reference retargeted',
    rules: ['TP6208'],
    before: base({ a: S }, { references: { a: 'Test::Diff::Other' } }),
    after: base({ a: S }, { references: { a: 'Test::Diff::Another' } }),
    at: '/properties/a/relationshipRef/typeName',
    only: 'resource-schema',
  },
  {
    name: 'reference removed',
    rules: ['TP6110'],
    before: base({ a: S }, { references: { a: 'Test::Diff::Other' } }),
    after: base({ a: S }),
    at: '/properties/a',
    only: 'resource-schema',
  },
  {
    name: 'reference unchanged',
    rules: [],
    before: base({ a: S }, { references: { a: 'Test::Diff::Other' } }),
    after: base({ a: S }, { references: { a: 'Test::Diff::Other' } }),
    at: '',
    only: 'resource-schema',
  },
  { name: 'nothing changed', rules: [], before: base({ a: S }), after: base({ a: S }), at: '' },
];

function resourceSchema(spec: Spec): string {
  return JSON.stringify(
    {
      typeName: 'Test::Diff::Thing',
      description: 'A thing.',
      properties: Object.fromEntries(
        Object.entries(spec.properties).map(([name, schema]) => [
          name,
          spec.references?.[name]
            ? {
                ...schema,
                relationshipRef: { typeName: spec.references[name], propertyPath: '/properties/Id' },
              }
            : schema,
        ]),
      ),
      ...(spec.required ? { required: spec.required } : {}),
      additionalProperties: false,
      primaryIdentifier: spec.primary ?? ['/properties/name'],
      createOnlyProperties: ['/properties/name', ...(spec.createOnly ?? [])],
      ...(spec.readOnly ? { readOnlyProperties: spec.readOnly } : {}),
      ...(spec.writeOnly ? { writeOnlyProperties: spec.writeOnly } : {}),
      ...(spec.conditional ? { conditionalCreateOnlyProperties: spec.conditional } : {}),
      ...(spec.deprecated ? { deprecatedProperties: spec.deprecated } : {}),
      ...(spec.handlers
        ? {
            handlers: Object.fromEntries(
              Object.entries(spec.handlers).map(([action, permissions]) => [
                action,
                {
                  permissions,
                  ...(spec.timeouts?.[action] ? { timeoutInMinutes: spec.timeouts[action] } : {}),
                },
              ]),
            ),
          }
        : {}),
    },
    null,
    2,
  );
}

function manifest(spec: Spec): string {
  const properties: Props = {};
  for (const [name, schema] of Object.entries(spec.properties)) {
    if (name === 'name') continue;
    const pointer = `/properties/${name}`;
    properties[name] = {
      ...schema,
      ...(spec.readOnly?.includes(pointer) ? { readOnly: true } : {}),
      ...(spec.writeOnly?.includes(pointer) ? { 'x-typeplane-sensitive': true } : {}),
      ...(spec.deprecated?.includes(pointer) ? { deprecated: true } : {}),
    };
  }
  const schema = { type: 'object', properties, ...(spec.required ? { required: spec.required } : {}) };
  return toYaml({
    namespace: 'Test.Diff',
    types: { things: { description: 'A thing.', apiVersions: { '2025-01-01': { schema } } } },
  });
}

const MANIFEST_SCHEMA = '/types/things/apiVersions/2025-01-01/schema';
const RS_LIST =
  /^(createOnlyProperties|conditionalCreateOnlyProperties|readOnlyProperties|writeOnlyProperties|deprecatedProperties|primaryIdentifier)$/;

for (const dialect of ['resource-schema', 'manifest'] as const) {
  describe(`change rules (${dialect})`, () => {
    for (const c of CASES) {
      if (c.only && c.only !== dialect) continue;
      test(`${c.rules[0] ?? 'none'}: ${c.name}`, () => {
        const render = dialect === 'resource-schema' ? resourceSchema : manifest;
        const ext = dialect === 'resource-schema' ? 'json' : 'yaml';
        const result = diffDocuments(
          { text: render(c.before), file: `old.${ext}` },
          { text: render(c.after), file: `new.${ext}` },
        );
        assert.deepEqual(result.problems, [], 'both documents are valid');
        assert.deepEqual(
          result.changes.map((x) => x.rule).sort(),
          [...c.rules].sort(),
          JSON.stringify(result.changes, null, 2),
        );
        if (c.rules.length === 0) return;
        const first = result.changes.find((x) => x.rule === c.rules[0])!;
        assert.equal(first.verdict, CHANGE_RULES[c.rules[0]!].verdict);
        // Located in the newer document: the pointer, and a line and column there.
        const expected =
          dialect === 'manifest'
            ? RS_LIST.test(c.at)
              ? `${MANIFEST_SCHEMA}/properties/a`
              : `${MANIFEST_SCHEMA}${c.at}`
            : RS_LIST.test(c.at)
              ? `/${c.at}/`
              : c.at;
        if (RS_LIST.test(c.at) && dialect === 'resource-schema')
          assert.ok(first.pointer.startsWith(expected), first.pointer);
        else assert.equal(first.pointer, expected);
        assert.equal(first.file, `new.${ext}`);
        assert.equal(typeof first.line, 'number');
        assert.equal(typeof first.column, 'number');
        const text = render(c.after).split('\n')[first.line! - 1]!;
        const lastToken = expected.split('/').filter(Boolean).at(-1)!;
        // The line holds the member the pointer names (or, for a list entry, the list's item).
        if (!RS_LIST.test(c.at) && lastToken !== 'a' && !/^\d+$/.test(lastToken))
          assert.match(text, new RegExp(`${lastToken}|^\\s*-`), `line ${first.line}: ${text}`);
      });
    }
  });
}

describe('types and API versions', () => {
  const twoVersions = (second: string) =>
    toYaml({
      namespace: 'Test.Diff',
      types: {
        things: {
          description: 'A thing.',
          apiVersions: {
            '2025-01-01': {
              schema: { type: 'object', properties: { size: { type: 'string', enum: ['S', 'M'] } } },
            },
            [second]: { schema: { type: 'object', properties: { size: { type: 'string', enum: ['M'] } } } },
          },
        },
      },
    });

  test('a manifest alone: each API version against the one before it', () => {
    const result = diffApiVersions({ text: twoVersions('2025-06-01'), file: 'm.yaml' });
    assert.deepEqual(
      result.changes.map((c) => [c.rule, c.apiVersion]),
      [['TP6003', '2025-06-01']],
    );
    assert.equal(result.counts.breaking, 1);
    assert.match(result.changes[0]!.message, /"S" no longer allowed/);
  });

  test('an API version removed is breaking, one added is compared with the latest before it', () => {
    const before = twoVersions('2025-06-01');
    const after = twoVersions('2025-09-01');
    const result = diffDocuments({ text: before, file: 'a.yaml' }, { text: after, file: 'b.yaml' });
    const rules = result.changes.map((c) => `${c.rule} ${c.apiVersion}`).sort();
    assert.deepEqual(rules, ['TP6012 2025-09-01', 'TP6106 2025-09-01']);
    assert.match(result.changes.find((c) => c.rule === 'TP6012')!.message, /2025-06-01 .* removed/);
  });

  test('a type removed from a manifest is breaking; one added is safe', () => {
    const one = toYaml({
      namespace: 'Test.Diff',
      types: {
        alpha: {
          description: 'A.',
          apiVersions: { '2025-01-01': { schema: { type: 'object', properties: {} } } },
        },
      },
    });
    const other = one.replace(/^ {2}alpha:/m, '  beta:');
    const result = diffDocuments({ text: one }, { text: other });
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.changes.map((c) => [c.rule, c.typeName]).sort(), [
      ['TP6012', 'Test.Diff/alpha'],
      ['TP6106', 'Test.Diff/beta'],
    ]);
  });

  test('recursive definitions are walked once and their changes located in the definition', () => {
    const doc = (max: number) =>
      JSON.stringify(
        {
          typeName: 'Test::Diff::Tree',
          description: 'A tree.',
          definitions: {
            Node: {
              type: 'object',
              additionalProperties: false,
              properties: {
                Label: { type: 'string', maxLength: max },
                Children: { type: 'array', items: { $ref: '#/definitions/Node' } },
              },
            },
          },
          properties: { Name: S, Root: { $ref: '#/definitions/Node' } },
          additionalProperties: false,
          primaryIdentifier: ['/properties/Name'],
          createOnlyProperties: ['/properties/Name'],
        },
        null,
        2,
      );
    const result = diffDocuments({ text: doc(10) }, { text: doc(5) });
    assert.deepEqual(
      result.changes.map((c) => [c.rule, c.property, c.pointer]),
      [['TP6005', '/properties/Root/Label', '/definitions/Node/properties/Label/maxLength']],
    );
  });

  test('an invalid document is reported, nothing is compared', () => {
    const result = diffDocuments(
      { text: resourceSchema(base()), file: 'a.json' },
      { text: '{ "typeName": ', file: 'b.json' },
    );
    assert.equal(result.changes.length, 0);
    assert.equal(result.problems[0]?.rule, 'TP1005');
    assert.equal(result.problems[0]?.file, 'b.json');
  });
});

describe('references in manifests', () => {
  const withReferences = (owner: string, team: string) =>
    toYaml({
      namespace: 'Test.Diff',
      types: {
        things: {
          description: 'A thing.',
          'x-typeplane-references': [{ typeName: team, ids: { name: '/properties/team' } }],
          apiVersions: {
            '2025-01-01': {
              schema: {
                type: 'object',
                properties: {
                  owner: { type: 'string', 'x-typeplane-references': owner },
                  team: { type: 'string' },
                },
              },
            },
          },
        },
      },
    });

  test('a property that now names another type, and a declared reference retargeted, are dangerous and located where each is written', () => {
    const before = withReferences('Test.Diff/people', 'Test.Diff/teams');
    const after = withReferences('Test.Diff/accounts', 'Test.Diff/groups');
    const result = diffDocuments({ text: before, file: 'a.yaml' }, { text: after, file: 'b.yaml' });
    assert.deepEqual(result.problems, []);
    const changes = result.changes.map((c) => [c.rule, c.verdict, c.pointer]).sort();
    assert.deepEqual(changes, [
      [
        'TP6208',
        'dangerous',
        '/types/things/apiVersions/2025-01-01/schema/properties/owner/x-typeplane-references',
      ],
      ['TP6208', 'dangerous', '/types/things/x-typeplane-references/0/typeName'],
    ]);
    const owner = result.changes.find((c) => c.pointer.endsWith('/owner/x-typeplane-references'))!;
    assert.match(owner.message, /from Test\.Diff\/people .* to Test\.Diff\/accounts/);
    assert.equal(owner.property, '/properties/owner');
    const line = after.split('\n')[owner.line! - 1]!;
    assert.match(line, /x-typeplane-references: Test\.Diff\/accounts/);
    assert.equal(result.counts.dangerous, 2);
  });

  test('the same references in both versions are no change', () => {
    const doc = withReferences('Test.Diff/people', 'Test.Diff/teams');
    assert.deepEqual(diffDocuments({ text: doc }, { text: doc }).changes, []);
  });

  /** References without `ids`: the members are named like the referenced type's identifier. */
  const implicit = (...typeNames: string[]) =>
    toYaml({
      namespace: 'Test.Diff',
      types: {
        things: {
          description: 'A thing.',
          'x-typeplane-references': typeNames.map((typeName) => ({ typeName })),
          apiVersions: {
            '2025-01-01': { schema: { type: 'object', properties: { team: S } } },
          },
        },
      },
    });
  const rulesOf = (before: string, after: string) => {
    const result = diffDocuments({ text: before }, { text: after });
    assert.deepEqual(result.problems, []);
    return result.changes.map((c) => [c.rule, c.message.split(':')[0]]).sort();
  };

  test('a reference without ids that names another type is retargeted, not added and removed', () => {
    assert.deepEqual(rulesOf(implicit('Test.Diff/teams'), implicit('Test.Diff/groups')), [
      ['TP6208', 'reference retargeted from Test.Diff/teams to Test.Diff/groups'],
    ]);
    // Beside one that stays, the one that changed is paired all the same.
    assert.deepEqual(
      rulesOf(
        implicit('Test.Diff/people', 'Test.Diff/teams'),
        implicit('Test.Diff/people', 'Test.Diff/groups'),
      ),
      [['TP6208', 'reference retargeted from Test.Diff/teams to Test.Diff/groups']],
    );
  });

  test('references without ids that cannot be paired are reported added and removed', () => {
    assert.deepEqual(
      rulesOf(
        implicit('Test.Diff/people', 'Test.Diff/teams'),
        implicit('Test.Diff/accounts', 'Test.Diff/groups'),
      ),
      [
        ['TP6110', 'reference to Test.Diff/people removed'],
        ['TP6110', 'reference to Test.Diff/teams removed'],
        ['TP6207', 'reference to Test.Diff/accounts added'],
        ['TP6207', 'reference to Test.Diff/groups added'],
      ],
    );
    assert.deepEqual(rulesOf(implicit(), implicit('Test.Diff/groups')), [
      ['TP6207', 'reference to Test.Diff/groups added'],
    ]);
  });
});

describe('type configuration', () => {
  const configured = (configuration: Record<string, unknown> | undefined) =>
    JSON.stringify(
      {
        ...(JSON.parse(resourceSchema(base())) as Record<string, unknown>),
        ...(configuration ? { typeConfiguration: { additionalProperties: false, ...configuration } } : {}),
      },
      null,
      2,
    );
  const manifestWith = (configuration: Record<string, unknown> | undefined) =>
    toYaml({
      namespace: 'Test.Diff',
      types: {
        things: {
          description: 'A thing.',
          ...(configuration ? { 'x-typeplane-configuration': configuration } : {}),
          apiVersions: { '2025-01-01': { schema: { type: 'object', properties: { a: S } } } },
        },
      },
    });

  for (const [dialect, render] of [
    ['resource-schema', configured],
    ['manifest', manifestWith],
  ] as const) {
    test(`a required setting added is breaking, an optional one safe, one tightened breaking (${dialect})`, () => {
      const key = { properties: { ApiKey: { type: 'string' } } };
      const none = diffDocuments({ text: render(undefined) }, { text: render(key) });
      assert.deepEqual(
        none.changes.map((c) => [c.rule, c.property]),
        [['TP6101', 'typeConfiguration/properties/ApiKey']],
      );
      const required = diffDocuments(
        { text: render(key) },
        { text: render({ ...key, required: ['ApiKey'] }) },
      );
      assert.deepEqual(
        required.changes.map((c) => [c.rule, c.verdict]),
        [['TP6006', 'breaking']],
      );
      const where = required.changes[0]!.pointer;
      assert.equal(
        where,
        dialect === 'manifest'
          ? '/types/things/x-typeplane-configuration/required'
          : '/typeConfiguration/required',
      );
      const tightened = diffDocuments(
        { text: render(key) },
        { text: render({ properties: { ApiKey: { type: 'string', minLength: 20 } } }) },
      );
      assert.deepEqual(
        tightened.changes.map((c) => c.rule),
        ['TP6005'],
      );
      assert.match(tightened.changes[0]!.message, /^typeConfiguration \/properties\/ApiKey: minLength added/);
    });
  }
});

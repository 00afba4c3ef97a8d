/**
 * Modelling traits in both dialects: `traits` in resource schemas, `x-typeplane-*` in manifests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, assertOnly, pretty, schemaWith, validate } from './helpers.js';

const withTraits = (traits: unknown) =>
  schemaWith({
    properties: { Name: { type: 'string' }, DatabaseName: { type: 'string' } },
    traits: traits as never,
  });

test('resource schema traits normalise into the model: noReplace and references with member mapping', () => {
  const result = validate(
    pretty(
      withTraits({
        noReplace: true,
        references: [
          { typeName: 'Typeplane::PostgreSQL::Database', ids: { Name: '/properties/DatabaseName' } },
          { typeName: 'Typeplane.Data/postgresDatabases' },
        ],
      }),
    ),
  );
  assertClean(result);
  assert.deepEqual(result.types[0]!.traits, {
    noReplace: true,
    references: [
      {
        typeName: 'Typeplane::PostgreSQL::Database',
        ids: [{ target: '/properties/Name', member: '/properties/DatabaseName' }],
      },
      { typeName: 'Typeplane.Data/postgresDatabases', ids: [] },
    ],
  });
});

test('TP2045: malformed traits are located', () => {
  const text = pretty(withTraits({ noReplace: 'yes' }));
  assertOnly(validate(text), { rule: 'TP2045', pointer: '/traits/noReplace', line: 20, column: 18 });
  const badType = pretty(withTraits({ references: [{ typeName: 'not a type' }] }));
  assertOnly(validate(badType), {
    rule: 'TP2045',
    pointer: '/traits/references/0/typeName',
    line: 22,
    column: 21,
  });
});

test('TP2046: a reference member must be a declared property', () => {
  const text = pretty(
    withTraits({ references: [{ typeName: 'Org::Data::Db', ids: { Name: '/properties/Nope' } }] }),
  );
  assertOnly(validate(text), {
    rule: 'TP2046',
    pointer: '/traits/references/0/ids/Name',
    line: 24,
    column: 19,
  });
});

const manifest = (typeExtras: string) =>
  [
    'namespace: Acme.Apps',
    'types:',
    '  apps:',
    '    description: An application.',
    typeExtras,
    '    apiVersions:',
    "      '2025-01-01':",
    '        schema:',
    '          type: object',
    '          properties:',
    '            database:',
    '              type: string',
    '',
  ].join('\n');

test('manifest x-typeplane traits normalise into the model', () => {
  const result = validate(
    manifest(
      [
        '    x-typeplane-noReplace: true',
        '    x-typeplane-references:',
        '      - typeName: Typeplane.Data/postgresDatabases',
        '        ids: { name: /properties/database }',
      ].join('\n'),
    ),
    { file: 'apps.yaml' },
  );
  assert.deepEqual(result.diagnostics, []);
  assert.deepEqual(result.types[0]!.traits, {
    noReplace: true,
    references: [
      {
        typeName: 'Typeplane.Data/postgresDatabases',
        ids: [{ target: '/properties/name', member: '/properties/database' }],
      },
    ],
  });
});

test('TP3018 and TP3019: malformed manifest traits and unknown members', () => {
  const bad = validate(manifest('    x-typeplane-noReplace: maybe'), { file: 'apps.yaml' });
  assertOnly(bad, {
    rule: 'TP3018',
    pointer: '/types/apps/x-typeplane-noReplace',
    line: 5,
    column: 28,
    file: 'apps.yaml',
  });
  const member = validate(
    manifest(
      [
        '    x-typeplane-references:',
        '      - typeName: Typeplane.Data/postgresDatabases',
        '        ids: { name: /properties/db }',
      ].join('\n'),
    ),
    { file: 'apps.yaml' },
  );
  assertOnly(member, {
    rule: 'TP3019',
    pointer: '/types/apps/x-typeplane-references/0/ids/name',
    line: 7,
    column: 22,
    file: 'apps.yaml',
  });
});

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

test('TP1013: across loaded documents, a reference must name properties the referenced type declares', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { loadTypes } = await import('../../src/schema/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-refs-'));
  const db = schemaWith({ typeName: 'Org::Data::Db' });
  writeFileSync(join(dir, 'db.json'), pretty(db));
  writeFileSync(
    join(dir, 'app.json'),
    pretty(
      withTraits({ references: [{ typeName: 'Org::Data::Db', ids: { Nope: '/properties/DatabaseName' } }] }),
    ),
  );
  const bad = await loadTypes([dir]);
  const app = bad.results.find((r) => r.file?.endsWith('app.json'))!;
  assert.deepEqual(
    app.diagnostics.map((d) => d.rule),
    ['TP1013'],
  );
  assert.match(app.diagnostics[0]!.message, /Org::Data::Db property \/properties\/Nope/);
  assert.equal(bad.valid, false);
  writeFileSync(
    join(dir, 'app.json'),
    pretty(
      withTraits({ references: [{ typeName: 'Org::Data::Db', ids: { Name: '/properties/DatabaseName' } }] }),
    ),
  );
  assert.equal((await loadTypes([dir])).valid, true);
});

test('a manifest property marked x-typeplane-references holds the referenced type identifier', () => {
  const text = [
    'namespace: Acme.Apps',
    'types:',
    '  apps:',
    '    description: An application.',
    '    apiVersions:',
    "      '2025-01-01':",
    '        schema:',
    '          type: object',
    '          properties:',
    '            database:',
    '              type: string',
    '              x-typeplane-references: Typeplane.Data/postgresDatabases',
    '            broken:',
    '              type: string',
    '',
  ].join('\n');
  const ok = validate(text, { file: 'apps.yaml' });
  assert.deepEqual(ok.diagnostics, []);
  assert.deepEqual(ok.types[0]!.traits.references, [
    { typeName: 'Typeplane.Data/postgresDatabases', ids: [{ target: '', member: '/properties/database' }] },
  ]);
  assert.equal(
    (ok.types[0]!.schema.properties as Record<string, Record<string, unknown>>).database![
      'x-typeplane-references'
    ],
    undefined,
  );
  const bad = validate(
    text.replace(
      '            broken:\n              type: string',
      '            broken:\n              type: string\n              x-typeplane-references: 42',
    ),
    { file: 'apps.yaml' },
  );
  assertOnly(bad, {
    rule: 'TP3018',
    pointer: '/types/apps/apiVersions/2025-01-01/schema/properties/broken/x-typeplane-references',
    line: 15,
    column: 39,
    file: 'apps.yaml',
  });
});

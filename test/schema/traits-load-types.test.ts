/**
 * References across the documents `loadTypes` loads together: TP1012 (warning: the referenced type
 * is not loaded), TP1013 (an explicit target the referenced type does not declare, or the shorthand's
 * single identifier of a type with a compound one) and TP1014 (implicit ids without the same-named
 * members), each placed where the reference is written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadTypes, type LoadResult } from '../../src/schema/load-types.js';
import type { ValidationResult } from '../../src/schema/validate.js';
import { assertDiagnostics, pretty, type Expected, type Json } from './helpers.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Load `files` (name → text) from a fresh folder; paths in results are the names. Loaded without
 * models too (`typeplane validate`), which must find the same: its referenced types' models are read
 * again where a reference names their properties.
 */
async function load(files: Record<string, string>): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-traits-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const loaded = await loadTypes([dir], { cwd: dir });
  const summarised = await loadTypes([dir], { cwd: dir, models: false });
  assert.deepEqual(
    summarised.results.map((r) => ({ ...r, types: r.types.map((t) => t.typeName) })),
    loaded.results.map((r) => ({ ...r, types: r.types.map((t) => t.typeName) })),
    'loaded without models, the same results',
  );
  assert.equal(summarised.valid, loaded.valid);
  for (const type of summarised.types) assert.ok(!('schema' in type), `${type.typeName} is a summary`);
  return loaded;
}

function resultFor(loaded: LoadResult, file: string): ValidationResult {
  const result = loaded.results.find((r) => r.file === file);
  assert.ok(result, `${file} was loaded`);
  return result;
}

/** Exactly these diagnostics in `file` (file name filled in). */
function expectIn(loaded: LoadResult, file: string, expected: Omit<Expected, 'file'>[]): ValidationResult {
  const result = resultFor(loaded, file);
  assertDiagnostics(
    result,
    expected.map((e) => ({ ...e, file })),
  );
  return result;
}

/** Line 1-based of the first line of `text` containing `needle`. */
function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `${needle} is in the document`);
  return i + 1;
}

/** A resource schema: `properties` are strings; identified by `identifier` (default `Name`). */
function schema(
  typeName: string,
  properties: string[],
  extra: { [key: string]: Json } = {},
  identifier: string[] = ['Name'],
): string {
  return pretty({
    typeName,
    description: `${typeName} for tests.`,
    properties: Object.fromEntries(properties.map((p) => [p, { type: 'string' }])),
    additionalProperties: false,
    primaryIdentifier: identifier.map((p) => `/properties/${p}`),
    createOnlyProperties: identifier.map((p) => `/properties/${p}`),
    ...extra,
    required: identifier,
  });
}

const DB = schema('Org::Data::Db', ['Name', 'Engine']);
const TABLE = schema('Org::Data::Table', ['Db', 'Table'], {}, ['Db', 'Table']);
const CACHES = [
  'namespace: Acme.Data',
  'types:',
  '  caches:',
  '    description: A cache.',
  '    apiVersions:',
  "      '2025-01-01':",
  '        schema:',
  '          type: object',
  '          properties:',
  '            size:',
  '              type: string',
  '',
].join('\n');

describe('references to loaded types', () => {
  test('explicit, implicit, shorthand and relationshipRef references to loaded types: no diagnostic', async () => {
    const app = schema('Org::Apps::App', ['Name', 'DatabaseName', 'Db', 'Table', 'Vpc'], {
      traits: {
        references: [
          { typeName: 'Org::Data::Db', ids: { Name: '/properties/DatabaseName' } },
          { typeName: 'Org::Data::Db' },
          { typeName: 'Org::Data::Table' },
          { typeName: 'Acme.Data/caches', ids: { name: '/properties/Name' } },
        ],
      },
    });
    const apps = [
      'namespace: Acme.Apps',
      'types:',
      '  apps:',
      '    description: An application.',
      '    x-typeplane-references:',
      '      - typeName: Org::Data::Db',
      '        ids: { Name: /properties/database }',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema:',
      '          type: object',
      '          properties:',
      '            database:',
      '              type: string',
      '            cache:',
      '              type: string',
      '              x-typeplane-references: Acme.Data/caches',
      '',
    ].join('\n');
    const loaded = await load({
      'db.json': DB,
      'table.json': TABLE,
      'app.json': app,
      'caches.yaml': CACHES,
      'apps.yaml': apps,
    });
    assert.deepEqual(
      loaded.results.flatMap((r) => r.diagnostics),
      [],
    );
    assert.equal(loaded.valid, true);
    assert.equal(loaded.types.length, 5);
  });
});

describe('TP1012: a reference to a type that is not loaded is a warning', () => {
  test('in traits: placed at the typeName; the document stays valid and its type is kept', async () => {
    const app = schema('Org::Apps::App', ['Name', 'DatabaseName'], {
      traits: {
        references: [{ typeName: 'Org::Data::Elsewhere', ids: { Name: '/properties/DatabaseName' } }],
      },
    });
    const loaded = await load({ 'app.json': app });
    const result = expectIn(loaded, 'app.json', [
      {
        rule: 'TP1012',
        pointer: '/traits/references/0/typeName',
        line: lineOf(app, '"Org::Data::Elsewhere"'),
        column: 21,
      },
    ]);
    assert.match(
      result.diagnostics[0]!.message,
      /Org::Apps::App refers to Org::Data::Elsewhere, which is not among the loaded types/,
    );
    assert.equal(loaded.valid, true);
    assert.deepEqual(
      loaded.types.map((t) => t.typeName),
      ['Org::Apps::App'],
    );
  });

  test('from a relationshipRef, through a definition: placed at the relationshipRef typeName', async () => {
    const app = pretty({
      typeName: 'Org::Apps::App',
      description: 'An application.',
      properties: {
        Name: { type: 'string' },
        Networks: { type: 'array', items: { $ref: '#/definitions/Network' } },
      },
      definitions: {
        Network: {
          type: 'object',
          properties: {
            Vpc: {
              type: 'string',
              relationshipRef: { typeName: 'AWS::EC2::VPC', propertyPath: '/properties/VpcId' },
            },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
      required: ['Name'],
    });
    const loaded = await load({ 'app.json': app });
    expectIn(loaded, 'app.json', [
      {
        rule: 'TP1012',
        pointer: '/definitions/Network/properties/Vpc/relationshipRef/typeName',
        line: lineOf(app, '"AWS::EC2::VPC"'),
        column: 25,
      },
    ]);
    assert.equal(loaded.valid, true);
  });

  test('in a manifest, once per place even with several API versions', async () => {
    const apps = [
      'namespace: Acme.Apps',
      'types:',
      '  apps:',
      '    description: An application.',
      '    x-typeplane-references:',
      '      - typeName: Org::Data::Db',
      '    apiVersions:',
      "      '2024-01-01':",
      '        schema: { type: object, properties: { cache: { type: string, x-typeplane-references: Acme.Data/caches } } }',
      "      '2025-01-01':",
      '        schema:',
      '          type: object',
      '          properties:',
      '            cache:',
      '              type: string',
      '              x-typeplane-references: Acme.Data/caches',
      '',
    ].join('\n');
    const loaded = await load({ 'apps.yaml': apps });
    expectIn(loaded, 'apps.yaml', [
      { rule: 'TP1012', pointer: '/types/apps/x-typeplane-references/0/typeName', line: 6, column: 19 },
      {
        rule: 'TP1012',
        pointer: '/types/apps/apiVersions/2024-01-01/schema/properties/cache/x-typeplane-references',
        line: 9,
        column: 94,
      },
      {
        rule: 'TP1012',
        pointer: '/types/apps/apiVersions/2025-01-01/schema/properties/cache/x-typeplane-references',
        line: 16,
        column: 39,
      },
    ]);
    assert.equal(loaded.valid, true);
    assert.equal(loaded.types.length, 2);
  });

  test('a type whose document has errors is not loaded', async () => {
    const app = schema('Org::Apps::App', ['Name'], {
      traits: { references: [{ typeName: 'Org::Data::Db' }] },
    });
    const brokenDb = DB.replace(
      '"primaryIdentifier": [\n    "/properties/Name"',
      '"primaryIdentifier": [\n    "/properties/Nope"',
    );
    const loaded = await load({ 'app.json': app, 'db.json': brokenDb });
    expectIn(loaded, 'app.json', [
      {
        rule: 'TP1012',
        pointer: '/traits/references/0/typeName',
        line: lineOf(app, '"Org::Data::Db"'),
        column: 21,
      },
    ]);
    assert.equal(resultFor(loaded, 'db.json').valid, false);
  });
});

describe('TP1013: an explicit target must be a property of the loaded referenced type', () => {
  test('placed at the ids key; the document is invalid and its type is dropped', async () => {
    const app = schema('Org::Apps::App', ['Name', 'DatabaseName'], {
      traits: {
        references: [
          {
            typeName: 'Org::Data::Db',
            ids: { Nope: '/properties/DatabaseName', '/properties/Engine': '/properties/Name' },
          },
        ],
      },
    });
    const loaded = await load({ 'db.json': DB, 'app.json': app });
    const result = expectIn(loaded, 'app.json', [
      { rule: 'TP1013', pointer: '/traits/references/0/ids/Nope', line: lineOf(app, '"Nope"'), column: 11 },
    ]);
    assert.match(result.diagnostics[0]!.message, /Org::Data::Db property \/properties\/Nope/);
    assert.equal(loaded.valid, false);
    assert.deepEqual(result.types, []);
    assert.deepEqual(
      loaded.types.map((t) => t.typeName),
      ['Org::Data::Db'],
    );
  });

  test('in a manifest, against a loaded manifest type', async () => {
    const apps = [
      'namespace: Acme.Apps',
      'types:',
      '  apps:',
      '    description: An application.',
      '    x-typeplane-references:',
      '      - typeName: Acme.Data/caches',
      '        ids: { id: /properties/cache }',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema:',
      '          type: object',
      '          properties:',
      '            cache:',
      '              type: string',
      '',
    ].join('\n');
    const loaded = await load({ 'caches.yaml': CACHES, 'apps.yaml': apps });
    expectIn(loaded, 'apps.yaml', [
      { rule: 'TP1013', pointer: '/types/apps/x-typeplane-references/0/ids/id', line: 7, column: 16 },
    ]);
  });

  test('the property shorthand needs a referenced type with a single identifier', async () => {
    const apps = [
      'namespace: Acme.Apps',
      'types:',
      '  apps:',
      '    description: An application.',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema:',
      '          type: object',
      '          properties:',
      '            table:',
      '              type: string',
      '              x-typeplane-references: Org::Data::Table',
      '',
    ].join('\n');
    const loaded = await load({ 'table.json': TABLE, 'apps.yaml': apps });
    const result = expectIn(loaded, 'apps.yaml', [
      {
        rule: 'TP1013',
        pointer: '/types/apps/apiVersions/2025-01-01/schema/properties/table/x-typeplane-references',
        line: 12,
        column: 39,
      },
    ]);
    assert.match(
      result.diagnostics[0]!.message,
      /identified by 2 properties \(\/properties\/Db, \/properties\/Table\)/,
    );
  });

  test('relationshipRef targets are not checked: published schemas point some at undeclared properties', async () => {
    const app = schema('Org::Apps::App', ['Name'], {});
    const withRef = app.replace(
      '"Name": {\n      "type": "string"\n    }',
      '"Name": {\n      "type": "string",\n      "relationshipRef": { "typeName": "Org::Data::Db", "propertyPath": "/properties/Arn" }\n    }',
    );
    assert.notEqual(withRef, app);
    const loaded = await load({ 'db.json': DB, 'app.json': withRef });
    expectIn(loaded, 'app.json', []);
    assert.equal(loaded.types.length, 2);
  });
});

describe('TP1014: without ids, the referenced type’s identifiers must be same-named members', () => {
  test('a resource schema missing one part of a compound identifier', async () => {
    const app = schema('Org::Apps::App', ['Name', 'Db'], {
      traits: { references: [{ typeName: 'Org::Data::Table' }] },
    });
    const loaded = await load({ 'table.json': TABLE, 'app.json': app });
    const result = expectIn(loaded, 'app.json', [
      {
        rule: 'TP1014',
        pointer: '/traits/references/0/typeName',
        line: lineOf(app, '"Org::Data::Table"'),
        column: 21,
      },
    ]);
    assert.match(
      result.diagnostics[0]!.message,
      /identifier \/properties\/Table must be a property of the same name here/,
    );
    assert.equal(loaded.valid, false);
  });

  test('a manifest (identified by name) referring implicitly to a type identified by Name', async () => {
    const apps = [
      'namespace: Acme.Apps',
      'types:',
      '  apps:',
      '    description: An application.',
      '    x-typeplane-references: [{ typeName: Org::Data::Db }]',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema: { type: object, properties: { size: { type: string } } }',
      '',
    ].join('\n');
    const loaded = await load({ 'db.json': DB, 'apps.yaml': apps });
    expectIn(loaded, 'apps.yaml', [
      { rule: 'TP1014', pointer: '/types/apps/x-typeplane-references/0/typeName', line: 5, column: 42 },
    ]);
  });
});

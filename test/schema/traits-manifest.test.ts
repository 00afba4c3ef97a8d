/**
 * Modelling traits in manifests: the type-level `x-typeplane-noReplace` and `x-typeplane-references`,
 * the property-level `x-typeplane-references: <type>` shorthand, the rules that check them (TP3018,
 * TP3019) and what they normalise to in `ResourceType.traits`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertDiagnostics, assertOnly, validate } from './helpers.js';

const FILE = { file: 'apps.yaml' };

/**
 * A manifest with one type `apps` whose type-level extras are `extras` (line 5 on), and whose one
 * version's schema declares `database` and `tags` (a list of strings) plus `properties`.
 */
function manifest(extras: string[] = [], properties: string[] = []): string {
  return [
    'namespace: Acme.Apps',
    'types:',
    '  apps:',
    '    description: An application.',
    ...extras.map((l) => '    ' + l),
    '    apiVersions:',
    "      '2025-01-01':",
    '        schema:',
    '          type: object',
    '          properties:',
    '            database:',
    '              type: string',
    '            tags:',
    '              type: array',
    '              items:',
    '                type: string',
    ...properties.map((l) => '            ' + l),
    '',
  ].join('\n');
}

function traitsOf(text: string) {
  const result = validate(text, FILE);
  assert.deepEqual(result.diagnostics, []);
  assert.equal(result.types.length, 1);
  return result.types[0]!.traits;
}

describe('manifest traits: the model', () => {
  test('without extensions: noReplace is false and there are no references', () => {
    assert.deepEqual(traitsOf(manifest()), { noReplace: false, references: [] });
  });

  test('x-typeplane-noReplace true and false', () => {
    assert.equal(traitsOf(manifest(['x-typeplane-noReplace: true'])).noReplace, true);
    assert.equal(traitsOf(manifest(['x-typeplane-noReplace: false'])).noReplace, false);
  });

  test('x-typeplane-references: ids keys become pointers; without ids the mapping is implicit', () => {
    const traits = traitsOf(
      manifest([
        'x-typeplane-references:',
        '  - typeName: Typeplane.Data/postgresDatabases',
        '    ids: { name: /properties/database }',
        '  - typeName: Org::Data::Db',
        "    ids: { '/properties/Name': /properties/database, Region: /properties/name }",
        '  - typeName: Acme.Apps/apps',
      ]),
    );
    assert.deepEqual(traits.references, [
      {
        typeName: 'Typeplane.Data/postgresDatabases',
        ids: [{ target: '/properties/name', member: '/properties/database' }],
      },
      {
        typeName: 'Org::Data::Db',
        ids: [
          { target: '/properties/Name', member: '/properties/database' },
          { target: '/properties/Region', member: '/properties/name' },
        ],
      },
      { typeName: 'Acme.Apps/apps', ids: [] },
    ]);
  });

  test('the property shorthand: one id whose target is the referenced type’s single identifier', () => {
    const text = manifest(
      ['x-typeplane-references:', '  - typeName: Org::Data::Db', '    ids: { Name: /properties/database }'],
      [
        'primary:',
        '  type: string',
        '  x-typeplane-references: Typeplane.Data/postgresDatabases',
        'replicas:',
        '  type: array',
        '  items:',
        '    type: string',
        '    x-typeplane-references: Typeplane.Data/postgresDatabases',
        'network:',
        '  type: object',
        '  properties:',
        '    cache:',
        '      type: string',
        '      x-typeplane-references: Acme.Data/caches',
      ],
    );
    const result = validate(text, FILE);
    assert.deepEqual(result.diagnostics, []);
    const type = result.types[0]!;
    assert.deepEqual(type.traits.references, [
      {
        typeName: 'Org::Data::Db',
        ids: [{ target: '/properties/Name', member: '/properties/database' }],
      },
      { typeName: 'Typeplane.Data/postgresDatabases', ids: [{ target: '', member: '/properties/primary' }] },
      {
        typeName: 'Typeplane.Data/postgresDatabases',
        ids: [{ target: '', member: '/properties/replicas/*' }],
      },
      { typeName: 'Acme.Data/caches', ids: [{ target: '', member: '/properties/network/cache' }] },
    ]);
    // The mark leaves the model schema.
    const properties = type.schema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(properties.primary, { type: 'string' });
    assert.deepEqual(properties.replicas, { type: 'array', items: { type: 'string' } });
  });

  test('type-level traits apply to every API version', () => {
    const text = manifest([
      'x-typeplane-noReplace: true',
      'x-typeplane-references: [{ typeName: Org::Data::Db }]',
    ]).replace(
      "    apiVersions:\n      '2025-01-01':\n",
      "    apiVersions:\n      '2024-01-01':\n        schema: { type: object, properties: { database: { type: string } } }\n      '2025-01-01':\n",
    );
    const result = validate(text, FILE);
    assert.deepEqual(result.diagnostics, []);
    assert.deepEqual(
      result.types.map((t) => [t.apiVersion, t.traits]),
      [
        ['2024-01-01', { noReplace: true, references: [{ typeName: 'Org::Data::Db', ids: [] }] }],
        ['2025-01-01', { noReplace: true, references: [{ typeName: 'Org::Data::Db', ids: [] }] }],
      ],
    );
  });
});

describe('TP3018: malformed manifest traits', () => {
  test('x-typeplane-noReplace must be true or false', () => {
    const d = assertOnly(validate(manifest(['x-typeplane-noReplace: maybe']), FILE), {
      rule: 'TP3018',
      pointer: '/types/apps/x-typeplane-noReplace',
      line: 5,
      column: 28,
    });
    assert.match(d.message, /true or false, not/);
  });

  test('x-typeplane-references must be a list', () => {
    assertOnly(validate(manifest(['x-typeplane-references: Org::Data::Db']), FILE), {
      rule: 'TP3018',
      pointer: '/types/apps/x-typeplane-references',
      line: 5,
      column: 29,
    });
  });

  test('each reference needs a typeName that names a type', () => {
    assertDiagnostics(
      validate(
        manifest([
          'x-typeplane-references:',
          '  - ids: { name: /properties/database }',
          '  - typeName: databases',
          '  - just a string',
        ]),
        FILE,
      ),
      [
        { rule: 'TP3018', pointer: '/types/apps/x-typeplane-references/0', line: 6, column: 9 },
        { rule: 'TP3018', pointer: '/types/apps/x-typeplane-references/1', line: 7, column: 9 },
        { rule: 'TP3018', pointer: '/types/apps/x-typeplane-references/2', line: 8, column: 9 },
      ],
    );
  });

  test('an unknown key in a reference is located at its name', () => {
    const d = assertOnly(
      validate(
        manifest([
          'x-typeplane-references:',
          '  - typeName: Org::Data::Db',
          '    identifiers: { Name: /properties/database }',
        ]),
        FILE,
      ),
      { rule: 'TP3018', pointer: '/types/apps/x-typeplane-references/0/identifiers', line: 7, column: 9 },
    );
    assert.match(d.message, /unknown key 'identifiers'/);
  });

  test('ids must be a non-empty mapping', () => {
    for (const ids of ['{}', '[name]', '/properties/database']) {
      assertOnly(
        validate(
          manifest(['x-typeplane-references:', '  - typeName: Org::Data::Db', `    ids: ${ids}`]),
          FILE,
        ),
        { rule: 'TP3018', pointer: '/types/apps/x-typeplane-references/0/ids', line: 7, column: 14 },
      );
    }
  });

  test('an ids key must be a property name or a /properties pointer: located at the key', () => {
    const d = assertOnly(
      validate(
        manifest([
          'x-typeplane-references:',
          '  - typeName: Org::Data::Db',
          '    ids: { properties/Name: /properties/database }',
        ]),
        FILE,
      ),
      {
        rule: 'TP3018',
        pointer: '/types/apps/x-typeplane-references/0/ids/properties~1Name',
        line: 7,
        column: 16,
      },
    );
    assert.match(d.message, /'properties\/Name' must name a property of the referenced type/);
  });

  test('the property shorthand must name a type', () => {
    assertDiagnostics(
      validate(
        manifest(
          [],
          [
            'a:',
            '  type: string',
            '  x-typeplane-references: 42',
            'b:',
            '  type: string',
            '  x-typeplane-references: postgresDatabases',
          ],
        ),
        FILE,
      ),
      [
        {
          rule: 'TP3018',
          pointer: '/types/apps/apiVersions/2025-01-01/schema/properties/a/x-typeplane-references',
          line: 18,
          column: 39,
        },
        {
          rule: 'TP3018',
          pointer: '/types/apps/apiVersions/2025-01-01/schema/properties/b/x-typeplane-references',
          line: 21,
          column: 39,
        },
      ],
    );
  });
});

describe('TP3019: a reference member is a property of the type', () => {
  test('an undeclared member is located at its value', () => {
    const d = assertOnly(
      validate(
        manifest([
          'x-typeplane-references:',
          '  - typeName: Org::Data::Db',
          '    ids: { Name: /properties/db }',
        ]),
        FILE,
      ),
      { rule: 'TP3019', pointer: '/types/apps/x-typeplane-references/0/ids/Name', line: 7, column: 22 },
    );
    assert.match(d.message, /'\/properties\/db' is not a property of this type/);
  });

  test('members are top-level /properties pointers; name (the identifier) is always one', () => {
    assertDiagnostics(
      validate(
        manifest([
          'x-typeplane-references:',
          '  - typeName: Org::Data::Db',
          '    ids: { Name: /properties/name, Tag: /properties/tags/*, Db: database }',
        ]),
        FILE,
      ),
      [
        { rule: 'TP3019', pointer: '/types/apps/x-typeplane-references/0/ids/Tag', line: 7, column: 45 },
        { rule: 'TP3019', pointer: '/types/apps/x-typeplane-references/0/ids/Db', line: 7, column: 69 },
      ],
    );
  });

  test('a member must be declared by every API version', () => {
    const text = manifest([
      'x-typeplane-references:',
      '  - typeName: Org::Data::Db',
      '    ids: { Name: /properties/database }',
    ]).replace(
      "    apiVersions:\n      '2025-01-01':\n",
      "    apiVersions:\n      '2024-01-01':\n        schema: { type: object, properties: { db: { type: string } } }\n      '2025-01-01':\n",
    );
    assertOnly(validate(text, FILE), {
      rule: 'TP3019',
      pointer: '/types/apps/x-typeplane-references/0/ids/Name',
      line: 7,
      column: 22,
    });
  });
});

/**
 * Each manifest rule, triggered by a minimal document: the rule id, severity, pointer and the
 * line:column the diagnostic points at.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RULES, type Diagnostic } from '../../src/schema/diagnostics.js';
import { validateDocument } from '../../src/schema/validate.js';

const lines = (...text: string[]) => text.join('\n') + '\n';

/**
 * A valid manifest with `schemaLines` as the schema of widgets@2025-01-01. The schema starts on
 * line 8, indented by 10 spaces, so schema line k is document line 7 + k.
 */
function manifest(...schemaLines: string[]): string {
  return lines(
    'namespace: Test.Area', // 1
    'types:', // 2
    '  widgets:', // 3
    '    description: A widget.', // 4
    '    apiVersions:', // 5
    "      '2025-01-01':", // 6
    '        schema:', // 7
    ...schemaLines.map((l) => ' '.repeat(10) + l),
  );
}

const SCHEMA = '/types/widgets/apiVersions/2025-01-01/schema';

function check(text: string) {
  return validateDocument(text, { file: 'x.yaml' });
}

/** The document has exactly one diagnostic, and it is this one. */
function expectOnly(
  text: string,
  rule: keyof typeof RULES,
  pointer: string,
  line: number,
  column: number,
): Diagnostic {
  const result = check(text);
  assert.equal(result.dialect, 'manifest');
  assert.equal(
    result.diagnostics.length,
    1,
    `expected one diagnostic, got ${JSON.stringify(result.diagnostics, null, 2)}`,
  );
  const d = result.diagnostics[0]!;
  assert.deepEqual(
    { rule: d.rule, severity: d.severity, pointer: d.pointer, line: d.line, column: d.column, file: d.file },
    { rule, severity: RULES[rule].severity, pointer, line, column, file: 'x.yaml' },
  );
  assert.ok(d.message.length > 20, 'the message says what is wrong and how to fix it');
  assert.equal(result.valid, RULES[rule].severity !== 'error');
  if (RULES[rule].severity === 'error') assert.deepEqual(result.types, []);
  return d;
}

describe('manifest rules', () => {
  test('the base document is valid', () => {
    const result = check(manifest('type: object', 'properties:', '  size:', '    type: string'));
    assert.deepEqual(result.diagnostics, []);
    assert.equal(result.valid, true);
    assert.equal(result.types.length, 1);
  });

  test('TP1010: types is not a mapping', () => {
    expectOnly(lines('namespace: Test.Area', 'types: [widgets]'), 'TP1010', '/types', 2, 8);
  });

  test('TP3001: namespace without a dot', () => {
    const d = expectOnly(
      manifest('type: object').replace('namespace: Test.Area', 'namespace: TestArea'),
      'TP3001',
      '/namespace',
      1,
      12,
    );
    assert.match(d.message, /Radius\.Data/);
  });

  test('TP3001: both namespace and name', () => {
    expectOnly('name: Test.Area\n' + manifest('type: object'), 'TP3001', '/name', 1, 1);
  });

  test('TP3001: the older name form is checked the same way', () => {
    expectOnly(
      manifest('type: object').replace('namespace: Test.Area', 'name: Test..Area'),
      'TP3001',
      '/name',
      1,
      7,
    );
  });

  test('TP3021 (warning): a type without description', () => {
    const text = manifest('type: object').replace('    description: A widget.\n', '');
    // The type's mapping starts with its first key, apiVersions on line 4.
    expectOnly(text, 'TP3021', '/types/widgets', 4, 5);
  });

  test('TP3002: neither namespace nor name', () => {
    expectOnly(manifest('type: object').replace('namespace: Test.Area\n', ''), 'TP3002', '', 1, 1);
  });

  test('TP3002: an API version without schema', () => {
    expectOnly(
      lines(
        'namespace: Test.Area',
        'types:',
        '  widgets:',
        '    description: A widget.',
        '    apiVersions:',
        "      '2025-01-01': {}",
      ),
      'TP3002',
      '/types/widgets/apiVersions/2025-01-01',
      6,
      21,
    );
  });

  test('TP3003: unknown top-level key', () => {
    const d = expectOnly(manifest('type: object') + 'tpyes: {}\n', 'TP3003', '/tpyes', 9, 1);
    assert.match(d.message, /did you mean 'types'/);
  });

  test('TP3003: unknown type-level key', () => {
    const text = manifest('type: object').replace(
      '    description: A widget.\n',
      '    description: A widget.\n    summary: x\n',
    );
    expectOnly(text, 'TP3003', '/types/widgets/summary', 5, 5);
  });

  test('TP3004: type name not camelCase', () => {
    expectOnly(
      manifest('type: object').replace('  widgets:', '  Widgets:'),
      'TP3004',
      '/types/Widgets',
      3,
      3,
    );
  });

  test('TP3005: API version that is not a real date', () => {
    const d = expectOnly(
      manifest('type: object').replace('2025-01-01', '2025-02-30'),
      'TP3005',
      '/types/widgets/apiVersions/2025-02-30',
      6,
      7,
    );
    assert.match(d.message, /no day 30/);
  });

  test('TP3005: API version with another suffix', () => {
    expectOnly(
      manifest('type: object').replace('2025-01-01', '2025-01-01-beta'),
      'TP3005',
      '/types/widgets/apiVersions/2025-01-01-beta',
      6,
      7,
    );
  });

  test('TP3006: schema root that is not an object', () => {
    expectOnly(manifest('type: string'), 'TP3006', `${SCHEMA}/type`, 8, 17);
  });

  test('TP3007: property without type', () => {
    expectOnly(
      manifest('type: object', 'properties:', '  size:', '    description: How big.'),
      'TP3007',
      `${SCHEMA}/properties/size`,
      11,
      15,
    );
  });

  test('TP3007: array items without type', () => {
    expectOnly(
      manifest(
        'type: object',
        'properties:',
        '  tags:',
        '    type: array',
        '    items:',
        '      description: A tag.',
      ),
      'TP3007',
      `${SCHEMA}/properties/tags/items`,
      13,
      17,
    );
  });

  test('TP3007: type that is not a type name', () => {
    const d = expectOnly(
      manifest('type: object', 'properties:', '  ratio:', '    type: float'),
      'TP3007',
      `${SCHEMA}/properties/ratio/type`,
      11,
      21,
    );
    assert.match(d.message, /type: number with format: float/);
  });

  test('TP3008: oneOf', () => {
    expectOnly(
      manifest(
        'type: object',
        'properties:',
        '  size:',
        '    type: string',
        '    oneOf:',
        '      - enum: [S]',
        '      - enum: [M]',
      ),
      'TP3008',
      `${SCHEMA}/properties/size/oneOf`,
      12,
      15,
    );
  });

  test('TP3009: $ref to something other than a built-in schema', () => {
    const d = expectOnly(
      manifest('type: object', 'properties:', '  size:', "    $ref: '#/definitions/Size'"),
      'TP3009',
      `${SCHEMA}/properties/size/$ref`,
      11,
      21,
    );
    assert.match(d.message, /typeplane:Tag/);
  });

  test('TP3010: properties together with additionalProperties', () => {
    expectOnly(
      manifest(
        'type: object',
        'properties:',
        '  labels:',
        '    type: object',
        '    properties:',
        '      a: { type: string }',
        '    additionalProperties:',
        '      type: string',
      ),
      'TP3010',
      `${SCHEMA}/properties/labels/additionalProperties`,
      14,
      15,
    );
  });

  test('TP3011: unknown keyword, with a suggestion', () => {
    const d = expectOnly(
      manifest('type: object', 'properties:', '  size:', '    type: string', '    maxlength: 3'),
      'TP3011',
      `${SCHEMA}/properties/size/maxlength`,
      12,
      15,
    );
    assert.match(d.message, /did you mean 'maxLength'/);
  });

  test('TP3011: JSON Schema keyword outside the manifest subset', () => {
    const d = expectOnly(
      manifest(
        'type: object',
        'properties:',
        '  labels:',
        '    type: object',
        '    patternProperties:',
        '      "^a": { type: string }',
      ),
      'TP3011',
      `${SCHEMA}/properties/labels/patternProperties`,
      12,
      15,
    );
    assert.match(d.message, /additionalProperties/);
  });

  test('TP3012: capability not in PascalCase', () => {
    const text = manifest('type: object').replace(
      '    description: A widget.\n',
      '    description: A widget.\n    capabilities: [supportsRecipes]\n',
    );
    expectOnly(text, 'TP3012', '/types/widgets/capabilities/0', 5, 20);
  });

  test('TP3012: capabilities not a list', () => {
    const text = manifest('type: object').replace(
      '    description: A widget.\n',
      '    description: A widget.\n    capabilities: SupportsRecipes\n',
    );
    expectOnly(text, 'TP3012', '/types/widgets/capabilities', 5, 19);
  });

  test('TP3013: negative minLength', () => {
    expectOnly(
      manifest('type: object', 'properties:', '  code:', '    type: string', '    minLength: -1'),
      'TP3013',
      `${SCHEMA}/properties/code/minLength`,
      12,
      26,
    );
  });

  test('TP3013: enum that is not a list', () => {
    expectOnly(
      manifest('type: object', 'properties:', '  size:', '    type: string', '    enum: S'),
      'TP3013',
      `${SCHEMA}/properties/size/enum`,
      12,
      21,
    );
  });

  test('TP3013: readOnly that is not a boolean', () => {
    expectOnly(
      manifest('type: object', 'properties:', '  host:', '    type: string', '    readOnly: "yes"'),
      'TP3013',
      `${SCHEMA}/properties/host/readOnly`,
      12,
      25,
    );
  });

  test('TP3013: pattern that is not a valid regular expression', () => {
    const d = expectOnly(
      manifest('type: object', 'properties:', '  code:', '    type: string', "    pattern: '[a-z'"),
      'TP3013',
      `${SCHEMA}/properties/code/pattern`,
      12,
      24,
    );
    assert.match(d.message, /regular expression/);
  });

  test('TP3013: default of the wrong type', () => {
    const d = expectOnly(
      manifest('type: object', 'properties:', '  version:', '    type: string', '    default: 8.4'),
      'TP3013',
      `${SCHEMA}/properties/version/default`,
      12,
      24,
    );
    assert.match(d.message, /quote it/);
  });

  test('TP3024 (warning): keyword that does not apply to the type', () => {
    expectOnly(
      manifest('type: object', 'properties:', '  port:', '    type: integer', '    maxLength: 5'),
      'TP3024',
      `${SCHEMA}/properties/port/maxLength`,
      12,
      15,
    );
  });

  test('TP3014: top-level property called name', () => {
    expectOnly(
      manifest('type: object', 'properties:', '  name:', '    type: string'),
      'TP3014',
      `${SCHEMA}/properties/name`,
      10,
      13,
    );
  });

  test('TP3014 applies to the top level only', () => {
    const result = check(
      manifest(
        'type: object',
        'properties:',
        '  owner:',
        '    type: object',
        '    properties:',
        '      name: { type: string }',
      ),
    );
    assert.deepEqual(result.diagnostics, []);
  });

  test('TP3015: required lists an undeclared property', () => {
    const d = expectOnly(
      manifest('type: object', 'properties:', '  size:', '    type: string', 'required: [szie]'),
      'TP3015',
      `${SCHEMA}/required/0`,
      12,
      22,
    );
    assert.match(d.message, /did you mean 'size'/);
  });

  test('TP3016: property name with punctuation', () => {
    expectOnly(
      manifest('type: object', 'properties:', '  "my.size":', '    type: string'),
      'TP3016',
      `${SCHEMA}/properties/my.size`,
      10,
      13,
    );
  });

  test('TP3017: unknown format is a warning; the document stays valid', () => {
    const text = manifest(
      'type: object',
      'properties:',
      '  colour:',
      '    type: string',
      '    format: colour',
    );
    expectOnly(text, 'TP3017', `${SCHEMA}/properties/colour/format`, 12, 23);
    assert.equal(check(text).types.length, 1);
  });
});

describe('manifest rules: Radius forms and edge cases', () => {
  test('defaultApiVersion and location (Radius manifest keys) are accepted', () => {
    const text = manifest('type: object')
      .replace('    apiVersions:', "    defaultApiVersion: '2025-01-01'\n    apiVersions:")
      .replace('types:', 'location:\n  global: http://localhost:8080\ntypes:');
    assert.deepEqual(check(text).diagnostics, []);
  });

  test('TP3005: defaultApiVersion that is not one of the versions', () => {
    const text = manifest('type: object').replace(
      '    apiVersions:',
      "    defaultApiVersion: '2024-01-01'\n    apiVersions:",
    );
    expectOnly(text, 'TP3005', '/types/widgets/defaultApiVersion', 5, 24);
  });

  test('TP3020 (warning): empty types', () => {
    expectOnly(lines('namespace: Test.Area', 'types: {}'), 'TP3020', '/types', 2, 8);
  });

  test('TP3006: $ref at the schema root', () => {
    expectOnly(manifest("$ref: 'typeplane:RecipeStatus'"), 'TP3006', `${SCHEMA}/$ref`, 8, 11);
  });

  test('TP3007: additionalProperties: true leaves the values untyped', () => {
    expectOnly(
      manifest('type: object', 'properties:', '  bag:', '    type: object', '    additionalProperties: true'),
      'TP3007',
      `${SCHEMA}/properties/bag/additionalProperties`,
      12,
      37,
    );
  });

  test("TP3007: type: any outside platformOptions' values", () => {
    const d = expectOnly(
      manifest(
        'type: object',
        'properties:',
        '  bag:',
        '    type: object',
        '    additionalProperties:',
        '      type: any',
      ),
      'TP3007',
      `${SCHEMA}/properties/bag/additionalProperties/type`,
      13,
      23,
    );
    assert.match(d.message, /platformOptions/);
  });

  test('TP3011: keyword next to $ref', () => {
    expectOnly(
      manifest('type: object', 'properties:', '  tags:', "    $ref: 'typeplane:Tags'", '    type: array'),
      'TP3011',
      `${SCHEMA}/properties/tags/type`,
      12,
      15,
    );
  });

  test('TP3025 (warning): read-only and sensitive at once', () => {
    expectOnly(
      manifest(
        'type: object',
        'properties:',
        '  key:',
        '    type: string',
        '    readOnly: true',
        '    x-radius-sensitive: true',
      ),
      'TP3025',
      `${SCHEMA}/properties/key/x-radius-sensitive`,
      13,
      35,
    );
  });

  test('TP3013: items that is a list of schemas', () => {
    expectOnly(
      manifest('type: object', 'properties:', '  pair:', '    type: array', '    items: [{ type: string }]'),
      'TP3013',
      `${SCHEMA}/properties/pair/items`,
      12,
      22,
    );
  });

  test('TP3013: maximum below minimum', () => {
    expectOnly(
      manifest(
        'type: object',
        'properties:',
        '  n:',
        '    type: integer',
        '    minimum: 5',
        '    maximum: 1',
      ),
      'TP3013',
      `${SCHEMA}/properties/n/maximum`,
      13,
      24,
    );
  });
});

describe('one pass', () => {
  test('every problem in the document is reported, in document order', () => {
    const text = lines(
      'namespace: test', // 1: TP3001
      'types:',
      '  Widgets:', // 3: TP3004
      '    description: A widget.',
      '    apiVersions:',
      "      '2025-13-01':", // 6: TP3005
      '        schema:',
      '          type: object',
      '          properties:',
      '            size:', // 10: TP3007
      '              description: How big.',
      '            name:', // 12: TP3014
      '              type: string',
      '          required: [colour]', // 14: TP3015
    );
    const result = check(text);
    assert.deepEqual(
      result.diagnostics.map((d) => `${d.line}:${d.column} ${d.rule}`),
      ['1:12 TP3001', '3:3 TP3004', '6:7 TP3005', '11:15 TP3007', '12:13 TP3014', '14:22 TP3015'],
    );
  });

  test('problems in several types and versions are all reported', () => {
    const text = lines(
      'namespace: Test.Area',
      'types:',
      '  aa:',
      '    description: A.',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema: { type: string }',
      '  bb:',
      '    description: B.',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema: { type: object, properties: { x: { type: thing } } }',
      "      '2025-02-01':",
      '        schema: { type: object, allOf: [] }',
    );
    assert.deepEqual(
      check(text).diagnostics.map((d) => `${d.rule} ${d.pointer}`),
      [
        'TP3006 /types/aa/apiVersions/2025-01-01/schema/type',
        'TP3007 /types/bb/apiVersions/2025-01-01/schema/properties/x/type',
        'TP3008 /types/bb/apiVersions/2025-02-01/schema/allOf',
      ],
    );
  });
});

/**
 * Hostile manifests: values of the wrong kind anywhere, alias cycles, odd keys. Each yields
 * diagnostics with catalogued rule ids, never an exception.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { RULES } from '../../src/schema/diagnostics.js';
import { checkManifest } from '../../src/schema/manifest/index.js';
import { validateDocument } from '../../src/schema/validate.js';

const valid = () => ({
  namespace: 'Test.Area',
  types: {
    widgets: {
      description: 'A widget.',
      capabilities: ['SupportsRecipes'],
      apiVersions: {
        '2025-01-01': {
          schema: {
            type: 'object',
            properties: {
              size: { type: 'string', enum: ['S', 'M'], default: 'S', minLength: 1 },
              labels: { type: 'object', additionalProperties: { type: 'string' } },
              ports: { type: 'array', items: { type: 'integer', minimum: 1 } },
              status: { type: 'object', readOnly: true, properties: { host: { type: 'string' } } },
            },
            required: ['size'],
          },
        },
      },
    },
  },
});

/** Every path to a value inside `value`. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  const out = [prefix];
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) out.push(...paths(child, [...prefix, key]));
  }
  return out;
}

function replaceAt(root: unknown, path: string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  let node = root as Record<string, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path.at(-1)!] = replacement;
  return root;
}

function expectDiagnosticsOnly(document: unknown): void {
  const result = checkManifest(document, 'hostile.yaml');
  for (const finding of result.findings) {
    assert.ok(Object.hasOwn(RULES, finding.rule), `rule ${finding.rule} is catalogued`);
    assert.equal(finding.severity, RULES[finding.rule as keyof typeof RULES].severity);
    assert.equal(typeof finding.pointer, 'string');
    assert.ok(finding.pointer === '' || finding.pointer.startsWith('/'));
  }
  if (result.findings.some((f) => f.severity === 'error')) assert.deepEqual(result.types, []);
}

describe('hostile manifests', () => {
  test('the base document is valid', () => {
    const result = checkManifest(valid());
    assert.deepEqual(result.findings, []);
    assert.equal(result.types.length, 1);
  });

  test('any value of any kind at any place gives diagnostics, never an exception', () => {
    const all = paths(valid());
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: all.length - 1 }),
        fc.jsonValue({ maxDepth: 3 }),
        (i, replacement) => {
          const document = replaceAt(valid(), all[i]!, replacement);
          expectDiagnosticsOnly(document);
          // Through the located path too (JSON text, so every value survives the round trip).
          const text = JSON.stringify(document);
          if (
            text !== undefined &&
            typeof document === 'object' &&
            document !== null &&
            'types' in document
          ) {
            for (const d of validateDocument(text, { file: 'hostile.json' }).diagnostics)
              assert.equal(typeof d.line, 'number');
          }
        },
      ),
      { numRuns: 600 },
    );
  });

  test('documents of every kind', () => {
    for (const document of [
      null,
      undefined,
      0,
      'types',
      [],
      [{ types: {} }],
      {},
      { types: null },
      { types: 'x' },
      { namespace: {}, types: [] },
    ]) {
      expectDiagnosticsOnly(document);
      assert.ok(checkManifest(document).findings.length > 0, JSON.stringify(document));
    }
  });

  test('a schema that contains itself through a YAML alias is refused as endlessly nested', () => {
    const text = [
      'namespace: Test.Area',
      'types:',
      '  widgets:',
      '    description: A widget.',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema:',
      '          type: object',
      '          properties:',
      '            node: &node',
      '              type: object',
      '              properties:',
      '                child: *node',
      '',
    ].join('\n');
    const result = validateDocument(text, { file: 'cycle.yaml' });
    assert.deepEqual(
      result.diagnostics.map((d) => [d.rule, d.pointer]),
      [['TP1007', '']],
    );
  });

  test('a default that contains itself is reported', () => {
    const value: unknown[] = [];
    value.push(value);
    const document = valid();
    const size = document.types.widgets.apiVersions['2025-01-01'].schema.properties.ports as Record<
      string,
      unknown
    >;
    size.default = value;
    assert.deepEqual(
      checkManifest(document).findings.map((f) => [f.rule, f.pointer]),
      [['TP3013', '/types/widgets/apiVersions/2025-01-01/schema/properties/ports/default']],
    );
  });

  test('schemas shared through aliases are checked at each place they appear', () => {
    const text = [
      'namespace: Test.Area',
      'types:',
      '  widgets:',
      '    description: A widget.',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema:',
      '          type: object',
      '          properties:',
      '            a: &bad { type: strin }',
      '            b: *bad',
      '',
    ].join('\n');
    assert.deepEqual(
      validateDocument(text, { file: 'alias.yaml' }).diagnostics.map(
        (d) => `${d.line}:${d.column} ${d.pointer}`,
      ),
      [
        '10:29 /types/widgets/apiVersions/2025-01-01/schema/properties/a/type',
        // The alias has no node of its own below it: the nearest one, the alias, is shown.
        '11:16 /types/widgets/apiVersions/2025-01-01/schema/properties/b/type',
      ],
    );
  });

  test('keys that are names of Object.prototype members are ordinary keys', () => {
    const document = valid();
    const schema = document.types.widgets.apiVersions['2025-01-01'].schema;
    Object.assign(schema.properties, { constructor: { type: 'string' }, toString: { type: 'string' } });
    schema.required = ['size', 'hasOwnProperty'];
    const result = checkManifest(document);
    assert.deepEqual(
      result.findings.map((f) => [f.rule, f.pointer]),
      [['TP3015', '/types/widgets/apiVersions/2025-01-01/schema/required/1']],
    );
  });

  test('very long names are shortened in messages', () => {
    const long = 'x'.repeat(10_000);
    const result = checkManifest({
      namespace: long,
      types: { [long]: { description: 'x', apiVersions: { [long]: { schema: { type: 'object' } } } } },
    });
    assert.deepEqual(
      result.findings.map((f) => f.rule),
      ['TP3001', 'TP3004', 'TP3005'],
    );
    for (const f of result.findings) assert.ok(f.message.length < 400, f.message.slice(0, 100));
  });

  test('a JSON manifest repeating keys thousands of times: 20 located diagnostics, found in one pass', () => {
    const types = Array.from({ length: 50_000 }, () => '"widgets": {}').join(', ');
    const text = `{ "namespace": "Test.Area", "types": { ${types} }, "\\u006eamespace": "Test.Area" }`;
    const started = performance.now();
    const result = validateDocument(text, { file: 'x.json' });
    assert.ok(performance.now() - started < 5000, 'bounded');
    const repeats = result.diagnostics.filter((d) => d.rule === 'TP1005');
    assert.equal(repeats.length, 20);
    for (const d of repeats) {
      assert.equal(d.pointer, '/types/widgets');
      assert.ok(d.line === 1 && d.column !== undefined, 'located');
    }
    assert.equal(result.valid, false);
  });

  test('keys spelt with escapes repeat the keys they spell', () => {
    const text = '{ "namespace": "Test.Area", "\\u006eamespace": "Test.Area", "types": {} }';
    const result = validateDocument(text, { file: 'x.json' });
    assert.deepEqual(
      result.diagnostics.filter((d) => d.rule === 'TP1005').map((d) => `${d.pointer} ${d.line}:${d.column}`),
      ['/namespace 1:29'],
    );
  });
});

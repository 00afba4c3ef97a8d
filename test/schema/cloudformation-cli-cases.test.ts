/**
 * The cases of cloudformation-cli's own schema test data (`tests/data/schema/invalid` and `valid`),
 * each mirrored by a fixture of ours: every invalid one is refused with a located diagnostic under
 * the rule it breaks; every valid one that breaks no semantic rule is accepted.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { RuleId } from '../../src/schema/diagnostics.js';
import { validateDocument } from '../../src/schema/validate.js';
import { pretty, schemaWith } from './helpers.js';

const fixtures = fileURLToPath(new URL('../fixtures/cloudformation-cli-cases/', import.meta.url));

/** Each invalid case and the rule (with the line it is reported on) that refuses it. */
const INVALID: Record<string, { rule: RuleId; line: number; says?: RegExp }> = {
  'additional-items': { rule: 'TP2025', line: 13 },
  'additional-properties-schema': { rule: 'TP2023', line: 10 },
  'additional-properties-true': { rule: 'TP2023', line: 10 },
  'boolean-property': { rule: 'TP1010', line: 8 },
  'definition-name-invalid': { rule: 'TP2026', line: 13 },
  'definition-reference-invalid': { rule: 'TP2015', line: 9 },
  'extraneous-top-level-key': { rule: 'TP2003', line: 12 },
  'handler-definitions': { rule: 'TP2030', line: 13 },
  'items-list': { rule: 'TP2025', line: 10 },
  'nested-object-additional-properties-true': { rule: 'TP2023', line: 15 },
  'no-description': { rule: 'TP2002', line: 1, says: /'description'/ },
  'no-primary-identifier': { rule: 'TP2002', line: 1, says: /'primaryIdentifier'/ },
  'no-properties-defined': { rule: 'TP1010', line: 4 },
  'no-type-const': { rule: 'TP2029', line: 9, says: /'const' needs a 'type'.*"type": "integer"/ },
  'no-type-enum': { rule: 'TP2029', line: 9, says: /'enum' needs a 'type'.*"type": "string"/ },
  'pattern-properties-additional-properties-true': { rule: 'TP2023', line: 23 },
  'properties-and-pattern-properties': { rule: 'TP2024', line: 13 },
  'property-name-invalid': { rule: 'TP2026', line: 8 },
  'property-not-an-object': { rule: 'TP1010', line: 8 },
  'property-type-invalid': { rule: 'TP1010', line: 9 },
  'remote-reserved-word': { rule: 'TP2003', line: 12 },
  'type-configuration-without-additional-properties': {
    rule: 'TP2035',
    line: 12,
    says: /must have 'additionalProperties'/,
  },
  'type-configuration-extraneous-keys': { rule: 'TP2035', line: 18, says: /unknown key 'definitions'/ },
  'type-configuration-reserved-name': { rule: 'TP2035', line: 14, says: /'CloudFormationRole'.*reserved/ },
  'type-name-invalid': { rule: 'TP2001', line: 2 },
};

function check(folder: 'invalid' | 'valid', name: string) {
  const file = `${folder}/${name}.json`;
  return validateDocument(readFileSync(fixtures + file), { file });
}

describe("cloudformation-cli's invalid schemas", () => {
  it('are all mirrored here (25 cases)', () => {
    const files = readdirSync(fixtures + 'invalid').map((f) => f.replace(/\.json$/, ''));
    assert.deepEqual(files.sort(), Object.keys(INVALID).sort());
    assert.equal(files.length, 25);
  });

  for (const [name, expected] of Object.entries(INVALID)) {
    it(`refuses ${name} under ${expected.rule}, located at line ${expected.line}`, () => {
      const result = check('invalid', name);
      assert.equal(result.valid, false);
      const found = result.diagnostics.find(
        (d) =>
          d.rule === expected.rule &&
          d.severity === 'error' &&
          (expected.says === undefined || expected.says.test(d.message)),
      );
      assert.ok(
        found,
        `${expected.rule} expected, got ${result.diagnostics.map((d) => `${d.rule} ${d.message}`).join('; ')}`,
      );
      assert.equal(found.file, `invalid/${name}.json`);
      assert.equal(found.line, expected.line, found.message);
      assert.ok(found.column !== undefined && found.column >= 1);
    });
  }
});

describe("cloudformation-cli's valid schemas that break no semantic rule", () => {
  for (const file of readdirSync(fixtures + 'valid').sort()) {
    const name = file.replace(/\.json$/, '');
    it(`accepts ${name}`, () => {
      const result = check('valid', name);
      assert.deepEqual(
        result.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.rule} ${d.message}`),
        [],
      );
      assert.equal(result.types.length, 1);
    });
  }
});

describe('typeConfiguration', () => {
  it('refuses a setting whose $ref points at no definition, at the $ref', () => {
    const text = pretty(
      schemaWith({
        typeConfiguration: {
          properties: { Credentials: { $ref: '#/definitions/Credentials' } },
          additionalProperties: false,
        },
      }),
    );
    const result = validateDocument(text, { file: 'x.json' });
    const found = result.diagnostics.find((d) => d.rule === 'TP2015');
    assert.equal(found?.pointer, '/typeConfiguration/properties/Credentials/$ref');
  });

  it('refuses an empty properties object and additionalProperties other than false', () => {
    const result = validateDocument(
      pretty(schemaWith({ typeConfiguration: { properties: {}, additionalProperties: true } })),
      { file: 'x.json' },
    );
    const messages = result.diagnostics.filter((d) => d.rule === 'TP2035').map((d) => d.message);
    assert.ok(
      messages.some((m) => /at least one setting/.test(m)),
      messages.join('; '),
    );
    assert.ok(
      messages.some((m) => /'additionalProperties' must be false/.test(m)),
      messages.join('; '),
    );
  });
});

describe('diagnostics of one file', () => {
  it('come in line order even when the checks find them in another order', () => {
    const result = check('invalid', 'type-configuration-extraneous-keys');
    // Two errors: the reserved name (line 18) is found after the unknown key (line 22).
    const lines = result.diagnostics.map((d) => d.line!);
    assert.ok(lines.length >= 2);
    assert.deepEqual(
      lines,
      [...lines].sort((a, b) => a - b),
    );
  });
});

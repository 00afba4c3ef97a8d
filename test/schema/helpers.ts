/**
 * Helpers for the schema toolkit tests: a valid minimal resource schema to start from, and exact
 * assertions on diagnostics (rule, severity, pointer, file:line:column).
 */
import assert from 'node:assert/strict';
import { RULES, type Diagnostic, type RuleId } from '../../src/schema/diagnostics.js';
import { validateDocument, type ValidateOptions, type ValidationResult } from '../../src/schema/validate.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The smallest resource schema that validates with no diagnostic at all. */
export function minimalSchema(): { [key: string]: Json } {
  return {
    typeName: 'Org::Service::Thing',
    description: 'A thing.',
    properties: {
      Name: { type: 'string' },
    },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
  };
}

/** `minimalSchema()` with top-level keys replaced (a key set to `undefined` is removed). */
export function schemaWith(overrides: { [key: string]: Json | undefined }): { [key: string]: Json } {
  const schema = minimalSchema();
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete schema[key];
    else schema[key] = value;
  }
  return schema;
}

/** Pretty-printed JSON text (two-space indent), so line and column are predictable. */
export function pretty(value: Json): string {
  return JSON.stringify(value, null, 2) + '\n';
}

export function validate(
  text: string | Uint8Array,
  options: ValidateOptions = { file: 'x.json' },
): ValidationResult {
  return validateDocument(text, options);
}

export interface Expected {
  rule: RuleId;
  pointer: string;
  line: number;
  column: number;
  /** Defaults to the rule's severity in the catalogue. */
  severity?: 'error' | 'warning';
  file?: string;
}

/** `file:line:column rule severity pointer`, the form assertions compare (readable when they fail). */
export function summary(d: Diagnostic): string {
  return `${d.file ?? '-'}:${d.line ?? '?'}:${d.column ?? '?'} ${d.rule} ${d.severity} ${JSON.stringify(d.pointer)}`;
}

function expectedLine(e: Expected, file: string | undefined): string {
  return `${e.file ?? file ?? '-'}:${e.line}:${e.column} ${e.rule} ${e.severity ?? RULES[e.rule].severity} ${JSON.stringify(e.pointer)}`;
}

/** Exactly these diagnostics (in any order), each with rule, severity, pointer, file, line and column. */
export function assertDiagnostics(result: ValidationResult, expected: readonly Expected[]): void {
  const actual = result.diagnostics.map(summary).sort();
  const wanted = expected.map((e) => expectedLine(e, result.file)).sort();
  assert.deepEqual(
    actual,
    wanted,
    `diagnostics:\n${result.diagnostics.map((d) => `  ${summary(d)} ${d.message}`).join('\n')}`,
  );
  for (const d of result.diagnostics) {
    assert.ok(d.message.length > 0, 'every diagnostic has a message');
    assert.equal(d.severity, RULES[d.rule as RuleId].severity, `${d.rule} has its catalogue severity`);
  }
  assert.equal(result.valid, !expected.some((e) => (e.severity ?? RULES[e.rule].severity) === 'error'));
}

/** Exactly one diagnostic, as described. */
export function assertOnly(result: ValidationResult, expected: Expected): Diagnostic {
  assertDiagnostics(result, [expected]);
  return result.diagnostics[0]!;
}

/** No diagnostic at all, and one normalised type. */
export function assertClean(result: ValidationResult): void {
  assert.deepEqual(
    result.diagnostics.map((d) => `${summary(d)} ${d.message}`),
    [],
  );
  assert.equal(result.valid, true);
  assert.equal(result.types.length, 1);
}

/** No errors (warnings allowed), and one normalised type. */
export function assertValid(result: ValidationResult): void {
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  assert.deepEqual(
    errors.map((d) => `${summary(d)} ${d.message}`),
    [],
  );
  assert.equal(result.valid, true);
  assert.equal(result.types.length, 1);
}

/**
 * A manifest whose one type, Test.Area/widgets@2025-01-01, has `schemaLines` as its schema: they
 * start on line 8, indented by 10 spaces (schema line k is document line 7 + k).
 */
export function manifestWithSchema(...schemaLines: string[]): string {
  return (
    [
      'namespace: Test.Area',
      'types:',
      '  widgets:',
      '    description: A widget.',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema:',
      ...schemaLines.map((l) => ' '.repeat(10) + l),
    ].join('\n') + '\n'
  );
}

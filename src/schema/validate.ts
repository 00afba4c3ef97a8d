/**
 * @module validateDocument: one document (text or bytes) → located diagnostics and normalised types.
 */
import { diagnostic, hasErrors, type Diagnostic } from './diagnostics.js';
import { placeFindings, type Finding } from './finding.js';
import { checkManifest } from './manifest/index.js';
import { duplicateKeyFindings } from './manifest/json-duplicates.js';
import type { ResourceType } from './model.js';
import { isHookSchema } from './other-documents.js';
import { checkResourceSchema, type DialectResult } from './resource-schema/index.js';
import { bicepExpressibleFindings } from './rules/bicep-expressible.js';
import { identifierRequiredFindings } from './rules/identifier-required.js';
import { validationRuleFindings } from './rules/validation-rules.js';
import { parseSource, parseSourceYielding, type ParseResult, type SourceFormat } from './source.js';
import { mayHoldRules } from './validations.js';
import { jsonTextMayHoldUnkeepable, valueProblems, type ValueProblemKind } from './values.js';

const VALUE_RULES = {
  'prototype-key': 'TP1015',
  'lone-surrogate': 'TP1016',
  'not-finite': 'TP1017',
} as const satisfies Record<ValueProblemKind, string>;

export type Dialect = 'resource-schema' | 'manifest';

export interface ValidateOptions {
  /** Path shown in diagnostics and used to guess the format. */
  file?: string;
  /** Force a format instead of guessing from the file name or content. */
  format?: SourceFormat;
  /** Also warn about what the types' Bicep types cannot express (TP5001–TP5003); `typeplane validate` does. */
  bicepWarnings?: boolean;
}

export interface ValidationResult<T = ResourceType> {
  file?: string;
  /** `hook`: a hook schema, checked as its registration checks it (LoadOptions.checkHook). */
  dialect?: Dialect | 'hook';
  /** True when there is no error (warnings allowed). */
  valid: boolean;
  diagnostics: Diagnostic[];
  /** The types the document defines, present only when it is valid. */
  types: T[];
}

/**
 * Parse and check one document in either dialect, collecting every problem in one pass.
 *
 * @example
 * const result = validateDocument(text, { file: 'db.yaml' });
 * for (const d of result.diagnostics) console.log(`${d.file}:${d.line}:${d.column} ${d.rule} ${d.message}`);
 */
export function validateDocument(
  input: string | Uint8Array,
  options: ValidateOptions = {},
): ValidationResult {
  return checkParsed(parseSource(input, options), options);
}

/**
 * As {@link validateDocument}, giving the event loop a turn while a large YAML document is parsed:
 * what a server calls.
 */
export async function validateDocumentYielding(
  input: string | Uint8Array,
  options: ValidateOptions = {},
): Promise<ValidationResult> {
  return checkParsed(await parseSourceYielding(input, options), options);
}

function checkParsed(parsed: ParseResult, options: ValidateOptions): ValidationResult {
  const { file } = options;
  const base = file === undefined ? {} : { file };
  if (!parsed.document) return { ...base, valid: false, diagnostics: parsed.diagnostics, types: [] };
  const document = parsed.document;
  const value = document.value;
  // Values no store can keep as given are refused before either dialect reads them.
  const unkeepable =
    document.format === 'json' && !jsonTextMayHoldUnkeepable(document.text) ? [] : valueProblems(value);
  if (unkeepable.length > 0) {
    const findings: Finding[] = unkeepable.map((p) => ({
      ...diagnostic(VALUE_RULES[p.kind], p.pointer, p.message),
      ...(p.onKey ? { target: 'key' as const } : {}),
    }));
    return { ...base, valid: false, diagnostics: placeFindings(findings, document), types: [] };
  }
  const dialect = detectDialect(value);
  if (!dialect) {
    const finding = diagnostic(
      'TP1008',
      '',
      isHookSchema(value)
        ? "this is a hook schema (its handlers are preCreate, preUpdate or preDelete), not a resource type: register it with POST /v1/hooks ('typeplane hook register')"
        : typeof value === 'object' && value !== null && !Array.isArray(value)
          ? "document has neither 'typeName' (a resource schema) nor 'types' (a manifest); add the one you mean"
          : 'document must be an object: a resource schema with typeName, or a manifest with types',
    );
    return { ...base, valid: false, diagnostics: placeFindings([finding], document), types: [] };
  }
  let result: DialectResult =
    dialect === 'resource-schema'
      ? checkResourceSchema(value, file, options.bicepWarnings ? { bicep: true } : {})
      : checkManifest(value, file);
  if (dialect === 'manifest' && document.format === 'json') {
    const duplicates = duplicateKeyFindings(document.text);
    if (duplicates.length > 0) result = { findings: [...duplicates, ...result.findings], types: [] };
  }
  const findings = [...result.findings, ...identifierRequiredFindings(result.types)];
  // Most documents have no validation rules: their text says so without a walk.
  if (mayHoldRules(document.text)) findings.push(...validationRuleFindings(result.types));
  if (options.bicepWarnings)
    findings.push(...(result.bicepFindings ?? bicepExpressibleFindings(result.types)));
  const diagnostics = placeFindings(findings, document);
  return { ...base, dialect, valid: !hasErrors(diagnostics), diagnostics, types: result.types };
}

function detectDialect(value: unknown): Dialect | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  // A hook schema has a typeName too; read as a resource schema, it would be wrong everywhere.
  if (isHookSchema(value)) return undefined;
  if ('typeName' in value) return 'resource-schema';
  if ('types' in value || 'namespace' in value) return 'manifest';
  return undefined;
}

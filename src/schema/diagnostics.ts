/**
 * @module Diagnostics: what the schema toolkit reports about a document.
 *
 * Every problem carries a stable rule id (users and tooling match on ids, never on text), the JSON
 * pointer of the offending value, and — once located against the source text — a line and column.
 */

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  severity: Severity;
  /** Stable rule id, e.g. `TP2010`. See {@link RULES}. */
  rule: string;
  /** What is wrong and how to fix it. */
  message: string;
  /** JSON pointer (RFC 6901) to the value in the document; `''` is the whole document. */
  pointer: string;
  /** Source file, when the document came from one. */
  file?: string;
  /** 1-based line and column in the source text. */
  line?: number;
  column?: number;
}

export interface RuleInfo {
  severity: Severity;
  title: string;
}

/**
 * The catalogue of rules: one entry per rule id, declared once.
 * TP1xxx: the document itself (reading, parsing, dialect); TP2xxx: resource schemas; TP3xxx: manifests;
 * TP5xxx: what generated Bicep types cannot express, for both dialects; TP8xxx: hook schemas; TP9xxx:
 * validation rules (CEL) in schemas of both dialects. (TP4xxx are stack templates' (src/stacks/rules.ts),
 * TP6xxx typeplane diff's, TP7xxx recipes'.)
 */
export const RULES = {
  // Documents
  TP1001: { severity: 'error', title: 'file cannot be read' },
  TP1002: { severity: 'error', title: 'document is empty' },
  TP1003: { severity: 'error', title: 'document is binary, not text' },
  TP1004: { severity: 'error', title: 'document is too large' },
  TP1005: { severity: 'error', title: 'JSON syntax error' },
  TP1006: { severity: 'error', title: 'YAML syntax error' },
  TP1007: { severity: 'error', title: 'document is nested too deeply' },
  TP1008: { severity: 'error', title: 'document is neither a resource schema nor a manifest' },
  TP1010: { severity: 'error', title: 'a value has the wrong type' },
  TP1011: { severity: 'error', title: 'type is defined more than once' },
  TP1012: { severity: 'warning', title: 'reference to a type not among the loaded ones' },
  TP1013: { severity: 'error', title: 'reference target is not declared by the referenced type' },
  TP1014: {
    severity: 'error',
    title: "reference without ids: the referenced type's identifiers are not members",
  },
  TP1015: { severity: 'error', title: "member named '__proto__'" },
  TP1016: { severity: 'error', title: 'text holds a lone UTF-16 surrogate' },
  TP1017: { severity: 'error', title: 'number too large for JSON' },

  // Resource schemas
  TP2001: { severity: 'error', title: 'typeName is malformed' },
  TP2002: { severity: 'error', title: 'required key is missing' },
  TP2003: { severity: 'error', title: 'unknown top-level key' },
  TP2004: { severity: 'error', title: 'top-level additionalProperties must be false' },
  TP2005: { severity: 'error', title: 'property pointer is malformed' },
  TP2010: { severity: 'error', title: 'identifier does not resolve to a declared property' },
  TP2011: { severity: 'warning', title: 'property pointer does not resolve to a declared property' },
  TP2012: { severity: 'error', title: 'property is both create-only and conditionally create-only' },
  TP2013: { severity: 'error', title: 'property is both read-only and conditionally create-only' },
  TP2014: { severity: 'warning', title: 'property is both read-only and write-only' },
  TP2015: { severity: 'error', title: '$ref points at a definition that does not exist' },
  TP2016: { severity: 'error', title: '$ref is not local' },
  TP2017: { severity: 'error', title: '$ref cycle without a property or item in between' },
  TP2018: { severity: 'error', title: 'identifier is write-only' },
  TP2020: { severity: 'error', title: '$id/$schema inside a property schema' },
  TP2021: { severity: 'error', title: 'if/then/else/not are not supported' },
  TP2022: { severity: 'error', title: 'propertyNames is not supported' },
  TP2023: { severity: 'error', title: 'additionalProperties must be false' },
  TP2024: { severity: 'error', title: 'properties and patternProperties together' },
  TP2025: { severity: 'error', title: 'items must be a single schema; additionalItems is not supported' },
  TP2026: { severity: 'error', title: 'property or definition name is malformed' },
  TP2027: { severity: 'error', title: 'unknown keyword in a property schema' },
  TP2028: { severity: 'error', title: 'pattern is not a valid regular expression' },
  TP2029: { severity: 'error', title: 'enum or const without type' },
  TP2030: { severity: 'error', title: 'handler definition is invalid' },
  TP2031: { severity: 'error', title: 'handler timeoutInMinutes out of range' },
  TP2032: { severity: 'error', title: 'tagging is invalid' },
  TP2033: { severity: 'error', title: 'insertionOrder, arrayType or relationshipRef is invalid' },
  TP2034: { severity: 'error', title: 'identifier list is malformed' },
  TP2035: { severity: 'error', title: 'typeConfiguration is invalid' },
  TP2040: { severity: 'warning', title: 'nested object allows additional properties' },
  TP2041: { severity: 'warning', title: 'wildcard handler permission' },
  TP2042: { severity: 'warning', title: 'identifier is neither read-only nor create-only' },
  TP2043: { severity: 'warning', title: 'unknown format' },
  TP2044: { severity: 'warning', title: 'tagging.tagProperty does not resolve' },
  TP2045: { severity: 'error', title: 'traits are invalid' },
  TP2046: { severity: 'error', title: 'reference member does not resolve to a declared property' },
  // rules/identifier-required.ts
  TP2047: { severity: 'warning', title: 'identifier is neither required nor read-only' },

  // Manifests
  TP3001: { severity: 'error', title: 'manifest name/namespace is malformed' },
  TP3002: { severity: 'error', title: 'required manifest key is missing' },
  TP3003: { severity: 'error', title: 'unknown manifest key' },
  TP3004: { severity: 'error', title: 'type name is malformed' },
  TP3005: { severity: 'error', title: 'API version is malformed' },
  TP3006: { severity: 'error', title: 'schema root must be type: object' },
  TP3007: { severity: 'error', title: 'schema node declares no type' },
  TP3008: { severity: 'error', title: 'composition keyword is not supported' },
  TP3009: { severity: 'error', title: '$ref is not a built-in Typeplane schema' },
  TP3010: { severity: 'error', title: 'properties and additionalProperties together' },
  TP3011: { severity: 'error', title: 'unknown keyword in a manifest schema' },
  TP3012: { severity: 'error', title: 'capabilities are invalid' },
  TP3013: { severity: 'error', title: 'schema keyword has the wrong shape' },
  TP3014: { severity: 'error', title: 'property name is reserved' },
  TP3015: { severity: 'error', title: 'required lists an undeclared property' },
  TP3016: { severity: 'error', title: 'property name is malformed' },
  TP3017: { severity: 'warning', title: 'unknown format' },
  TP3018: { severity: 'error', title: 'x-typeplane traits are invalid' },
  TP3019: { severity: 'error', title: 'reference member is not a property of the type' },
  TP3020: { severity: 'warning', title: 'manifest or type defines nothing to register' },
  TP3021: { severity: 'warning', title: 'type has no description' },
  TP3022: { severity: 'warning', title: 'empty schema: the properties of resources are not validated' },
  TP3023: { severity: 'warning', title: 'capability is listed twice' },
  TP3024: { severity: 'warning', title: 'keyword does not apply to the type of the schema' },
  TP3025: { severity: 'warning', title: 'property is both read-only and sensitive' },
  TP3026: { severity: 'warning', title: 'schema root does not declare type: object' },
  TP3027: { severity: 'error', title: 'Radius base property has the wrong shape' },
  TP3028: { severity: 'error', title: 'x-radius-sensitive on a type other than string or object' },
  TP3029: { severity: 'error', title: 'x-typeplane-configuration is invalid' },

  // Hook schemas (src/policy/hooks): CloudFormation's hook definition
  TP8001: { severity: 'error', title: 'required hook schema key is missing' },
  TP8002: { severity: 'error', title: 'unknown key in a hook schema' },
  TP8003: { severity: 'error', title: 'hook handler definition is invalid' },
  TP8004: { severity: 'error', title: 'hook targetNames glob is malformed' },
  TP8005: { severity: 'error', title: 'hook schema defines no handler' },

  // Validation rules (CEL) in schemas of both dialects (rules/validation-rules.ts)
  TP9001: { severity: 'error', title: 'validation rule entry is malformed' },
  TP9002: { severity: 'error', title: 'validation rule does not compile' },
  TP9003: { severity: 'error', title: 'validation rule could cost more than the budget' },
  TP9004: { severity: 'error', title: 'validation rule fieldPath does not resolve' },
  TP9005: { severity: 'error', title: 'validation rule messageExpression does not compile to a string' },
  TP9006: { severity: 'error', title: 'transition rule where there is no old value' },

  // What generated Bicep types cannot express (rules/bicep-expressible.ts); `typeplane validate` reports them
  TP5001: { severity: 'warning', title: 'Bicep has no floating-point type: number becomes int' },
  TP5002: {
    severity: 'warning',
    title: 'Bicep has no number or boolean literals: enum becomes its base type',
  },
  TP5003: {
    severity: 'warning',
    title: 'Bicep cannot constrain member names: patternProperties becomes a map',
  },
} as const satisfies Record<string, RuleInfo>;

export type RuleId = keyof typeof RULES;

/** Build a diagnostic whose severity comes from the catalogue. */
export function diagnostic(rule: RuleId, pointer: string, message: string): Diagnostic {
  return { severity: RULES[rule].severity, rule, message, pointer };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Escape one reference token of a JSON pointer (RFC 6901). */
export function escapePointerToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointerOf(tokens: readonly (string | number)[]): string {
  return tokens.map((t) => '/' + escapePointerToken(String(t))).join('');
}

export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  const tokens = pointer.slice(1).split('/');
  if (!pointer.includes('~')) return tokens;
  return tokens.map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

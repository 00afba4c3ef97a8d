/**
 * @module Parameter values: given ones (strings from a command line, or JSON values) and defaults,
 * checked against their declarations. A NoEcho parameter's value is a secret: it is never shown.
 */
import { RE2JS } from 're2js';
import type { Diagnostic } from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { closest, stackDiagnostic } from './rules.js';
import type { ParameterValue } from './intrinsics.js';
import type { ParameterDeclaration, Template } from './template.js';

/** How a NoEcho value is shown. */
export const MASK = '****';

export interface ResolvedParameters {
  values: Map<string, ParameterValue>;
  /** Parameters without a value (no default, none given): only validation goes on without them. */
  missing: string[];
  diagnostics: Diagnostic[];
}

/**
 * Resolve `given` against the template's declarations. Values are checked against their constraints;
 * a NoEcho value is never quoted in a diagnostic.
 */
export function resolveParameters(template: Template, given: Record<string, unknown>): ResolvedParameters {
  const values = new Map<string, ParameterValue>();
  const missing: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const name of Object.keys(given)) {
    if (template.parameters.has(name)) continue;
    const guess = closest(name, template.parameters.keys());
    diagnostics.push(
      stackDiagnostic(
        'TP4012',
        '/Parameters',
        `a value was given for '${name}', which the template does not declare${guess ? `; did you mean '${guess}'?` : ''}`,
      ),
    );
  }
  for (const declaration of template.parameters.values()) {
    const pointer = `/Parameters/${escapePointerToken(declaration.name)}`;
    const raw = Object.hasOwn(given, declaration.name) ? given[declaration.name] : declaration.default;
    const from = Object.hasOwn(given, declaration.name) ? 'the value given' : 'its Default';
    if (raw === undefined) {
      missing.push(declaration.name);
      continue;
    }
    const checked = checkValue(declaration, raw);
    if (typeof checked === 'string') {
      diagnostics.push(
        stackDiagnostic(
          'TP4012',
          Object.hasOwn(given, declaration.name) ? pointer : `${pointer}/Default`,
          `parameter ${declaration.name}: ${from} ${checked}${declaration.constraintDescription ? ` (${declaration.constraintDescription})` : ''}`,
        ),
      );
      continue;
    }
    values.set(declaration.name, checked.value);
  }
  return { values, missing, diagnostics };
}

function asText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  return undefined;
}

/** The typed value, or what is wrong with it (never quoting a NoEcho value). */
function checkValue(declaration: ParameterDeclaration, raw: unknown): { value: ParameterValue } | string {
  const shown = (v: unknown) => (declaration.noEcho ? '(hidden: NoEcho)' : JSON.stringify(v));
  let items: string[];
  const list = declaration.type === 'CommaDelimitedList' || declaration.type === 'List<Number>';
  if (list && Array.isArray(raw)) {
    const texts = raw.map(asText);
    if (texts.some((t) => t === undefined)) return 'must be a list of strings or numbers';
    items = texts as string[];
  } else {
    const text = asText(raw);
    if (text === undefined)
      return `must be a ${list ? 'comma-separated list' : declaration.type === 'Number' ? 'number' : 'string'}`;
    items = list ? (text === '' ? [] : text.split(',').map((s) => s.trim())) : [text];
  }
  const numeric = declaration.type === 'Number' || declaration.type === 'List<Number>';
  const numbers: number[] = [];
  for (const item of items) {
    if (numeric) {
      const n = item.trim() === '' ? NaN : Number(item);
      if (!Number.isFinite(n)) return `${shown(item)} is not a number`;
      if (declaration.minValue !== undefined && n < declaration.minValue)
        return `${shown(item)} is below MinValue ${declaration.minValue}`;
      if (declaration.maxValue !== undefined && n > declaration.maxValue)
        return `${shown(item)} is above MaxValue ${declaration.maxValue}`;
      numbers.push(n);
    }
    if (declaration.minLength !== undefined && item.length < declaration.minLength)
      return `is shorter than MinLength ${declaration.minLength}`;
    if (declaration.maxLength !== undefined && item.length > declaration.maxLength)
      return `is longer than MaxLength ${declaration.maxLength}`;
    if (declaration.allowedPattern !== undefined) {
      const matches = fullMatcher(declaration.allowedPattern);
      if (!matches) return `cannot be checked: AllowedPattern is not a valid (RE2) regular expression`;
      if (!matches(item)) return `${shown(item)} does not match AllowedPattern ${declaration.allowedPattern}`;
    }
    if (declaration.allowedValues !== undefined && !declaration.allowedValues.map(asText).includes(item))
      return `${shown(item)} is not one of the AllowedValues ${declaration.noEcho ? '' : JSON.stringify(declaration.allowedValues)}`.trimEnd();
  }
  if (declaration.type === 'Number') return { value: numbers[0]! };
  if (declaration.type === 'List<Number>') return { value: numbers };
  if (declaration.type === 'CommaDelimitedList') return { value: items };
  return { value: items[0]! };
}

const matchers = new Map<string, ((s: string) => boolean) | undefined>();

/** AllowedPattern matches the whole value, on RE2 (linear time: a pattern cannot stall the server). */
function fullMatcher(pattern: string): ((s: string) => boolean) | undefined {
  if (matchers.has(pattern)) return matchers.get(pattern);
  let matcher: ((s: string) => boolean) | undefined;
  try {
    const re = RE2JS.compile(pattern.length > 10_000 ? '(' : pattern);
    matcher = (s) => re.matches(s);
  } catch {
    matcher = undefined;
  }
  if (matchers.size > 1000) matchers.clear();
  matchers.set(pattern, matcher);
  return matcher;
}

/** Parse `K=V` pairs (the command line's `--parameters`). */
export function parseParameterPairs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`parameter '${pair}' must be written Name=Value`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/**
 * @module Parameter values: given ones (strings from a command line, or JSON values) and defaults,
 * checked against their declarations. A NoEcho parameter's value is a secret: it is never shown.
 */
import { PATTERN_WORK_LIMIT, PatternWorkExceeded, withPatternBudget } from '../registry/re2.js';
import {
  LOOKAROUND_WORK_LIMIT,
  LookaroundWorkExceeded,
  MAX_LOOKAROUND_INPUT,
  allowedPatternProblem,
  matchesAllowedPattern,
  type LookaroundBudget,
} from './lookaround.js';
import type { Diagnostic } from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { closest, stackDiagnostic } from './rules.js';
import type { ParameterValue } from './intrinsics.js';
import type { ParameterDeclaration, Template } from './template.js';

/** How a NoEcho value is shown. */
export const MASK = '****';

/**
 * The most distinct NoEcho values (each item of a list counts) a stack may have, and their characters
 * together: each is masked wherever a plan, event, output or answer might show it, and masking reads
 * every one of them (in each form a message may quote it in). Published templates have a few.
 */
export const MAX_SECRET_VALUES = 100;
export const MAX_SECRET_CHARACTERS = 16_384;

/** How much of a value or a list a diagnostic quotes: a value's first characters, a list's first items. */
const QUOTED_CHARACTERS = 100;
const QUOTED_ITEMS = 10;

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
        `a value was given for '${shortened(name)}', which the template does not declare${guess ? `; did you mean '${guess}'?` : ''}`,
      ),
    );
  }
  const secrets = new Set<string>();
  let secretCharacters = 0;
  // One pattern budget for all the parameters, as for all the patterns of a model.
  let checking = { at: '', name: '', from: '' };
  // And one for the patterns with lookaround (lookaround.ts).
  const lookaround: LookaroundBudget = { left: LOOKAROUND_WORK_LIMIT };
  const outcome = withPatternBudget(() => {
    for (const declaration of template.parameters.values()) {
      const pointer = `/Parameters/${escapePointerToken(declaration.name)}`;
      const raw = Object.hasOwn(given, declaration.name) ? given[declaration.name] : declaration.default;
      const from = Object.hasOwn(given, declaration.name) ? 'the value given' : 'its Default';
      if (raw === undefined) {
        missing.push(declaration.name);
        continue;
      }
      checking = {
        at: Object.hasOwn(given, declaration.name) ? pointer : `${pointer}/Default`,
        name: declaration.name,
        from,
      };
      const checked = checkValue(declaration, raw, lookaround);
      if (typeof checked === 'string') {
        diagnostics.push(
          stackDiagnostic(
            'TP4012',
            checking.at,
            `parameter ${declaration.name}: ${from} ${checked}${declaration.constraintDescription ? ` (${shortened(declaration.constraintDescription)})` : ''}`,
          ),
        );
        continue;
      }
      if (declaration.noEcho) {
        const added = [...new Set(Array.isArray(checked.value) ? checked.value : [checked.value])]
          .map(String)
          .filter((item) => item !== '' && !secrets.has(item));
        const count = secrets.size + added.length;
        const characters = secretCharacters + added.reduce((n, item) => n + item.length, 0);
        if (count > MAX_SECRET_VALUES || characters > MAX_SECRET_CHARACTERS) {
          // Refused before it is used: its values reach no evaluation, so no message can quote them.
          diagnostics.push(
            stackDiagnostic(
              'TP4024',
              checking.at,
              `parameter ${declaration.name}: ${from} makes ${count.toLocaleString('en-US')} NoEcho values of ${characters.toLocaleString('en-US')} characters in this stack (each item of a list is one); at most ${MAX_SECRET_VALUES} of ${MAX_SECRET_CHARACTERS.toLocaleString('en-US')} characters together are allowed, as each is masked in every plan, event and answer: pass fewer items, or declare a list that is not secret without NoEcho`,
            ),
          );
          continue;
        }
        for (const item of added) secrets.add(item);
        secretCharacters = characters;
      }
      values.set(declaration.name, checked.value);
    }
  });
  if (outcome instanceof PatternWorkExceeded)
    diagnostics.push(
      stackDiagnostic(
        'TP4012',
        checking.at,
        `parameter ${checking.name}: ${checking.from} holds a string of ${outcome.inputLength.toLocaleString('en-US')} characters, too long to check against its AllowedPattern (${outcome.programSize.toLocaleString('en-US')} RE2 instructions; instructions × characters, all parameters together, may be at most ${PATTERN_WORK_LIMIT.toLocaleString('en-US')}): shorten it, or simplify the pattern`,
      ),
    );
  return { values, missing, diagnostics };
}

function asText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  return undefined;
}

/** `text` as a diagnostic quotes it: its first characters, and how many there are when more. */
function shortened(text: string): string {
  return text.length <= QUOTED_CHARACTERS
    ? text
    : `${text.slice(0, QUOTED_CHARACTERS)}… (${text.length.toLocaleString('en-US')} characters)`;
}

/** A value quoted in a diagnostic, as JSON: a long string cut short (a value may be a mebibyte). */
function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length <= QUOTED_CHARACTERS
    ? JSON.stringify(value)
    : `${JSON.stringify(text.slice(0, QUOTED_CHARACTERS))}… (${text.length.toLocaleString('en-US')} characters)`;
}

/** A list quoted in a diagnostic: its first items, and how many more. */
function quotedList(values: readonly unknown[]): string {
  const shown = values.slice(0, QUOTED_ITEMS).map(quoted).join(', ');
  return values.length <= QUOTED_ITEMS
    ? `[${shown}]`
    : `[${shown}, and ${(values.length - QUOTED_ITEMS).toLocaleString('en-US')} more]`;
}

/** The typed value, or what is wrong with it (never quoting a NoEcho value). */
function checkValue(
  declaration: ParameterDeclaration,
  raw: unknown,
  lookaround: LookaroundBudget,
): { value: ParameterValue } | string {
  const shown = (v: unknown) => (declaration.noEcho ? '(hidden: NoEcho)' : quoted(v));
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
  // A set, read once: a long list against long AllowedValues would otherwise cost items × values.
  const allowed = declaration.allowedValues && new Set(declaration.allowedValues.map(asText));
  const patternProblem =
    declaration.allowedPattern === undefined ? undefined : allowedPatternProblem(declaration.allowedPattern);
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
      if (patternProblem !== undefined)
        return `cannot be checked: AllowedPattern is refused (${patternProblem})`;
      const matched = matchesPattern(declaration.allowedPattern, item, lookaround);
      if (typeof matched === 'string') return matched;
      if (!matched)
        return `${shown(item)} does not match AllowedPattern ${shortened(declaration.allowedPattern)}`;
    }
    if (allowed !== undefined && !allowed.has(item))
      return `${shown(item)} is not one of the AllowedValues ${declaration.noEcho ? '' : quotedList(declaration.allowedValues!)}`.trimEnd();
  }
  if (declaration.type === 'Number') return { value: numbers[0]! };
  if (declaration.type === 'List<Number>') return { value: numbers };
  if (declaration.type === 'CommaDelimitedList') return { value: items };
  return { value: items[0]! };
}

/**
 * Whether `item` matches `pattern`, or, when a pattern with lookaround cannot check it within its
 * bounds, what is wrong (RE2's own budget is reported by the caller).
 */
function matchesPattern(pattern: string, item: string, lookaround: LookaroundBudget): boolean | string {
  try {
    return matchesAllowedPattern(pattern, item, lookaround);
  } catch (e) {
    if (!(e instanceof LookaroundWorkExceeded)) throw e;
    return `holds a string of ${item.length.toLocaleString('en-US')} characters, too long to check against its AllowedPattern, which has lookaround (values of at most ${MAX_LOOKAROUND_INPUT.toLocaleString('en-US')} characters, and ${LOOKAROUND_WORK_LIMIT.toLocaleString('en-US')} steps for all such checks of a template): shorten it, or write the pattern without lookaround`;
  }
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

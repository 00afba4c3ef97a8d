/**
 * @module Keeping secrets out of what is shown: write-only property values and NoEcho parameter
 * values (and any text holding one) are replaced by a mask in plans, events, outputs and drift.
 */
import type { ResourceType } from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { maskedForms } from '../engine/index.js';
import { touchesWriteOnly } from '../model/index.js';
import type { ParameterValue } from './intrinsics.js';
import { hasComputedImport, importsIn } from './imports.js';
import { FEW, Matcher } from './matcher.js';
import { MASK } from './parameters.js';
import { referencesIn } from './references.js';

/** Where a stack's secrets come from: its NoEcho parameters, and the secret exports it imports. */
export interface SecretSources {
  parameters: ReadonlySet<string>;
  imports: ReadonlySet<string>;
}

/**
 * Whether an expression's value comes from a secret: it refers to a NoEcho parameter or imports a
 * secret export. Read from the text alone, so a value derived from a secret (a piece of a split, a
 * Base64 of it) is known as one though it does not hold the secret's text.
 */
export function fromSecret(expression: unknown, sources: SecretSources): boolean {
  if (typeof expression !== 'object' || expression === null) return false;
  // A template's expressions are asked about again for each use of its analysis (a recipe's every
  // instance): the answer for one expression and one pair of sources is kept with the expression.
  const known = fromSecretKnown.get(expression);
  if (known && known.parameters === sources.parameters && known.imports === sources.imports)
    return known.secret;
  const secret =
    referencesIn(expression, '').some((r) => r.kind === 'ref' && sources.parameters.has(r.name)) ||
    [...importsIn(expression)].some((name) => sources.imports.has(name)) ||
    // An import by a computed name may be of a secret export: taken as one while the stack has any.
    (sources.imports.size > 0 && hasComputedImport(expression));
  fromSecretKnown.set(expression, { parameters: sources.parameters, imports: sources.imports, secret });
  return secret;
}

/**
 * The last answer of {@link fromSecret} per expression, with the sources it was for (sets compared by
 * identity: a template's analysis keeps its own). A template's expressions are not changed once
 * parsed, so an answer holds as long as its expression and sources are the same objects.
 */
const fromSecretKnown = new WeakMap<
  object,
  { parameters: ReadonlySet<string>; imports: ReadonlySet<string>; secret: boolean }
>();

/**
 * A reason (an evaluation error, a provider's message) with every secret text in it masked: each
 * reason, event and log line a deployment writes goes through here.
 */
export function maskReason(text: string, secrets: readonly string[]): string {
  return secrets.length === 0 ? text : maskerOf(secrets).quoted.replaceIn(text, MASK);
}

/**
 * What masks one list of secrets: built once for it (a plan, a deployment, a view) and kept with it,
 * so that masking each string costs a pass over that string, not one per secret.
 */
interface Masker {
  /** The secrets as they are: a string holding one is masked whole. */
  plain: Matcher;
  /** Each secret long enough to mask in a message, in every form a message may quote it in. */
  quoted: Matcher;
  /** A number or boolean equal to a secret is masked. */
  exact: ReadonlySet<string>;
}

const maskers = new WeakMap<readonly string[], { count: number; masker: Masker }>();

function maskerOf(secrets: readonly string[]): Masker {
  const known = maskers.get(secrets);
  // The count guards against a list grown since (lists are built, then only read).
  if (known !== undefined && known.count === secrets.length) return known.masker;
  let quoted: Matcher | undefined;
  const masker: Masker = {
    plain: new Matcher(secrets),
    // Built when a message is first masked: most lists only ever mask values.
    get quoted() {
      return (quoted ??= new Matcher(maskedForms(secrets)));
    },
    exact: new Set(secrets),
  };
  maskers.set(secrets, { count: secrets.length, masker });
  return masker;
}

/** The texts to hide: every NoEcho parameter value (each item of a list). */
export function secretTexts(
  parameters: ReadonlyMap<string, ParameterValue>,
  secret: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  for (const name of secret) {
    const value = parameters.get(name);
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value])
      if (String(item) !== '') out.push(String(item));
  }
  return out;
}

/** A copy of `value` with secret texts masked; with `type`, its write-only properties too. */
export function mask(value: unknown, secrets: readonly string[], type?: ResourceType, pointer = ''): unknown {
  if (type && pointer !== '' && touchesWriteOnly(type, pointer)) return MASK;
  if (typeof value === 'string')
    return secrets.length > 0 && maskerOf(secrets).plain.occursIn(value) ? MASK : value;
  if (typeof value === 'number' || typeof value === 'boolean')
    return secrets.length > 0 && maskerOf(secrets).exact.has(String(value)) ? MASK : value;
  if (Array.isArray(value)) return value.map((v, i) => mask(v, secrets, type, `${pointer}/${i}`));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = mask(v, secrets, type, `${pointer}/${escapePointerToken(k)}`);
    return out;
  }
  return value;
}

/** Whether a value holds a secret (then it is sealed at rest and masked when shown). */
export function holdsSecret(value: unknown, secrets: readonly string[]): boolean {
  if (secrets.length === 0) return false;
  // As few secrets as a Matcher searches directly (an instance's generated password) are looked for
  // here: building a masker for a list asked once cost more than the search.
  const masker = secrets.length <= FEW ? undefined : maskerOf(secrets);
  const occursIn = (text: string) =>
    masker ? masker.plain.occursIn(text) : secrets.some((s) => s !== '' && text.includes(s));
  const equalsOne = (text: string) => (masker ? masker.exact.has(text) : secrets.includes(text));
  // What `mask` would change: a string holding a secret (unless masked already), a number or boolean equal to one.
  const holds = (v: unknown): boolean => {
    if (typeof v === 'string') return v !== MASK && occursIn(v);
    if (typeof v === 'number' || typeof v === 'boolean') return equalsOne(String(v));
    if (Array.isArray(v)) return v.some(holds);
    if (typeof v === 'object' && v !== null) return Object.values(v).some(holds);
    return false;
  };
  return holds(value);
}

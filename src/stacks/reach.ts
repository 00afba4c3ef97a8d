/**
 * @module What a caller may reach of a stack: the types it holds or has used, checked without naming
 * them; a stack out of reach answers as a missing one. Every stage that reads or changes a stack
 * asks here.
 */
import { TypeplaneError } from '../errors.js';
import type { Analysis } from './analyze.js';
import type { ResourceRecord, StackRecord, StackStore } from './records.js';

/** Throws AccessDenied unless the caller may reach every one of `typeNames`. */
export type Authorize = (typeNames: string[]) => void;

export function stackNotFound(name: string): TypeplaneError {
  return new TypeplaneError('NotFound', `stack ${name} does not exist`);
}

export function planNotFound(name: string, planId: string): TypeplaneError {
  return new TypeplaneError('NotFound', `stack ${name} has no plan ${planId}`);
}

/**
 * An access check of types the caller did not name (those a stack holds or has used, a plan's): a
 * refusal names none of them, nor which is out of reach.
 */
export async function unnamed<T>(what: string, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (e) {
    if (e instanceof TypeplaneError && e.code === 'AccessDenied')
      throw new TypeplaneError(
        'AccessDenied',
        `this token is scoped to other types and cannot reach every type of ${what}`,
      );
    throw e;
  }
}

/** By resources map: an analysis reused for a recipe's instances keeps its map (reused-analysis.ts). */
const typesKept = new WeakMap<Analysis['resources'], readonly string[]>();

/** The type names of an analysis's resources, each once, in the template's order (frozen: shared). */
export function typesOf(analysis: Analysis): string[] {
  let types = typesKept.get(analysis.resources);
  if (!types) {
    types = Object.freeze([
      ...new Set([...analysis.resources.values()].map((r) => r.compiled.type.typeName)),
    ]);
    typesKept.set(analysis.resources, types);
  }
  return types as string[];
}

/** The types a stack's resources have now (a token must reach them to change or delete the stack). */
export async function recordedTypes(records: StackStore, name: string): Promise<string[]> {
  return typesIn(await records.getResources(name));
}

/** The types of a stack's resource records, each once. */
export function typesIn(resources: Map<string, ResourceRecord>): string[] {
  return [...new Set([...resources.values()].map((r) => r.type))];
}

/**
 * The types a stack record says its deployments have used: each deployment adds its template's
 * before any of its resources exists, so they cover every resource's (a record written before they
 * were kept has its resources' instead).
 */
export async function usedTypes(records: StackStore, s: StackRecord): Promise<string[]> {
  return s.types ?? recordedTypes(records, s.name);
}

/**
 * Every type the stack's deployments have used, whether or not a resource of it remains (a rolled
 * back one leaves none): a caller sees the stack's reasons only when it reaches all of them.
 */
export async function touchedTypes(records: StackStore, name: string): Promise<string[]> {
  const current = await records.getStack(name);
  return [...new Set([...(current?.record.types ?? []), ...(await recordedTypes(records, name))])];
}

/**
 * Unless the caller (seeing the types `visible` accepts) reaches one of the types stack `name` has
 * used, throws as for a missing stack, or a missing plan `planId` of it: a stack out of reach is
 * not told from a missing one. A missing stack passes (its own answer is NotFound).
 */
export async function assertReached(
  records: StackStore,
  name: string,
  visible: (typeName: string) => boolean,
  planId?: string,
): Promise<void> {
  const types = await touchedTypes(records, name);
  if (types.length === 0 || types.some(visible)) return;
  throw planId === undefined ? stackNotFound(name) : planNotFound(name, planId);
}

/**
 * Other stacks as a refusal names them: those the caller reaches every type of by name, the others
 * only counted (export names are shared by every tenant; which stacks hold them is not).
 */
export async function stacksNamed(
  records: StackStore,
  names: string[],
  authorize: Authorize,
): Promise<string> {
  const shown: string[] = [];
  for (const other of names)
    try {
      authorize(await recordedTypes(records, other));
      shown.push(other);
    } catch (e) {
      if (!(e instanceof TypeplaneError && e.code === 'AccessDenied')) throw e;
    }
  const hidden = names.length - shown.length;
  const parts = [
    ...(shown.length > 0 ? [`stack ${shown.join(', ')}`] : []),
    ...(hidden > 0
      ? [hidden === 1 ? 'a stack out of your reach' : `${hidden} stacks out of your reach`]
      : []),
  ];
  return parts.join(' and ');
}

/**
 * @module The context a recipe reads: the instance (its name, id, type and properties), its
 * environment and application, and the recipe itself — Radius's `context` object, read in a template
 * as `!GetAtt context.resource.properties.size` or `${context.resource.name}`. Pure: what a path
 * means against a type's schema (registration) and what it holds for one instance (deploy).
 */
import { propertyTokens, resolverOf, stripWriteOnly, type Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';

/** The logical id a template reads the context under. */
export const CONTEXT = 'context';

export interface RecipeContext {
  resource: { name: string; id: string; type: string; properties: Model };
  environment: { name: string };
  application: { name?: string };
  recipe: { name: string; version: number };
}

/** JSON kinds a value at a path may have. */
export type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';

/** What a context path is, against the type: its kinds, and whether its value is a secret. */
export interface PathInfo {
  kinds: Set<Kind>;
  /** A write-only value of the instance (or inside one): bound as a NoEcho parameter, never as text. */
  secret: boolean;
}

/** The fixed paths of the context (`resource.properties…` aside) and their kinds. */
const FIXED: Record<string, Kind> = {
  'resource.name': 'string',
  'resource.id': 'string',
  'resource.type': 'string',
  'environment.name': 'string',
  'application.name': 'string',
  'recipe.name': 'string',
  'recipe.version': 'integer',
};

/** The names a path may continue with at `prefix` (for "did you mean" and for listing). */
export function contextNames(type: ResourceType, prefix: string[]): string[] {
  if (prefix.length === 0) return ['resource', 'environment', 'application', 'recipe'];
  const fixed = Object.keys(FIXED)
    .filter((p) => p.startsWith(`${prefix.join('.')}.`))
    .map((p) => p.slice(prefix.join('.').length + 1).split('.')[0]!);
  if (prefix.length === 1 && prefix[0] === 'resource') return [...fixed, 'properties'];
  if (prefix[0] === 'resource' && prefix[1] === 'properties') {
    const nodes = resolverOf(type).walk(schemaPointer(prefix.slice(2))) ?? [];
    const names = new Set<string>();
    const root = prefix.length === 2 ? [type.schema as Record<string, unknown>] : nodes;
    for (const node of root) {
      const props = (node as { properties?: unknown }).properties;
      if (typeof props === 'object' && props !== null) for (const k of Object.keys(props)) names.add(k);
    }
    return [...names];
  }
  return fixed;
}

function schemaPointer(tokens: string[]): string {
  return `/properties/${tokens.map(escapePointerToken).join('/')}`;
}

/** Model pointer (`/a/b`) of a properties path. */
export function modelPointer(tokens: string[]): string {
  return tokens.map((t) => `/${escapePointerToken(t)}`).join('');
}

/** Whether `tokens` (a path into the properties) is at or under one of the type's write-only properties. */
export function underWriteOnly(type: ResourceType, tokens: string[]): boolean {
  return type.writeOnlyProperties.some((pointer) => {
    const w = propertyTokens(pointer);
    if (!w || w.length > tokens.length) return false;
    return w.every((t, i) => t === '*' || t === tokens[i]);
  });
}

/** What `path` means against `type`; undefined when the context has no such value. */
export function pathInfo(type: ResourceType, path: string[]): PathInfo | undefined {
  const fixed = FIXED[path.join('.')];
  if (fixed) return { kinds: new Set([fixed]), secret: false };
  if (path[0] !== 'resource' || path[1] !== 'properties') return undefined;
  const tokens = path.slice(2);
  if (tokens.length === 0) return { kinds: new Set(['object']), secret: false };
  const nodes = resolverOf(type).walk(schemaPointer(tokens));
  if (!nodes) return undefined;
  return { kinds: kindsOf(nodes), secret: underWriteOnly(type, tokens) };
}

/** The JSON kinds schema nodes allow (all of them, when they say nothing). */
export function kindsOf(nodes: readonly Record<string, unknown>[]): Set<Kind> {
  const kinds = new Set<Kind>();
  for (const node of nodes) {
    const t = node.type;
    for (const k of Array.isArray(t) ? t : t === undefined ? [] : [t])
      if (['string', 'number', 'integer', 'boolean', 'object', 'array'].includes(k as string))
        kinds.add(k as Kind);
    if (t === undefined && typeof node.properties === 'object') kinds.add('object');
    for (const v of Array.isArray(node.enum) ? node.enum : [])
      kinds.add(Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : (typeof v as Kind));
  }
  return kinds.size > 0
    ? kinds
    : new Set<Kind>(['string', 'number', 'integer', 'boolean', 'object', 'array']);
}

/** Whether a value of kinds `from` always fits kinds `to` (an integer fits a number). */
export function fits(from: Set<Kind>, to: Set<Kind>): boolean {
  for (const k of from) {
    if (to.has(k)) continue;
    if (k === 'integer' && to.has('number')) continue;
    return false;
  }
  return true;
}

/**
 * The value at `path` for one instance; write-only values only where the path asks for one.
 * `stripped`, when given, answers the instance's properties without their write-only values (a
 * caller reading many paths strips them once).
 */
export function valueAt(
  context: RecipeContext,
  type: ResourceType,
  path: string[],
  stripped: () => Model = () => stripWriteOnly(type, context.resource.properties),
): unknown {
  if (path[0] === 'resource' && path[1] === 'properties') {
    const tokens = path.slice(2);
    let value: unknown = underWriteOnly(type, tokens) ? context.resource.properties : stripped();
    for (const t of tokens) {
      if (typeof value !== 'object' || value === null) return undefined;
      value = Array.isArray(value) ? value[Number(t)] : (value as Record<string, unknown>)[t];
    }
    return value;
  }
  let value: unknown = context;
  for (const t of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, t)) return undefined;
    value = (value as Record<string, unknown>)[t];
  }
  return value;
}

/** The environment a model names: its `environment` property (a name, or a Radius id ending in one). */
export function environmentOf(model: Model, fallback: string): string {
  const env = model.environment;
  if (typeof env !== 'string' || env === '') return fallback;
  return env.slice(env.lastIndexOf('/') + 1);
}

/** The application a model names, the same way. */
export function applicationOf(model: Model): string | undefined {
  const app = model.application;
  if (typeof app !== 'string' || app === '') return undefined;
  return app.slice(app.lastIndexOf('/') + 1);
}

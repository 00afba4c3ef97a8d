/**
 * @module What a type's property lists mean for a model: its identifier, which read-only values a
 * request carries, and the model without the values
 * a reader or a writer must not see.
 */
import { PointerResolver } from '../schema/resource-schema/index.js';
import type { JsonSchema, ResourceType } from '../schema/model.js';
import type { Model } from './types.js';
import { isObject, setOwn } from './json.js';
import { copyWithout, firstValueAt, onlyValueAt, propertyTokens } from './pointer.js';

/** Separates the parts of a compound identifier, as in CloudFormation (`a|b`). */
export const IDENTIFIER_SEPARATOR = '|';

const resolvers = new WeakMap<JsonSchema, PointerResolver>();

/** The pointer resolver of a type's schema (one per schema object). */
export function resolverOf(type: ResourceType): PointerResolver {
  let resolver = resolvers.get(type.schema);
  if (!resolver) {
    resolver = new PointerResolver(type.schema);
    resolvers.set(type.schema, resolver);
  }
  return resolver;
}

/**
 * The primary identifier of `model`: the values of the primary identifier properties, in order,
 * joined by `|`. `undefined` when a part is missing or not a string, number or boolean, or when a part
 * of a compound identifier contains `|` itself (the identifier could not be split back).
 */
export function identifierOf(type: ResourceType, model: Model): string | undefined {
  return joinedValues(type.primaryIdentifier, model);
}

/**
 * The additional identifiers `model` has values for: each one named by its pointers joined with `,`,
 * its value joined as {@link identifierOf} joins the primary identifier's.
 */
export function additionalIdentifiersOf(type: ResourceType, model: Model): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const pointers of type.additionalIdentifiers) {
    const value = joinedValues(pointers, model);
    if (value !== undefined) out.push({ name: pointers.join(','), value });
  }
  return out;
}

function joinedValues(pointers: readonly string[], model: Model): string | undefined {
  if (pointers.length === 0) return undefined;
  // Most identifiers have one part: its value is the identifier, with no list to join.
  if (pointers.length === 1) return scalarText(onlyValueAt(model, pointers[0]!));
  const parts: string[] = [];
  for (const pointer of pointers) {
    const part = scalarText(onlyValueAt(model, pointer));
    if (part === undefined || part.includes(IDENTIFIER_SEPARATOR)) return undefined;
    parts.push(part);
  }
  return parts.join(IDENTIFIER_SEPARATOR);
}

/** A string, number or boolean as text; `undefined` for anything else. */
function scalarText(value: unknown): string | undefined {
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : undefined;
}

/**
 * The model holding just the primary identifier properties named by `identifier` (the inverse of
 * {@link identifierOf}). A part becomes a number or boolean when its property's schema says so and it
 * reads as one. `undefined` when the identifier has the wrong number of parts or a part cannot be a
 * value of its property (e.g. `abc` for an integer). A one-part identifier is never split.
 */
export function identifierModel(type: ResourceType, identifier: string): Model | undefined {
  const pointers = type.primaryIdentifier;
  if (pointers.length === 0) return undefined;
  const parts = pointers.length === 1 ? [identifier] : identifier.split(IDENTIFIER_SEPARATOR);
  if (parts.length !== pointers.length) return undefined;
  const model: Model = {};
  for (const [i, pointer] of pointers.entries()) {
    const tokens = propertyTokens(pointer);
    if (!tokens || tokens.includes('*')) return undefined;
    const value = identifierValue(typesAt(type, pointer), parts[i]!);
    if (value === undefined) return undefined;
    let target: Model = model;
    for (const token of tokens.slice(0, -1)) {
      const next = Object.hasOwn(target, token) ? target[token] : undefined;
      if (isObject(next)) target = next;
      else {
        const created: Model = {};
        setOwn(target, token, created);
        target = created;
      }
    }
    setOwn(target, tokens.at(-1)!, value);
  }
  return model;
}

export type ScalarType = 'string' | 'number' | 'integer' | 'boolean';

/** The scalar types a property may have, from its schema (`type`, else the kinds of its `enum`/`const`). */
export function typesAt(type: ResourceType, pointer: string): Set<ScalarType> {
  const types = new Set<ScalarType>();
  const nodes = resolverOf(type).walk(pointer) ?? [];
  const add = (t: unknown) => {
    if (t === 'string' || t === 'number' || t === 'integer' || t === 'boolean') types.add(t);
  };
  for (const node of nodes) {
    if (Array.isArray(node.type)) node.type.forEach(add);
    else add(node.type);
  }
  if (types.size === 0) {
    const values = [
      ...nodes.flatMap((n) => (Array.isArray(n.enum) ? n.enum : [])),
      ...nodes.filter((n) => 'const' in n).map((n) => n.const),
    ];
    for (const v of values) add(typeof v);
  }
  return types;
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

function identifierValue(types: Set<ScalarType>, part: string): unknown {
  // A string is the identity conversion, so it wins whenever the schema allows it (or says nothing).
  if (types.size === 0 || types.has('string')) return part;
  if ((types.has('number') || types.has('integer')) && JSON_NUMBER.test(part)) {
    const n = Number(part);
    if (Number.isFinite(n) && (types.has('number') || Number.isInteger(n))) return n;
  }
  if (types.has('boolean') && (part === 'true' || part === 'false')) return part === 'true';
  return undefined;
}

/** The read-only property pointers that have a value in `model` (a request must not set them). */
export function readOnlyPresent(type: ResourceType, model: Model): string[] {
  return type.readOnlyProperties.filter((pointer) => firstValueAt(model, pointer) !== undefined);
}

/** A deep copy of `model` without the write-only values (what a reader may see). */
export function stripWriteOnly(type: ResourceType, model: Model): Model {
  return without(model, type.writeOnlyProperties);
}

/** A deep copy of `model` without the read-only values (what a writer may set). */
export function stripReadOnly(type: ResourceType, model: Model): Model {
  return without(model, type.readOnlyProperties);
}

function without(model: Model, pointers: readonly string[]): Model {
  return copyWithout(model, pointers);
}

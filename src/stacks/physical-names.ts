/**
 * @module Names a stack gives, as CloudFormation does: a resource whose type is identified by one
 * writable, optional string property (a role's `RoleName`, a table's `TableName`) and whose template
 * leaves it out gets `<stack>-<logicalId>-<13 characters>`, within the property's maxLength and
 * pattern. The name is kept across updates and a new one is made when the resource is replaced (the
 * old and the new exist side by side until the old is deleted). Pure: the caller says how a new
 * name is made (from the deployment, or unknown in a plan).
 */
import { hash } from 'node:crypto';
import type { ResourceType } from '../schema/index.js';
import { compilePattern } from '../schema/regex.js';
import { decide, type Decision } from './changes.js';

type Schema = Record<string, unknown>;

/** The property a stack names when the template leaves it out, if the type has one. */
export function namedProperty(type: ResourceType): string | undefined {
  if (type.primaryIdentifier.length !== 1) return undefined;
  const pointer = type.primaryIdentifier[0]!;
  const match = /^\/properties\/([^/~]+)$/.exec(pointer);
  if (!match || type.readOnlyProperties.includes(pointer)) return undefined;
  const name = match[1]!;
  const required = (type.schema.required ?? []) as string[];
  const schema = propertySchema(type, name);
  const string = schema?.type === 'string' || schema?.type === undefined;
  return schema && string && !required.includes(name) ? name : undefined;
}

function propertySchema(type: ResourceType, name: string): Schema | undefined {
  let schema = ((type.schema.properties ?? {}) as Record<string, Schema>)[name];
  const definitions = (type.schema.definitions ?? {}) as Record<string, Schema>;
  for (let i = 0; i < 8 && typeof schema?.$ref === 'string'; i++)
    schema = definitions[schema.$ref.replace('#/definitions/', '')];
  return schema;
}

/**
 * A name for `logicalId` in `stack`, derived from `seed` (the same seed gives the same name, so a
 * resumed deployment asks for the same resource); `undefined` when none fits the property's schema.
 */
export function physicalName(
  type: ResourceType,
  stack: string,
  logicalId: string,
  seed: string,
): string | undefined {
  const property = namedProperty(type);
  if (property === undefined) return undefined;
  const schema = propertySchema(type, property)!;
  const digest = hash('sha256', `${seed}\0${logicalId}`, 'buffer');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const suffix = [...digest.subarray(0, 13)].map((b) => alphabet[b % alphabet.length]).join('');
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 255;
  const prefix = `${stack}-${logicalId}`.slice(0, Math.max(0, max - suffix.length - 1));
  const name = prefix === '' ? suffix.slice(0, max) : `${prefix}-${suffix}`;
  const fits = typeof schema.pattern === 'string' ? compilePattern(schema.pattern) : () => true;
  if (!fits) return undefined;
  for (const candidate of [name, name.toLowerCase()])
    if (candidate.length >= ((schema.minLength as number | undefined) ?? 0) && fits(candidate))
      return candidate;
  return undefined;
}

export interface NamedDecision {
  desired: Record<string, unknown>;
  decision: Decision;
  /** The name the stack gave (kept or new), to record with the resource. */
  physicalName?: string;
}

/**
 * The decision for a resource, with its name filled in where the stack names it: the recorded one
 * while the resource stays, a `fresh()` one when it is new or replaced.
 */
export function decideNamed(
  type: ResourceType,
  recorded:
    | { type: string; identifier?: string; properties: Record<string, unknown>; physicalName?: string }
    | undefined,
  desired: Record<string, unknown>,
  fresh: () => unknown,
): NamedDecision {
  const property = namedProperty(type);
  const kept = recorded?.physicalName;
  if (
    property !== undefined &&
    !Object.hasOwn(desired, property) &&
    kept !== undefined &&
    recorded?.properties[property] === kept &&
    recorded.type === type.typeName
  ) {
    const withKept = { ...desired, [property]: kept };
    const decision = decide(type, recorded, withKept);
    if (decision.action !== 'Replace') return { desired: withKept, decision, physicalName: kept };
  }
  const named = namedAnew(type, desired, fresh);
  return { ...named, decision: decide(type, recorded, named.desired) };
}

/**
 * A new resource's properties with its name filled in where the stack names it (a `fresh()` one),
 * without a decision: there is nothing recorded to decide against (a template made without its stack).
 */
export function namedAnew(
  type: ResourceType,
  desired: Record<string, unknown>,
  fresh: () => unknown,
): Omit<NamedDecision, 'decision'> {
  const property = namedProperty(type);
  if (property === undefined || Object.hasOwn(desired, property)) return { desired };
  const name = fresh();
  if (name === undefined) return { desired };
  return {
    desired: { ...desired, [property]: name },
    ...(typeof name === 'string' ? { physicalName: name } : {}),
  };
}

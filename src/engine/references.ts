/**
 * @module References between resources (the `references` trait): which resources a model refers to,
 * that they exist before a create or update, that a referenced resource is not deleted under its
 * referrers, and both directions for one resource.
 *
 * A caller learns nothing through references about types it may not see: referring to one is
 * AccessDenied whether or not the target exists (a pin on another team's resource would block its
 * owner's delete), and a delete refused for referrers names only those the caller may see.
 */
import { TypeplaneError } from '../errors.js';
import { valuesAt, type Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import type { ResourceKey } from '../store/types.js';
import type { Caller } from './caller.js';
import type { EngineContext } from './context.js';
import { findResource } from './sealing.js';
import { MAX_RESULTS_LIMIT } from './input.js';

interface Reference {
  typeName: string;
  identifier: string;
  member: string;
  unregistered?: boolean;
}

/**
 * Every resource the model refers to is of a type the caller may see (AccessDenied otherwise) and
 * exists (InvalidRequest naming the member otherwise).
 */
export async function assertReferencesExist(
  ctx: EngineContext,
  type: ResourceType,
  model: Model,
  caller?: Caller,
  /** Resources written with this one (`typeName\nidentifier`): they exist once it does. */
  madeWith?: ReadonlySet<string>,
): Promise<void> {
  if (type.traits.references.length === 0) return;
  const refs = await referencesOf(ctx, type, model);
  const hidden = caller ? refs.filter((ref) => !caller.canSee(ref.typeName)) : [];
  if (hidden.length > 0) {
    throw new TypeplaneError(
      'AccessDenied',
      `this token cannot refer to resources of ${[...new Set(hidden.map((r) => r.typeName))].join(', ')}: it is scoped to other types`,
      hidden.map((r) => ({
        pointer: r.member,
        message: `refers to ${r.typeName}, outside this token's types`,
      })),
    );
  }
  const missing: { pointer: string; message: string }[] = [];
  for (const ref of refs) {
    // Not resolvable while its type is not registered (registration warned): neither checked nor recorded.
    if (ref.unregistered || madeWith?.has(`${ref.typeName}\n${ref.identifier}`)) continue;
    if (!(await ctx.store.getResource(ref.typeName, ref.identifier))) {
      missing.push({
        pointer: ref.member,
        message: `refers to ${ref.typeName} ${ref.identifier}, which does not exist`,
      });
    }
  }
  if (missing.length > 0) {
    throw new TypeplaneError(
      'InvalidRequest',
      `referenced resources do not exist: ${missing.map((m) => `${m.pointer} ${m.message}`).join('; ')}`,
      missing,
    );
  }
}

/**
 * The resources a model refers to, by its type's `references`. A reference is enforced when its
 * ids cover the referenced type's primary identifier (a CloudFormation relationshipRef to, say, an
 * Arn that is not the identifier is documentation only).
 */
export async function referencesOf(
  ctx: EngineContext,
  type: ResourceType,
  model: Model,
): Promise<Reference[]> {
  const found: Reference[] = [];
  for (const ref of type.traits.references) {
    let target: ResourceType | undefined;
    try {
      target = (await ctx.registry.get(ref.typeName)).type;
    } catch {
      target = undefined;
    }
    const ids =
      ref.ids.length > 0
        ? ref.ids.map((id) => ({
            target:
              id.target === ''
                ? target?.primaryIdentifier.length === 1
                  ? target.primaryIdentifier[0]!
                  : ''
                : id.target,
            member: id.member,
          }))
        : (target?.primaryIdentifier.map((p) => ({ target: p, member: p })) ?? []);
    const members = ids.map((id) => valuesAt(model, id.member));
    if (members.every((values) => values.length === 0)) continue; // nothing referred to
    if (!target) {
      found.push({
        typeName: ref.typeName,
        identifier: '',
        member: ids[0]?.member ?? '',
        unregistered: true,
      });
      continue;
    }
    const targets = new Set(ids.map((id) => id.target));
    if (
      targets.size !== target.primaryIdentifier.length ||
      !target.primaryIdentifier.every((p) => targets.has(p))
    )
      continue;
    if (ids.length === 1) {
      for (const { value } of members[0]!) {
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
          found.push({ typeName: target.typeName, identifier: String(value), member: ids[0]!.member });
        }
      }
      continue;
    }
    // Compound identifier: one value per part, in the referenced type's identifier order.
    if (members.some((values) => values.length !== 1)) continue;
    const parts = target.primaryIdentifier.map(
      (p) => members[ids.findIndex((id) => id.target === p)]![0]!.value,
    );
    found.push({
      typeName: target.typeName,
      identifier: parts.map(String).join('|'),
      member: ids[0]!.member,
    });
  }
  return found;
}

/** The references to record with a model (registered targets only). */
export async function resolvedReferences(
  ctx: EngineContext,
  type: ResourceType,
  model: Model,
): Promise<ResourceKey[]> {
  return (await referencesOf(ctx, type, model))
    .filter((r) => !r.unregistered)
    .map(({ typeName, identifier }) => ({ typeName, identifier }));
}

/** The references to record with a model; undefined for a type that has none (nothing to replace). */
export async function recordedReferences(
  ctx: EngineContext,
  type: ResourceType,
  model: Model,
): Promise<ResourceKey[] | undefined> {
  if (type.traits.references.length === 0) return undefined;
  return resolvedReferences(ctx, type, model);
}

export function stillReferenced(
  typeName: string,
  identifier: string,
  dependants: ResourceKey[],
  caller?: Caller,
): TypeplaneError {
  const named = caller ? dependants.filter((d) => caller.canSee(d.typeName)) : dependants;
  const unnamed = named.length < dependants.length ? ['resources of types this token cannot see'] : [];
  return new TypeplaneError(
    'ResourceConflict',
    `${typeName} ${identifier} is still referenced by ${[...named.map((d) => `${d.typeName} ${d.identifier}`), ...unnamed].join(', ')}; delete or change those first`,
    named.map((d) => ({
      message: 'refers to this resource',
      typeName: d.typeName,
      identifier: d.identifier,
    })),
  );
}

/** Both directions of references for one resource. */
export async function references(
  ctx: EngineContext,
  typeName: string,
  identifier: string,
): Promise<{
  references: { typeName: string; identifier: string }[];
  referencedBy: { typeName: string; identifier: string }[];
}> {
  const compiled = await ctx.registry.get(typeName);
  const found = await findResource(ctx.store, compiled.type, identifier);
  if (!found) {
    throw new TypeplaneError('NotFound', `${compiled.type.typeName} ${identifier} does not exist`);
  }
  return {
    references: await ctx.store.listReferences(compiled.type.typeName, found.identifier),
    referencedBy: await ctx.store.listReferrers(compiled.type.typeName, found.identifier, MAX_RESULTS_LIMIT),
  };
}

/**
 * @module Create-or-replace (PUT, as ARM and Radius do): a create when the resource does not exist,
 * otherwise a replacement of its whole desired state — unless the type has the `noReplace` trait.
 */
import { TypeplaneError } from '../errors.js';
import { identifierModel, identifierOf, valuesAt } from '../model/index.js';
import { begin, failImmediately } from './begin.js';
import type { Caller } from './caller.js';
import type { EngineContext } from './context.js';
import { create } from './create.js';
import { refuseReadOnly, requireModel } from './input.js';
import { replaceInRecord } from './record-backed.js';
import { resourceWithSecrets } from './sealing.js';
import type { ProgressEvent } from './types.js';
import { assertUpdatable } from './update.js';

export async function put(
  ctx: EngineContext,
  typeName: string,
  identifier: string,
  desiredState: unknown,
  clientToken?: string,
  caller?: Caller,
): Promise<ProgressEvent> {
  const compiled = await ctx.registry.get(typeName);
  const type = compiled.type;
  const desired = requireModel(desiredState, 'desiredState');
  const given = identifierOf(type, desired);
  if (given !== undefined && given !== identifier) {
    throw new TypeplaneError(
      'InvalidRequest',
      `the desired state identifies ${given}, but the path names ${identifier}`,
    );
  }
  const current = await resourceWithSecrets(ctx.store, ctx.sealer, type.typeName, identifier);
  if (!current) {
    // Identifier values not in the body come from the path.
    const fromPath = identifierModel(type, identifier);
    if (!fromPath)
      throw new TypeplaneError('InvalidRequest', `'${identifier}' is not an identifier of ${type.typeName}`);
    for (const [key, value] of Object.entries(fromPath)) if (desired[key] === undefined) desired[key] = value;
    return create(ctx, typeName, desired, clientToken, caller);
  }
  if (type.traits.noReplace) {
    return failImmediately(
      ctx,
      compiled,
      'UPDATE',
      identifier,
      'AlreadyExists',
      `${type.typeName} ${identifier} already exists and its type does not allow replacing (noReplace); update it with PATCH`,
      clientToken,
      { put: desiredState },
    );
  }
  refuseReadOnly(type, desired);
  // What the provider set stays; everything else is replaced by the body.
  for (const pointer of type.readOnlyProperties) {
    for (const { path, value } of valuesAt(current.properties, pointer)) {
      if (path.length === 1) desired[String(path[0])] = structuredClone(value);
    }
  }
  for (const [key, value] of Object.entries(identifierModel(type, identifier) ?? {})) {
    if (desired[key] === undefined) desired[key] = value;
  }
  await assertUpdatable(ctx, compiled, current.properties, desired, caller);
  const provider = ctx.providerFor(type.typeName);
  return begin(ctx, {
    compiled,
    operation: 'UPDATE',
    identifier,
    request: { desiredState: desired, previousState: current.properties },
    clientToken,
    hashOf: { identifier, put: desiredState },
    ...(provider.recordBacked
      ? { decide: await replaceInRecord(ctx, type, identifier, current, desired) }
      : { basedOn: current }),
  });
}

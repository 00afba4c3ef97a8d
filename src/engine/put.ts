/**
 * @module Create-or-replace (PUT, as ARM and Radius do): a create when the resource does not exist,
 * otherwise a replacement of its whole desired state — unless the type has the `noReplace` trait.
 */
import { TypeplaneError } from '../errors.js';
import { identifierModel, identifierOf, valuesAt } from '../model/index.js';
import { assertAdmitted, assertSupported } from './admission.js';
import { askedBy, begin, failImmediately } from './begin.js';
import type { Caller } from './caller.js';
import type { EngineContext } from './context.js';
import { create } from './create.js';
import { refuseReadOnly, requireModel } from './input.js';
import { replaceInRecord } from './record-backed.js';
import { replayOf, warned } from './review.js';
import { opened } from './sealing.js';
import type { ProgressEvent } from './types.js';
import { assertUpdatable } from './update.js';

export async function put(
  ctx: EngineContext,
  typeName: string,
  identifier: string,
  desiredState: unknown,
  clientToken?: string,
  caller?: Caller,
  version?: string,
): Promise<ProgressEvent> {
  const compiled = await ctx.registry.get(typeName, version);
  const type = compiled.type;
  await assertAdmitted(ctx, compiled);
  const desired = requireModel(desiredState, 'desiredState');
  const given = identifierOf(type, desired);
  if (given !== undefined && given !== identifier) {
    throw new TypeplaneError(
      'InvalidRequest',
      `the desired state identifies ${given}, but the path names ${identifier}`,
    );
  }
  // One request whichever branch it takes: a retry after its create finds the resource, and replays.
  const hashOf =
    version === undefined ? { identifier, put: desiredState } : { identifier, put: desiredState, version };
  // A PUT names the primary identifier it creates or replaces (additional identifiers are not looked up).
  const stored = await ctx.store.getResource(type.typeName, identifier);
  const current = stored && opened(ctx.sealer, stored);
  if (!current) {
    // Identifier values not in the body come from the path.
    const fromPath = identifierModel(type, identifier);
    if (!fromPath)
      throw new TypeplaneError('InvalidRequest', `'${identifier}' is not an identifier of ${type.typeName}`);
    for (const [key, value] of Object.entries(fromPath)) if (desired[key] === undefined) desired[key] = value;
    return create(ctx, typeName, desired, clientToken, caller, version, { as: 'PUT', of: hashOf });
  }
  if (type.traits.noReplace) {
    // Under noReplace a PUT can only create: an existing resource fails it as a create would.
    return failImmediately(
      ctx,
      compiled,
      'CREATE',
      identifier,
      'AlreadyExists',
      `${type.typeName} ${identifier} already exists and its type does not allow replacing (noReplace); update it with PATCH`,
      clientToken,
      hashOf,
      'PUT',
      caller?.id,
    );
  }
  assertSupported(type, 'update');
  const replay = await replayOf(ctx, { operation: 'UPDATE', compiled, caller }, clientToken, {
    as: 'PUT',
    of: hashOf,
  });
  if (replay) return replay;
  refuseReadOnly(type, desired);
  // What the provider set stays; everything else is replaced by the body. A nested read-only value
  // stays where the body still has the object holding it (without it goes the value, as with PATCH).
  for (const pointer of type.readOnlyProperties) {
    for (const { path, value } of valuesAt(current.properties, pointer)) {
      let holder: unknown = desired;
      for (const token of path.slice(0, -1))
        holder = (holder as Record<string | number, unknown> | undefined)?.[token];
      if (typeof holder === 'object' && holder !== null)
        (holder as Record<string | number, unknown>)[path.at(-1)!] = structuredClone(value);
    }
  }
  for (const [key, value] of Object.entries(identifierModel(type, identifier) ?? {})) {
    if (desired[key] === undefined) desired[key] = value;
  }
  const verdicts = await assertUpdatable(ctx, compiled, current.properties, desired, caller, identifier);
  const provider = ctx.providerFor(type.typeName);
  return begin(ctx, {
    compiled,
    operation: 'UPDATE',
    identifier,
    request: { desiredState: desired, previousState: current.properties },
    clientToken,
    hashOf,
    hashAs: 'PUT',
    asDefault: version === undefined,
    ...askedBy(caller),
    ...(provider.recordBacked
      ? { decide: await replaceInRecord(ctx, type, identifier, current, desired, compiled.version) }
      : { basedOn: current }),
    ...warned(verdicts),
  });
}

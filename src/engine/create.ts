/**
 * @module Create: the desired state checked (read-only, schema, identifier, references), then an
 * operation begun (`begin.ts`) for the worker to run — or, for a record-backed provider, decided at
 * once (`record-backed.ts`).
 */
import { identifierOf } from '../model/index.js';
import type { RequestKind } from './client-token.js';
import type { Caller } from './caller.js';
import type { EngineContext } from './context.js';
import { assertAdmitted } from './admission.js';
import { askedBy, begin } from './begin.js';
import { checkIdentifierValues } from './identifiers.js';
import { assertRules, assertValid, refuseReadOnly, requireModel } from './input.js';
import { createInRecord } from './record-backed.js';
import { assertReferencesExist } from './references.js';
import { replayOf, reviewChange, warned } from './review.js';
import type { ProgressEvent } from './types.js';

export async function create(
  ctx: EngineContext,
  typeName: string,
  desiredState: unknown,
  clientToken?: string,
  caller?: Caller,
  version?: string,
  /** How a client token compares this request, when it is not a plain create (a PUT's). */
  hashed: { as?: RequestKind; of: unknown } = { of: hashOf(desiredState, version) },
): Promise<ProgressEvent> {
  const compiled = await ctx.registry.get(typeName, version);
  const type = compiled.type;
  await assertAdmitted(ctx, compiled, 'create');
  const replay = await replayOf(ctx, { operation: 'CREATE', compiled, caller }, clientToken, {
    as: hashed.as ?? 'CREATE',
    of: hashed.of,
  });
  if (replay) return replay;
  const desired = requireModel(desiredState, 'desiredState');
  refuseReadOnly(type, desired);
  assertValid(compiled, desired);
  assertRules(compiled, desired);
  const provider = ctx.providerFor(type.typeName);
  checkIdentifierValues(
    type,
    desired,
    provider.recordBacked !== undefined,
    provider.recordBacked?.generates(type),
  );
  await assertReferencesExist(ctx, type, desired, caller);
  const identifier = identifierOf(type, desired);
  const verdicts = await reviewChange(ctx, {
    operation: 'CREATE',
    compiled,
    ...(identifier !== undefined ? { identifier } : {}),
    object: desired,
    ...(caller ? { caller } : {}),
  });
  if (provider.recordBacked) {
    return createInRecord(ctx, compiled, provider, desired, clientToken, hashed, {
      asDefault: version === undefined,
      ...warned(verdicts),
      ...askedBy(caller),
    });
  }
  return begin(ctx, {
    compiled,
    operation: 'CREATE',
    identifier,
    request: { desiredState: desired },
    clientToken,
    hashOf: hashed.of,
    ...(hashed.as ? { hashAs: hashed.as } : {}),
    asDefault: version === undefined,
    ...warned(verdicts),
    ...askedBy(caller),
  });
}

/** What a client token is compared on: a version named is part of the request. */
function hashOf(desiredState: unknown, version: string | undefined): unknown {
  return version === undefined ? { desiredState } : { desiredState, version };
}

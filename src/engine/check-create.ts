/**
 * @module A create's checks: everything decided before its operation begins (read-only values,
 * schema, rules, identifiers, references, the review), shared by a create and a composed create's parts.
 */
import type { Provider } from '../handler/index.js';
import { identifierOf, type Model } from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import { assertAdmitted } from './admission.js';
import { askedBy, type BeginArgs } from './begin.js';
import type { Caller } from './caller.js';
import type { RequestKind } from './client-token.js';
import type { EngineContext } from './context.js';
import { checkIdentifierValues } from './identifiers.js';
import { assertRules, assertValid, refuseReadOnly, requireModel } from './input.js';
import { assertReferencesExist } from './references.js';
import { replayOf, reviewChange, warned } from './review.js';
import type { ProgressEvent } from './types.js';

/** A create checked, everything decided before it begins; or the earlier operation its client token replays. */
export type CheckedCreate =
  | { replay: ProgressEvent }
  | {
      compiled: CompiledType;
      desired: Model;
      provider: Provider;
      identifier: string | undefined;
      /** As the operation begins: against the default version or not, the review's warnings, who asks. */
      as: Pick<BeginArgs, 'asDefault' | 'warnings' | 'requestedBy'>;
    };

/**
 * Everything a create is checked on before it begins (read-only values, schema, rules, identifiers,
 * references, the review). `madeWith`: resources written in the same transaction as this one (a
 * composed create's parts), which its references may name.
 */
export async function checkCreate(
  ctx: EngineContext,
  typeName: string,
  desiredState: unknown,
  clientToken: string | undefined,
  caller: Caller | undefined,
  version: string | undefined,
  hashed: { as?: RequestKind; of: unknown },
  madeWith?: ReadonlySet<string>,
): Promise<CheckedCreate> {
  // Each step that has nothing to ask of the store (most creates' every step) is called without a
  // promise: a create makes fewer, and each costs a turn of the microtask queue.
  const compiled = ctx.registry.now(typeName, version) ?? (await ctx.registry.get(typeName, version));
  const type = compiled.type;
  const admitted = assertAdmitted(ctx, compiled, 'create');
  if (admitted) await admitted;
  const replaying = replayOf(ctx, { operation: 'CREATE', compiled, caller }, clientToken, {
    as: hashed.as ?? 'CREATE',
    of: hashed.of,
  });
  const replay = replaying && (await replaying);
  if (replay) return { replay };
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
  if (type.traits.references.length > 0) await assertReferencesExist(ctx, type, desired, caller, madeWith);
  const identifier = identifierOf(type, desired);
  // Members named, undefined or not, rather than spread in (see src/members.ts).
  const review = reviewChange(ctx, { operation: 'CREATE', compiled, identifier, object: desired, caller });
  const verdicts = review instanceof Promise ? await review : review;
  return {
    compiled,
    desired,
    provider,
    identifier,
    as: { asDefault: version === undefined, ...warned(verdicts), ...askedBy(caller) },
  };
}

/** What a client token is compared on: a version named is part of the request. */
export function hashOf(desiredState: unknown, version: string | undefined): unknown {
  return version === undefined ? { desiredState } : { desiredState, version };
}

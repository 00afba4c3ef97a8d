/**
 * @module A composed create (a provider's `composes`: recipes): the resource and its parts decided
 * whole before anything is written — each part checked as its own create would be, its model computed
 * by its record-backed provider — then written in one store transaction (completeAll): the resource,
 * its parts, their operations (each terminal) and the provider's records, all or none. Nothing is
 * left half made, to resume or to roll back, and no part carries a client token (none is ever asked
 * for again). Whatever cannot be decided so (a part whose provider has effects, any refusal or
 * failure) runs as an operation instead, through the handlers, exactly as if this path did not exist.
 */
import { TypeplaneError } from '../errors.js';
import { withMembers } from '../members.js';
import type { ComposeParts, Composed, Provider } from '../handler/index.js';
import { identifierOf, stripWriteOnly, type Model } from '../model/index.js';
import type { CompletionRequest, StoredResource } from '../store/types.js';
import { assertConfigured } from './admission.js';
import { begun, completionOf, type BeginArgs } from './begin.js';
import { checkCreate } from './check-create.js';
import { checkModel } from './check-answer.js';
import type { EngineContext } from './context.js';
import { outcomeProblem } from './outcome.js';
import { additionalKeys, createDecided, recordedNew } from './record-backed.js';
import { recordedReferences } from './references.js';
import { newRequestToken } from './request-token.js';
import type { ProgressEvent } from './types.js';
import { inSpan, traced } from '../telemetry/spans.js';

/**
 * The create `args` (of `provider`'s type, asking for `desired`) composed; undefined when it must run
 * as an operation. Traced, in a span of its own.
 */
export function createComposed(
  ctx: EngineContext,
  args: BeginArgs,
  provider: Provider,
  desired: Model,
): Promise<ProgressEvent | undefined> {
  if (!traced()) return composeHere(ctx, args, provider, desired);
  return inSpan(
    'compose CREATE',
    {
      'typeplane.type_name': args.compiled.type.typeName,
      'typeplane.operation': 'CREATE',
      ...(args.identifier !== undefined ? { 'typeplane.identifier': args.identifier } : {}),
    },
    () => composeHere(ctx, args, provider, desired),
  );
}

async function composeHere(
  ctx: EngineContext,
  args: BeginArgs,
  provider: Provider,
  desired: Model,
): Promise<ProgressEvent | undefined> {
  const { compiled } = args;
  const type = compiled.type;
  const requestToken = newRequestToken();
  const parts: CompletionRequest[] = [];
  /** The parts decided so far (`typeName\nidentifier`): later ones may refer to them. */
  const madeWith = new Set<string>();
  const make: ComposeParts['make'] = async (typeName, properties, as) => {
    const configured = assertConfigured(ctx, typeName);
    if (configured) await configured;
    // No client token: nothing of the whole is written unless all of it is, in one transaction, and
    // the whole's token is fresh (this attempt's), so no part is asked for again (none to replay, no
    // request to hash).
    const hashed = { of: undefined };
    const checked = await checkCreate(ctx, typeName, properties, undefined, as, undefined, hashed, madeWith);
    if ('replay' in checked || !checked.provider.recordBacked) return undefined;
    const part = checked.compiled.type;
    const decided = await createDecided(ctx, {
      compiled: checked.compiled,
      provider: checked.provider,
      desired: checked.desired,
      clientToken: undefined,
      hashed,
      as: checked.as,
    });
    if (!decided.model || decided.identifier === undefined) return undefined;
    const key = `${part.typeName}\n${decided.identifier}`;
    // Two parts of one name: the second's create would fail, and the operation path says how.
    if (madeWith.has(key)) return undefined;
    madeWith.add(key);
    parts.push(completionOf(ctx, decided));
    return { identifier: decided.identifier, model: stripWriteOnly(part, decided.model) };
  };
  let composed: Composed | undefined;
  try {
    composed = await provider.composes!.create(
      { typeName: type.typeName, desiredState: desired, clientRequestToken: requestToken },
      { make, recordBacked: (typeName) => ctx.providerFor(typeName).recordBacked !== undefined },
    );
  } catch (e) {
    if (e instanceof TypeplaneError) return undefined;
    throw e;
  }
  if (!composed) return undefined;
  // The model is checked as a handler's answer is.
  let model: Model;
  try {
    model = checkModel(ctx.log, provider, compiled, composed.resourceModel, undefined);
  } catch {
    return undefined;
  }
  const identifier = identifierOf(type, model);
  if (
    identifier === undefined ||
    identifier !== args.identifier ||
    outcomeProblem(compiled, 'CREATE', desired, model) !== undefined
  )
    return undefined;
  const references = await recordedReferences(ctx, type, model);
  const keys = additionalKeys(type, model);
  const decide = (current: StoredResource | undefined) =>
    current
      ? {
          status: 'FAILED' as const,
          errorCode: 'AlreadyExists' as const,
          statusMessage: `${type.typeName} ${identifier} already exists`,
        }
      : recordedNew(compiled, identifier, model, references, keys);
  const lead = completionOf(ctx, withMembers(args, { requestToken, decide }));
  let result;
  try {
    result = await ctx.store.completeAll([lead, ...parts], composed.records);
  } catch (e) {
    // An additional identifier taken meanwhile, a default version moved: decided again, as an operation.
    if (e instanceof TypeplaneError) return undefined;
    throw e;
  }
  if (result.kind === 'refused') return undefined;
  if (result.kind === 'started' && result.operation.status === 'SUCCESS')
    for (const { operation: ended } of parts)
      ctx.observer?.operationEnded(ended.typeName, ended.operation, ended.status, ended.errorCode, ended);
  return begun(ctx, { compiled, identifier, decide }, result);
}

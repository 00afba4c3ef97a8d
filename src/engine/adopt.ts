/**
 * @module Adopt: a resource its provider has but Typeplane has no record of, read through the provider's
 * read handler and recorded (CloudFormation's resource import, for one resource); and the identifiers
 * the provider's list handler returns that Typeplane has no record of (what can be adopted). The
 * reverse of `forget.ts`; nothing is created or changed at the provider.
 */
import { TypeplaneError } from '../errors.js';
import { identifierModel, identifierOf, stripNulls, stripWriteOnly, type Model } from '../model/index.js';
import type { Completion } from '../store/types.js';
import { assertSupported } from './admission.js';
import { askedBy, begin } from './begin.js';
import { reviewChange, warned } from './review.js';
import type { Caller } from './caller.js';
import { checkModel, contractViolation } from './check-answer.js';
import type { EngineContext } from './context.js';
import { MAX_RESULTS_LIMIT, parseMaxResults, parseNextToken } from './input.js';
import { askProvider, readSucceeded } from './read.js';
import { additionalKeys, recordedNew } from './record-backed.js';
import { recordedReferences } from './references.js';
import { findResource } from './sealing.js';
import type { ProgressEvent, ResourceDescription } from './types.js';

/**
 * Recorded as a CREATE completed at once (so it shows in the requests), under the checks a create's
 * record has: not while another operation is active on the identifier, its additional identifiers
 * unique, its references to recorded resources; and reviewed as a create is (admission policies,
 * hooks), with the properties read: a resource Typeplane takes charge of is judged as one it makes.
 */
export async function adopt(
  ctx: EngineContext,
  typeName: string,
  identifier: string,
  caller?: Caller,
): Promise<ProgressEvent> {
  const compiled = await ctx.registry.get(typeName);
  const type = compiled.type;
  const provider = ctx.providerFor(type.typeName);
  // The state provider's resources are its records: one it has no record of does not exist.
  if (provider.recordBacked)
    throw new TypeplaneError(
      'InvalidRequest',
      `${type.typeName} is kept by Typeplane's own state provider, whose record is the resource: there is nothing outside Typeplane to import; create it instead`,
    );
  assertSupported(type, 'read');
  const asked = identifierModel(type, identifier);
  if (!asked)
    throw new TypeplaneError(
      'InvalidRequest',
      `'${identifier}' is not an identifier of ${type.typeName}: give its primary identifier (${type.primaryIdentifier.join(', ')}), values joined by '|' in that order`,
    );
  const held = await findResource(ctx.store, type, identifier);
  if (held)
    throw new TypeplaneError(
      'AlreadyExists',
      `${type.typeName} ${held.identifier} is already recorded: Typeplane manages it (read it with 'typeplane resource get')`,
    );
  const event = await askProvider(ctx, provider, type, 'read', { desiredState: asked });
  await readSucceeded(
    ctx,
    provider,
    event,
    (said) =>
      new TypeplaneError(
        'NotFound',
        `the provider has no ${type.typeName} ${identifier}${said ? ` (it said: ${said})` : ''}: nothing to import`,
      ),
  );
  const model = checkModel(ctx.log, provider, compiled, event.resourceModel, undefined);
  const read = identifierOf(type, model);
  if (read !== identifier)
    throw contractViolation(
      ctx.log,
      provider,
      `read of ${identifier} answered a model identified as ${read ?? 'nothing'}`,
    );
  const references = await recordedReferences(ctx, type, model);
  const keys = additionalKeys(type, model);
  const verdicts = await reviewChange(ctx, {
    operation: 'CREATE',
    compiled,
    identifier,
    object: model,
    ...(caller ? { caller } : {}),
  });
  return begin(ctx, {
    compiled,
    operation: 'CREATE',
    identifier,
    request: {},
    clientToken: undefined,
    hashOf: {},
    ...askedBy(caller),
    statusMessage: `imported: read through the provider and recorded (nothing was created)`,
    ...warned(verdicts),
    decide: (current): Completion => {
      if (current)
        return {
          status: 'FAILED',
          errorCode: 'AlreadyExists',
          statusMessage: `${type.typeName} ${identifier} is already recorded`,
        };
      return recordedNew(compiled, identifier, model, references, keys);
    },
  });
}

/**
 * One page of the provider's list handler, without the resources Typeplane has a record of: what
 * {@link adopt} can import. Bounded: the provider is asked for `maxResults` (at most
 * {@link MAX_RESULTS_LIMIT}), and a page of more than that is a contract violation.
 */
export async function unmanaged(
  ctx: EngineContext,
  typeName: string,
  options: { maxResults?: unknown; nextToken?: unknown },
): Promise<{ resourceDescriptions: ResourceDescription[]; nextToken: string | null }> {
  const compiled = await ctx.registry.get(typeName);
  const type = compiled.type;
  const provider = ctx.providerFor(type.typeName);
  if (provider.recordBacked) return { resourceDescriptions: [], nextToken: null };
  assertSupported(type, 'list');
  const maxResults = parseMaxResults(options.maxResults);
  const nextToken = parseNextToken(options.nextToken);
  const event = await askProvider(ctx, provider, type, 'list', {
    desiredState: {},
    maxResults,
    ...(nextToken !== undefined ? { nextToken } : {}),
  });
  if (event.status === 'FAILED') {
    const code = event.errorCode ?? 'GeneralServiceException';
    throw new TypeplaneError(code, event.message ?? `list failed with ${code}`);
  }
  const models: unknown[] = event.resourceModels ?? [];
  if (event.status !== 'SUCCESS' || models.length > MAX_RESULTS_LIMIT)
    throw contractViolation(
      ctx.log,
      provider,
      event.status !== 'SUCCESS'
        ? 'list answered IN_PROGRESS; list handlers must answer at once'
        : `list answered ${models.length} models in one page, over the ${MAX_RESULTS_LIMIT} a page may hold`,
    );
  const out: ResourceDescription[] = [];
  for (const raw of models) {
    // A list handler may answer the identifying properties alone: only those are required.
    const model =
      typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? stripNulls(raw as Model) : {};
    const identifier = identifierOf(type, model);
    if (identifier === undefined)
      throw contractViolation(ctx.log, provider, 'list answered a model without its primary identifier');
    if (await ctx.store.getResource(type.typeName, identifier)) continue;
    out.push({ identifier, properties: stripWriteOnly(type, model) });
  }
  return { resourceDescriptions: out, nextToken: event.nextToken ?? null };
}

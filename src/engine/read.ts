/**
 * @module Read and list: a read asks the provider (at once, bounded in time) and checks its answer; a
 * list pages through the engine's index.
 */
import { TypeplaneError } from '../errors.js';
import { identifierModel, stripNulls, stripWriteOnly, type Model } from '../model/index.js';
import { checkModel, contractViolation } from './check-answer.js';
import { configurationOf, timeoutMinutes, type EngineContext } from './context.js';
import { parseMaxResults, parseNextToken } from './input.js';
import { invoke } from './invoke.js';
import { lazyChild } from './logger.js';
import { newRequestToken } from './request-token.js';
import { opened } from './sealing.js';
import type { ResourceDescription } from './types.js';

/** The longest a read may take, whatever the type's read timeout: it answers an HTTP request. */
const MAX_READ_MS = 60_000;

/** The resource as its provider reports it now. */
export async function read(
  ctx: EngineContext,
  typeName: string,
  identifier: string,
): Promise<ResourceDescription> {
  const compiled = await ctx.registry.get(typeName);
  const type = compiled.type;
  const stored = await ctx.store.getResource(type.typeName, identifier);
  const key = stored?.properties ?? identifierModel(type, identifier);
  if (!stored || !key) throw new TypeplaneError('NotFound', `${type.typeName} ${identifier} does not exist`);
  const provider = ctx.providerFor(type.typeName);
  // Recorded models were checked against the schema when their operation finished.
  if (provider.readsFromRecord) return { identifier, properties: stripWriteOnly(type, stored.properties) };
  const requestToken = newRequestToken();
  const event = await invoke(ctx.log, provider, 'read', type, {
    typeName: type.typeName,
    // The provider is handed the whole recorded model, as for the other handlers.
    desiredState: opened(ctx.sealer, stored).properties,
    clientRequestToken: requestToken,
    logger: lazyChild(ctx.log, { requestToken, operation: 'READ' }),
    // A read answers an HTTP request: bounded by the type's read timeout and by a minute at most.
    signal: AbortSignal.timeout(Math.min(timeoutMinutes(type, 'read') * ctx.minuteMs, MAX_READ_MS)),
    ...(await configurationOf(ctx, type)),
  });
  if (event.status === 'FAILED') {
    const code = event.errorCode ?? 'GeneralServiceException';
    throw new TypeplaneError(code, event.message ?? `read failed with ${code}`);
  }
  if (event.status !== 'SUCCESS')
    throw contractViolation(
      ctx.log,
      provider,
      'read answered IN_PROGRESS; read handlers must answer at once',
    );
  // What the provider reports as recorded may keep violating a later version of the type.
  const model = checkModel(ctx.log, provider, compiled, event.resourceModel, identifier, stored.properties);
  return { identifier, properties: stripWriteOnly(type, model) };
}

export async function list(
  ctx: EngineContext,
  typeName: string,
  options: { maxResults?: unknown; nextToken?: unknown },
): Promise<{ resourceDescriptions: ResourceDescription[]; nextToken: string | null }> {
  const compiled = await ctx.registry.get(typeName);
  const type = compiled.type;
  const limit = parseMaxResults(options.maxResults);
  const nextToken = parseNextToken(options.nextToken);
  const page = await ctx.store.listResources(type.typeName, { limit, ...(nextToken ? { nextToken } : {}) });
  return {
    resourceDescriptions: page.items.map((r) => ({
      identifier: r.identifier,
      properties: stripNulls(stripWriteOnly(type, r.properties)) as Model,
    })),
    nextToken: page.nextToken ?? null,
  };
}

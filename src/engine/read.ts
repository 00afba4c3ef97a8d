/**
 * @module Read and list: a read asks the provider (at once, bounded in time) and checks its answer,
 * and never changes the record; a list pages through the engine's index.
 */
import { TypeplaneError } from '../errors.js';
import { stripNulls, stripWriteOnly, type Model } from '../model/index.js';
import { RESOURCE_PAGE_BYTES, resourceCursor } from '../store/index.js';
import type { StoredResource } from '../store/types.js';
import type { ResourceType } from '../schema/index.js';
import type { CompiledType } from '../registry/compile.js';
import { assertAdmitted, assertSupported } from './admission.js';
import { checkModel, contractViolation } from './check-answer.js';
import { tooSlow, type HandlerEvent, type HandlerRequest, type Provider } from '../handler/index.js';
import { configurationOf, timeoutMinutes, type EngineContext } from './context.js';
import { parseMaxResults, parseNextToken } from './input.js';
import { invoke } from './invoke.js';
import { matches, parseFilters, type ListFilter } from './list-filter.js';
import { lazyChild } from './logger.js';
import { notFoundNow, observe } from './observed.js';
import { newRequestToken } from './request-token.js';
import { findByAdditionalIdentifier, findResource, opened } from './sealing.js';
import type { RecordedDescription, ResourceDescription } from './types.js';

/** The resource as its provider reports it now. */
export async function read(
  ctx: EngineContext,
  compiled: CompiledType,
  identifier: string,
): Promise<ResourceDescription> {
  const answer = await readAnswer(ctx, compiled, identifier);
  return 'propertiesJson' in answer
    ? { identifier: answer.identifier, properties: JSON.parse(answer.propertiesJson) as Model }
    : answer;
}

/**
 * The resource as {@link read} answers it, or, when the recorded model is that answer as it stands
 * (its provider reads from the record, the type has no write-only property, the model holds no null),
 * its JSON text as stored: JSON.stringify's own, so answered as it is, unparsed.
 */
export async function readAnswer(
  ctx: EngineContext,
  compiled: CompiledType,
  identifier: string,
): Promise<ResourceDescription | RecordedDescription> {
  const type = compiled.type;
  assertSupported(type, 'read');
  // Awaited only where there is something to wait for: a read is the API's most frequent call.
  if (ctx.requirePassingContract) await assertAdmitted(ctx, compiled);
  const provider = ctx.providerFor(type.typeName);
  // Recorded models were checked against the schema when their operation finished: a read by the
  // primary identifier, the usual one, reads nothing else of the record.
  let stored: StoredResource | undefined;
  if (provider.readsFromRecord) {
    const json = await ctx.store.getResourceJson(type.typeName, identifier);
    if (json !== undefined)
      return type.writeOnlyProperties.length === 0 && !json.includes('null')
        ? { identifier, propertiesJson: json }
        : { identifier, properties: recorded(type, JSON.parse(json) as Model) };
    // Not a primary identifier: the store is not asked that again.
    stored = await findByAdditionalIdentifier(ctx.store, type, identifier);
  } else stored = await findResource(ctx.store, type, identifier);
  if (!stored) throw doesNotExist(type, identifier);
  // Answered under its primary identifier, whichever identifier the caller named it by.
  const primary = stored.identifier;
  if (provider.readsFromRecord) return { identifier: primary, properties: recorded(type, stored.properties) };
  // The provider is handed the whole recorded model, as for the other handlers.
  const event = await askProvider(ctx, provider, type, 'read', {
    desiredState: opened(ctx.sealer, stored).properties,
  });
  await readSucceeded(ctx, provider, event, async (said) => {
    await observe(ctx, stored, notFoundNow());
    return providerLost(type.typeName, primary, said);
  });
  // What the provider reports as recorded may keep violating a later version of the type.
  const model = checkModel(ctx.log, provider, compiled, event.resourceModel, primary, stored.properties);
  await observe(ctx, stored, undefined);
  return { identifier: primary, properties: stripWriteOnly(type, model) };
}

/**
 * One call of a provider's read or list handler, bounded by the type's timeout for it and by the
 * contract's limit on a read (30 s): one that runs past the contract's limit is a contract violation.
 */
export async function askProvider(
  ctx: EngineContext,
  provider: Provider,
  type: ResourceType,
  action: 'read' | 'list',
  request: Pick<HandlerRequest, 'desiredState' | 'nextToken' | 'maxResults'>,
): Promise<HandlerEvent> {
  const requestToken = newRequestToken();
  const typeLimit = AbortSignal.timeout(timeoutMinutes(type, action) * ctx.minuteMs);
  const callLimit = AbortSignal.timeout(ctx.callLimits.read);
  const configuration = await configurationOf(ctx, type);
  // Assigned in order, as the spreads would (see src/members.ts).
  const event = await invoke(
    ctx.log,
    provider,
    action,
    type,
    Object.assign(
      { typeName: type.typeName },
      request,
      {
        clientRequestToken: requestToken,
        logger: lazyChild(ctx.log, { requestToken, operation: action === 'read' ? 'READ' : 'LIST' }),
        signal: AbortSignal.any([typeLimit, callLimit]),
      },
      configuration,
    ),
  );
  if (callLimit.aborted && !typeLimit.aborted)
    throw contractViolation(ctx.log, provider, tooSlow(action, ctx.callLimits.read));
  return event;
}

/**
 * Throws unless a read answered SUCCESS: NotFound as `notFound` makes it, another failure with its
 * code, IN_PROGRESS as a contract violation.
 */
export async function readSucceeded(
  ctx: EngineContext,
  provider: Provider,
  event: HandlerEvent,
  notFound: (said: string | undefined) => Promise<TypeplaneError> | TypeplaneError,
): Promise<void> {
  if (event.status === 'FAILED') {
    const code = event.errorCode ?? 'GeneralServiceException';
    if (code === 'NotFound') throw await notFound(event.message);
    throw new TypeplaneError(code, event.message ?? `read failed with ${code}`);
  }
  if (event.status !== 'SUCCESS')
    throw contractViolation(
      ctx.log,
      provider,
      'read answered IN_PROGRESS; read handlers must answer at once',
    );
}

/**
 * A recorded model as a read answers it: without nulls, nor write-only values (records written before
 * sealing existed may hold them). One copy, not one per pass: a type without write-only properties
 * needs only the one without nulls.
 */
function recorded(type: ResourceType, properties: Model): Model {
  return stripNulls(type.writeOnlyProperties.length === 0 ? properties : stripWriteOnly(type, properties));
}

function doesNotExist(type: ResourceType, identifier: string): TypeplaneError {
  return new TypeplaneError('NotFound', `${type.typeName} ${identifier} does not exist`);
}

/** A read the provider answered NotFound for a resource Typeplane has recorded. */
function providerLost(typeName: string, identifier: string, said: string | undefined): TypeplaneError {
  return new TypeplaneError(
    'NotFound',
    `the provider no longer has ${typeName} ${identifier}${said ? ` (it said: ${said})` : ''}; Typeplane keeps its record (listed with observed NotFound), as the provider may yet find it again: read it later, or drop the record with 'typeplane resource forget ${typeName} ${identifier}' (POST /v1/resources/{typeName}/{identifier}/forget), or delete it`,
  );
}

export async function list(
  ctx: EngineContext,
  typeName: string,
  options: { maxResults?: unknown; nextToken?: unknown; filters?: Record<string, unknown>; version?: string },
): Promise<ResourceList> {
  const compiled = await ctx.registry.get(typeName, options.version);
  const type = compiled.type;
  assertSupported(type, 'list');
  const limit = parseMaxResults(options.maxResults);
  const nextToken = parseNextToken(options.nextToken);
  const filters = parseFilters(type, options.filters);
  const describe = (r: StoredResource): ResourceDescription => ({
    identifier: r.identifier,
    properties: recorded(type, r.properties),
    ...(r.observed ? { observed: r.observed } : {}),
  });
  // Read before the page: a change after it is in the page or after this version (a watch from it
  // sees it), never lost between the two.
  const resourceVersion = String(await ctx.store.latestVersion());
  if (filters.length === 0) {
    const page = await ctx.store.listResources(type.typeName, { limit, ...(nextToken ? { nextToken } : {}) });
    return {
      resourceDescriptions: page.items.map(describe),
      nextToken: page.nextToken ?? null,
      resourceVersion,
    };
  }
  const page = await filteredPage(ctx, type.typeName, filters, limit, nextToken);
  return { resourceDescriptions: page.items.map(describe), nextToken: page.nextToken, resourceVersion };
}

/** A page of a list, and the version of the change log to watch from (see docs/watch.md). */
export interface ResourceList {
  resourceDescriptions: ResourceDescription[];
  nextToken: string | null;
  resourceVersion: string;
}

/** Rows read in batches of this many while filtering. */
const FILTER_BATCH = 200;
/** The most rows one filtered page reads: a page past it may hold fewer than asked, with a nextToken. */
const FILTER_SCAN_BUDGET = 10_000;

/**
 * Up to `limit` resources passing every filter, in identifier order from `nextToken`. The scan is
 * bounded: a page that read {@link FILTER_SCAN_BUDGET} rows, or the bytes of stored rows an
 * unfiltered page holds ({@link RESOURCE_PAGE_BYTES}, passed by at most the one row that crosses it),
 * ends there (short, maybe empty) with a nextToken to go on from, so no request costs more than that
 * whatever the filter and however large the resources. Each batch is read in a turn of its own.
 */
async function filteredPage(
  ctx: EngineContext,
  typeName: string,
  filters: readonly ListFilter[],
  limit: number,
  nextToken: string | undefined,
): Promise<{ items: StoredResource[]; nextToken: string | null }> {
  const items: StoredResource[] = [];
  let cursor = nextToken;
  let scanned = 0;
  let bytes = 0;
  for (;;) {
    const batch = await ctx.store.listResources(typeName, {
      limit: Math.max(limit, FILTER_BATCH),
      maxBytes: RESOURCE_PAGE_BYTES - bytes,
      ...(cursor ? { nextToken: cursor } : {}),
    });
    for (const [i, row] of batch.items.entries()) {
      if (!matches(row.properties, filters)) continue;
      items.push(row);
      if (items.length === limit) {
        const more = i < batch.items.length - 1 || batch.nextToken !== undefined;
        return { items, nextToken: more ? resourceCursor(row.identifier) : null };
      }
    }
    scanned += batch.items.length;
    bytes += batch.bytes;
    if (batch.nextToken === undefined) return { items, nextToken: null };
    cursor = batch.nextToken;
    if (scanned >= FILTER_SCAN_BUDGET || bytes >= RESOURCE_PAGE_BYTES) return { items, nextToken: cursor };
    await new Promise((resolve) => setImmediate(resolve));
  }
}

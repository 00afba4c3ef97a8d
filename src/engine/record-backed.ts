/**
 * @module Record-backed providers (the state provider): their resources are nothing but the engine's
 * record, so creates, updates and deletes are decided and written in the operation's own transaction,
 * with no handler call.
 */
import { withMembers } from '../members.js';
import type { HandlerEvent, Provider } from '../handler/index.js';
import {
  additionalIdentifiersOf,
  identifierOf,
  stripNulls,
  stripWriteOnly,
  type Model,
} from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import type { ResourceType } from '../schema/index.js';
import type {
  AdditionalIdentifier,
  Completion,
  OperationRecord,
  ResourceKey,
  StoredResource,
} from '../store/types.js';
import { begin, type BeginArgs } from './begin.js';
import { ChangedMeanwhile } from './changed-meanwhile.js';
import type { Caller } from './caller.js';
import { checkModel } from './check-answer.js';
import type { RequestKind } from './client-token.js';
import type { EngineContext } from './context.js';
import { recordedReferences, stillReferenced } from './references.js';
import { isoOf } from './iso-time.js';
import { newRequestToken } from './request-token.js';
import { opened, sealedChange } from './sealing.js';
import type { ProgressEvent } from './types.js';

/** The version a resource is written with: the one its request was checked against. */
export function versionOf(compiled: CompiledType): { typeVersion?: string } {
  return compiled.version !== undefined ? { typeVersion: compiled.version } : {};
}

type Decision = (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion;

/** A create for a record-backed provider, checked (`check-create.ts`). */
export interface RecordCreate {
  compiled: CompiledType;
  provider: Provider;
  desired: Model;
  clientToken: string | undefined;
  hashed: { as?: RequestKind; of: unknown };
  /** asDefault: checked against the default version (the request named none); the review's warnings; who asks. */
  as: Pick<BeginArgs, 'asDefault' | 'warnings' | 'requestedBy'>;
}

/** A create for a record-backed provider: decided and written in one transaction. */
export function createInRecord(ctx: EngineContext, create: RecordCreate): Promise<ProgressEvent> {
  const decided = createDecided(ctx, create);
  return decided instanceof Promise ? decided.then((args) => begin(ctx, args)) : begin(ctx, decided);
}

type DecidedCreate = BeginArgs & { decide: NonNullable<BeginArgs['decide']>; model: Model | undefined };

/**
 * A record-backed create's operation, decided but not yet written: the model the provider computes
 * (undefined when it could not), and how the store ends it (`decide`). Without a promise unless the
 * model's references or additional identifiers must be looked up.
 */
export function createDecided(
  ctx: EngineContext,
  create: RecordCreate,
): DecidedCreate | Promise<DecidedCreate> {
  const type = create.compiled.type;
  const requestToken = newRequestToken();
  const made = createdModel(ctx, create, requestToken);
  const { model } = made;
  const identifier = model && identifierOf(type, model);
  const keys = model && additionalKeys(type, model);
  if (!model || (type.traits.references.length === 0 && !keys))
    return decidedCreate(create, requestToken, { model, problem: made.problem, identifier });
  return (async () => {
    const references = await recordedReferences(ctx, type, model);
    // Checked here so that a taken one ends the create as AlreadyExists (the store refuses it anyway).
    const taken = keys && (await heldByOther(ctx, type, identifier, keys));
    return decidedCreate(create, requestToken, {
      model,
      problem: made.problem,
      identifier,
      references,
      keys,
      taken,
    });
  })();
}

/** The model a record-backed provider makes of a create's desired state, or why it could not. */
function createdModel(
  ctx: EngineContext,
  { compiled, provider, desired }: RecordCreate,
  requestToken: string,
): { model?: Model; problem?: string } {
  const type = compiled.type;
  try {
    const created = provider.recordBacked!.create(type, desired, requestToken);
    // The desired state was validated above: only a model the provider added to needs the check again.
    if (Object.keys(created).length === Object.keys(desired).length && identifierOf(type, created))
      return { model: stripNulls(created) };
    return { model: checkModel(ctx.log, provider, compiled, created, undefined) };
  } catch (e) {
    return { problem: e instanceof Error ? e.message : String(e) };
  }
}

/** A create's operation as `createDecided` answers it, from what was found of its model. */
function decidedCreate(
  { compiled, desired, clientToken, hashed, as }: RecordCreate,
  requestToken: string,
  {
    model,
    problem,
    identifier,
    references,
    keys,
    taken,
  }: {
    model?: Model;
    problem?: string;
    identifier: string | undefined;
    references?: ResourceKey[];
    keys?: AdditionalIdentifier[];
    taken?: AdditionalIdentifier & { holder: string };
  },
): DecidedCreate {
  const type = compiled.type;
  // Every member named, none spread in: see src/members.ts.
  return {
    model,
    compiled,
    operation: 'CREATE',
    identifier,
    request: { desiredState: desired },
    clientToken,
    hashOf: hashed.of,
    hashAs: hashed.as,
    requestToken,
    asDefault: as.asDefault,
    warnings: as.warnings,
    requestedBy: as.requestedBy,
    decide: (current): Completion => {
      if (!model || problem !== undefined)
        return {
          status: 'FAILED',
          errorCode: 'HandlerInternalFailure',
          statusMessage: problem ?? 'no model',
        };
      if (current)
        return {
          status: 'FAILED',
          errorCode: 'AlreadyExists',
          statusMessage: `${type.typeName} ${identifier} already exists`,
        };
      if (taken)
        return {
          status: 'FAILED',
          errorCode: 'AlreadyExists',
          statusMessage: `${type.typeName} ${taken.holder} already has the additional identifier ${taken.name} = ${taken.value}`,
        };
      return recordedNew(compiled, identifier!, model, references, keys);
    },
  };
}

/** A new resource's record, with its references and additional identifiers: a create's completion. */
export function recordedNew(
  compiled: CompiledType,
  identifier: string,
  model: Model,
  references: ResourceKey[] | undefined,
  keys: AdditionalIdentifier[] | undefined,
): Completion {
  const now = isoOf(Date.now());
  return recordPut(compiled.type, identifier, model, versionOf(compiled), now, now, references, keys);
}

/** A successful completion that writes the resource's record, with its references and identifiers. */
function recordPut(
  type: ResourceType,
  identifier: string,
  model: Model,
  version: { typeVersion?: string },
  createdAt: string,
  updatedAt: string,
  references: ResourceKey[] | undefined,
  keys: AdditionalIdentifier[] | undefined,
): Completion {
  return {
    status: 'SUCCESS',
    // A type without write-only properties reports the very model it records: the store then writes
    // one serialisation of it to both rows (the operation's model and the resource's properties).
    resourceModel: type.writeOnlyProperties.length === 0 ? model : stripWriteOnly(type, model),
    change: {
      kind: 'put',
      // Members named, undefined or not, rather than spread in (see src/members.ts).
      resource: {
        typeName: type.typeName,
        identifier,
        properties: model,
        typeVersion: version.typeVersion,
        createdAt,
        updatedAt,
      },
      references,
      identifiers: keys,
    },
  };
}

/**
 * How an update of a record-backed resource ends, decided under the write lock: it applies only to
 * the state it was computed from (so concurrent updates cannot lose one another's changes).
 */
export async function replaceInRecord(
  ctx: EngineContext,
  type: ResourceType,
  identifier: string,
  base: StoredResource,
  desired: Model,
  typeVersion?: string,
): Promise<(current: StoredResource | undefined) => Completion> {
  // A null is no value: the record never holds one (a nullable property set to null is removed).
  const model = stripNulls(desired);
  const references = await recordedReferences(ctx, type, model);
  const keys = additionalKeys(type, model);
  const baseJson = JSON.stringify(base.properties);
  return (current) => {
    if (!current)
      return {
        status: 'FAILED',
        errorCode: 'NotFound',
        statusMessage: `${type.typeName} ${identifier} does not exist`,
      };
    if (JSON.stringify(current.properties) !== baseJson)
      throw new ChangedMeanwhile(type.typeName, identifier);
    return recordPut(
      type,
      identifier,
      model,
      typeVersion !== undefined ? { typeVersion } : {},
      current.createdAt,
      new Date().toISOString(),
      references,
      keys,
    );
  };
}

/** The additional identifiers to index with a model; undefined for a type that has none. */
export function additionalKeys(type: ResourceType, model: Model): AdditionalIdentifier[] | undefined {
  return type.additionalIdentifiers.length > 0 ? additionalIdentifiersOf(type, model) : undefined;
}

/** The first of `keys` another resource than `identifier` holds. */
async function heldByOther(
  ctx: EngineContext,
  type: ResourceType,
  identifier: string | undefined,
  keys: readonly AdditionalIdentifier[],
): Promise<(AdditionalIdentifier & { holder: string }) | undefined> {
  for (const key of keys) {
    const holder = await ctx.store.findByIdentifier(type.typeName, key.name, key.value);
    if (holder !== undefined && holder !== identifier) return { name: key.name, value: key.value, holder };
  }
  return undefined;
}

/** How a delete of a record-backed resource ends, decided under the write lock. */
export function deleteInRecord(type: ResourceType, identifier: string, caller?: Caller): Decision {
  return (now, referrers) => {
    if (!now)
      return {
        status: 'FAILED',
        errorCode: 'NotFound',
        statusMessage: `${type.typeName} ${identifier} does not exist`,
      };
    if (referrers.length > 0) throw stillReferenced(type.typeName, identifier, referrers, caller);
    return { status: 'SUCCESS', change: { kind: 'delete', typeName: type.typeName, identifier } };
  };
}

/** A record-backed decision that sees whole models and stores sealed ones. */
export function sealedDecision(ctx: EngineContext, type: ResourceType, decide: Decision): Decision {
  return (current, referrers) => {
    const outcome = decide(current && opened(ctx.sealer, current), referrers);
    return outcome.status === 'SUCCESS'
      ? withMembers(outcome, { change: sealedChange(ctx.sealer, type, outcome.change) })
      : outcome;
  };
}

/** What a record-backed provider's handler would answer: the record is the state. */
export function recordEvent(
  provider: Provider,
  type: ResourceType,
  op: OperationRecord,
  desiredState: Model,
): HandlerEvent {
  const desired = structuredClone(desiredState);
  switch (op.operation) {
    case 'CREATE':
      return {
        status: 'SUCCESS',
        resourceModel: provider.recordBacked!.create(type, desired, op.requestToken),
      };
    case 'UPDATE':
      return { status: 'SUCCESS', resourceModel: desired };
    default:
      return { status: 'SUCCESS' };
  }
}

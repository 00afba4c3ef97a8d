/**
 * @module The built-in state provider: serves any type without a handler of its own by storing the
 * desired state (less write-only values, which the engine keeps itself) (as Radius does for a type without a recipe, and Kubernetes for a custom resource).
 *
 * It generates read-only identifier values (UUIDs) where the schema asks for them. Generation is
 * derived from the request token, so a create re-invoked after a crash produces the same resource.
 * For the types a `Synthesis` applies to, it emulates their service instead: every read-only
 * property and the names the service would give are filled (see ./synthesize).
 */
import { createHash } from 'node:crypto';
import type { Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import type { Store } from '../store/types.js';
import { additionalIdentifiersOf, identifierOf, stripWriteOnly } from '../model/index.js';
import type { HandlerEvent, HandlerRequest, Provider } from '../handler/index.js';
import type { Synthesis } from './synthesize/index.js';

export const STATE_PROVIDER_NAME = 'state';

/**
 * `typeOf` gives the (default version of the) type a request is for; `synthesis`, when given, the
 * types whose service it emulates.
 */
export function createStateProvider(
  store: Store,
  typeOf: (typeName: string) => Promise<ResourceType>,
  options: { synthesis?: Synthesis } = {},
): Provider {
  const synthesis = options.synthesis;
  const emulates = (type: ResourceType) => synthesis?.appliesTo(type.typeName) === true;
  /** A new resource's model: the desired state with what this provider makes. */
  const newModel = (type: ResourceType, desired: Model, requestToken: string): Model => {
    const model: Model = emulates(type) ? synthesis!.create(type, desired, requestToken) : { ...desired };
    generateIdentifiers(type, model, requestToken);
    return model;
  };
  const failed = (errorCode: HandlerEvent['errorCode'], message: string): HandlerEvent => ({
    status: 'FAILED',
    errorCode,
    message,
  });

  /** The primary identifier a request names: its own, or the one an additional identifier of it points at. */
  const keyOf = async (request: HandlerRequest): Promise<{ type: ResourceType; key: string | undefined }> => {
    const type = await typeOf(request.typeName);
    const key = identifierOf(type, request.desiredState);
    if (key !== undefined) return { type, key };
    for (const { name, value } of additionalIdentifiersOf(type, request.desiredState)) {
      const entry = await store.kvGet(indexOf(type, name), value);
      if (entry) return { type, key: String(entry.value.identifier) };
    }
    return { type, key: undefined };
  };
  /** The key-value namespace indexing one additional identifier of a type (`#` is in no type name). */
  const indexOf = (type: ResourceType, name: string) => `${type.typeName}#identifier:${name}`;
  /**
   * Claim a model's additional identifiers for `key`, releasing `previous` ones it no longer has; the
   * first one another resource holds is returned (and nothing is claimed).
   */
  const claim = async (
    type: ResourceType,
    key: string,
    model: Model,
    writtenBy: string,
    previous: Model | undefined,
  ): Promise<string | undefined> => {
    const wanted = additionalIdentifiersOf(type, model);
    const taken: { name: string; value: string }[] = [];
    for (const id of wanted) {
      const entry = { value: { identifier: key }, writtenBy };
      if (await store.kvInsert(indexOf(type, id.name), id.value, entry)) {
        taken.push(id);
        continue;
      }
      const holder = await store.kvGet(indexOf(type, id.name), id.value);
      if (holder && holder.value.identifier !== key) {
        for (const t of taken) await store.kvDelete(indexOf(type, t.name), t.value);
        return `${type.typeName} ${String(holder.value.identifier)} already has ${id.name} = ${id.value}`;
      }
    }
    const kept = new Set(wanted.map((id) => `${id.name}\u0000${id.value}`));
    for (const old of previous ? additionalIdentifiersOf(type, previous) : [])
      if (!kept.has(`${old.name}\u0000${old.value}`))
        await store.kvDelete(indexOf(type, old.name), old.value);
    return undefined;
  };

  return {
    name: STATE_PROVIDER_NAME,
    readsFromRecord: true,
    // Served by the engine, the record is the state; the handlers below (with their own copy in the
    // store's key-value table) serve standalone use, such as the contract suite.
    recordBacked: {
      create: newModel,
      generates: (type) =>
        emulates(type)
          ? [...new Set([...synthesis!.generates(type), ...generatedIdentifiers(type)])]
          : generatedIdentifiers(type),
    },

    async create(request) {
      const type = await typeOf(request.typeName);
      const model = newModel(type, request.desiredState, request.clientRequestToken);
      const key = identifierOf(type, model);
      if (key === undefined)
        return failed('InvalidRequest', 'the primary identifier is missing from the desired state');
      // Write-only values are not kept here nor returned: the engine holds the desired ones.
      const kept = stripWriteOnly(type, model);
      const existing = await store.kvGet(type.typeName, key);
      if (!existing) {
        const taken = await claim(type, key, kept, request.clientRequestToken, undefined);
        if (taken) return failed('AlreadyExists', taken);
      }
      const inserted = await store.kvInsert(type.typeName, key, {
        value: kept,
        writtenBy: request.clientRequestToken,
      });
      if (!inserted) {
        const existing = await store.kvGet(type.typeName, key);
        // Our own write from an invocation that did not get to report back (crash, timeout).
        if (existing?.writtenBy === request.clientRequestToken)
          return { status: 'SUCCESS', resourceModel: existing.value };
        return failed('AlreadyExists', `${type.typeName} ${key} already exists`);
      }
      return { status: 'SUCCESS', resourceModel: kept };
    },

    async read(request) {
      const { type, key } = await keyOf(request);
      const entry = key === undefined ? undefined : await store.kvGet(type.typeName, key);
      if (!entry) return failed('NotFound', `${type.typeName} ${key ?? '(no identifier)'} does not exist`);
      return { status: 'SUCCESS', resourceModel: entry.value };
    },

    async update(request) {
      const { type, key } = await keyOf(request);
      if (key === undefined) return failed('NotFound', 'the primary identifier is missing');
      const before = await store.kvGet(type.typeName, key);
      if (!before) return failed('NotFound', `${type.typeName} ${key} does not exist`);
      // What was synthesized at create stays: an update's desired state has no read-only values.
      const desired = emulates(type)
        ? synthesis!.keep(type, before.value, request.desiredState)
        : request.desiredState;
      const kept = stripWriteOnly(type, desired);
      const taken = await claim(type, key, kept, request.clientRequestToken, before.value);
      if (taken) return failed('ResourceConflict', taken);
      const replaced = await store.kvReplace(type.typeName, key, {
        value: kept,
        writtenBy: request.clientRequestToken,
      });
      if (!replaced) return failed('NotFound', `${type.typeName} ${key} does not exist`);
      return { status: 'SUCCESS', resourceModel: kept };
    },

    async delete(request) {
      const { type, key } = await keyOf(request);
      const entry = key === undefined ? undefined : await store.kvGet(type.typeName, key);
      const deleted = key !== undefined && (await store.kvDelete(type.typeName, key));
      if (deleted && entry)
        for (const id of additionalIdentifiersOf(type, entry.value))
          await store.kvDelete(indexOf(type, id.name), id.value);
      if (!deleted) return failed('NotFound', `${type.typeName} ${key ?? '(no identifier)'} does not exist`);
      return { status: 'SUCCESS' };
    },

    async list(request) {
      const page = await store.kvList(request.typeName, {
        limit: request.maxResults ?? 100,
        ...(request.nextToken === undefined ? {} : { nextToken: request.nextToken }),
      });
      return {
        status: 'SUCCESS',
        resourceModels: page.items.map((i) => i.entry.value),
        nextToken: page.nextToken ?? null,
      };
    },
  };
}

/**
 * Fill read-only identifier properties the caller cannot supply: a top-level string property in the
 * primary identifier that is read-only gets a UUID derived from the request token and the pointer.
 */
function generateIdentifiers(type: ResourceType, model: Model, requestToken: string): void {
  for (const pointer of generatedIdentifiers(type)) {
    const name = pointer.slice('/properties/'.length);
    if (model[name] === undefined) model[name] = derivedUuid(requestToken, pointer);
  }
}

/** Per type (a type object never changes): worked out on every create otherwise. */
const generatedOf = new WeakMap<ResourceType, readonly string[]>();

/** The read-only top-level string parts of the primary identifier: the only read-only values this provider sets. */
function generatedIdentifiers(type: ResourceType): readonly string[] {
  let generated = generatedOf.get(type);
  if (generated === undefined) generatedOf.set(type, (generated = Object.freeze(findGenerated(type))));
  return generated;
}

function findGenerated(type: ResourceType): string[] {
  const readOnly = new Set(type.readOnlyProperties);
  const properties = (type.schema.properties ?? {}) as Record<
    string,
    { type?: unknown; format?: unknown } | undefined
  >;
  return type.primaryIdentifier.filter((pointer) => {
    const match = /^\/properties\/([^/]+)$/.exec(pointer);
    if (!match || !readOnly.has(pointer)) return false;
    const schema = properties[match[1]!];
    return schema?.type === 'string' || schema?.type === undefined;
  });
}

function derivedUuid(seed: string, salt: string): string {
  const h = createHash('sha256').update(seed).update('\u0000').update(salt).digest();
  h[6] = (h[6]! & 0x0f) | 0x40; // version 4 layout
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * @module The at-rest form of what the engine persists. Write-only values leave models before they
 * reach the store (resource records, operation requests, reported models) and are kept sealed beside
 * them; a provider's callback context is sealed whole, since it may hold anything. Values are opened
 * only to build what a provider is handed, or to patch the whole desired state.
 *
 * One seal per record written; a model without write-only values is stored as it is, at no cost.
 * Records written before sealing existed (no sealed member) are read as they are.
 */
import type { ResourceType } from '../schema/index.js';
import { withMembers } from '../members.js';
import { isSealed, type Sealer } from '../secrets/index.js';
import type { ResourceChange, Store, StoredResource } from '../store/types.js';
import {
  cloneJson,
  mergeWriteOnly,
  splitWriteOnly,
  valuesAt,
  type Model,
  type WriteOnlyValue,
} from '../model/index.js';

/** The member of a stored request or callback context that holds its sealed part. */
const SEALED = '$sealed';

/** What a provider is handed of an operation's request. */
export interface OpenedRequest {
  desiredState?: Model;
  previousState?: Model;
}

const resourcePlace = (typeName: string, identifier: string) =>
  `resource\u0000${typeName}\u0000${identifier}`;
const requestPlace = (requestToken: string) => `request\u0000${requestToken}`;
const contextPlace = (requestToken: string) => `callback-context\u0000${requestToken}`;

/** A resource's record: the model without write-only values, and those values sealed to this resource. */
export function sealResource(
  sealer: Sealer,
  type: ResourceType,
  identifier: string,
  model: Model,
): { properties: Model; sealed?: string } {
  const split = splitWriteOnly(type, model);
  if (split.values.length === 0) return { properties: model };
  return {
    properties: split.model,
    sealed: sealer.seal(JSON.stringify(split.values), resourcePlace(type.typeName, identifier)),
  };
}

/** The whole model of a resource record (a copy), write-only values included. */
export function openResource(sealer: Sealer, resource: StoredResource): Model {
  if (resource.sealed === undefined) return resource.properties;
  const values = JSON.parse(
    sealer.open(resource.sealed, resourcePlace(resource.typeName, resource.identifier)),
  ) as WriteOnlyValue[];
  return mergeWriteOnly(cloneJson(resource.properties), values);
}

/** A stored resource with its whole model (write-only values opened). */
export function opened(sealer: Sealer, stored: StoredResource): StoredResource {
  return stored.sealed === undefined
    ? stored
    : withMembers(stored, { properties: openResource(sealer, stored) });
}

/**
 * A stored resource with its whole model (write-only values opened), found by its primary identifier
 * or any additional identifier (see {@link findResource}); undefined when absent.
 */
export async function resourceWithSecrets(
  store: Store,
  sealer: Sealer,
  type: ResourceType,
  identifier: string,
): Promise<StoredResource | undefined> {
  const stored = await findResource(store, type, identifier);
  return stored && opened(sealer, stored);
}

/**
 * The resource `identifier` names: the one with that primary identifier, else the one holding it as
 * an additional identifier, tried in the schema's order (so a value that is one resource's primary
 * identifier and another's additional identifier names the first).
 */
export async function findResource(
  store: Store,
  type: ResourceType,
  identifier: string,
): Promise<StoredResource | undefined> {
  const stored = await store.getResource(type.typeName, identifier);
  if (stored || type.additionalIdentifiers.length === 0) return stored;
  return findByAdditionalIdentifier(store, type, identifier);
}

/** The resource holding `identifier` as one of its additional identifiers (see {@link findResource}). */
export async function findByAdditionalIdentifier(
  store: Store,
  type: ResourceType,
  identifier: string,
): Promise<StoredResource | undefined> {
  for (const pointers of type.additionalIdentifiers) {
    const primary = await store.findByIdentifier(type.typeName, pointers.join(','), identifier);
    if (primary !== undefined) return store.getResource(type.typeName, primary);
  }
  return undefined;
}

/** A resource change as stored: the model's write-only values sealed to the resource. */
export function sealedChange(sealer: Sealer, type: ResourceType, change: ResourceChange): ResourceChange {
  if (change.kind !== 'put') return change;
  const record = sealResource(sealer, type, change.resource.identifier, change.resource.properties);
  // Any earlier sealed values are replaced: by these, or by none (undefined).
  return withMembers(change, {
    resource: withMembers(change.resource, { properties: record.properties, sealed: record.sealed }),
  });
}

/**
 * Copy the write-only values the model lacks from the desired state, at any depth (array items by
 * position), where the model has the place for them.
 */
export function keepWriteOnly(type: ResourceType, desired: Model | undefined, model: Model): void {
  if (!desired) return;
  const values: WriteOnlyValue[] = [];
  for (const pointer of type.writeOnlyProperties)
    for (const { path, value } of valuesAt(desired, pointer)) values.push([path, value]);
  if (values.length > 0) mergeWriteOnly(model, values, true);
}

/** An operation's request as stored: its models without write-only values, those sealed to the operation. */
export function sealRequest(
  sealer: Sealer,
  type: ResourceType,
  requestToken: string,
  request: { desiredState: Model; previousState?: Model; typeVersion?: string },
): Record<string, unknown> {
  if (type.writeOnlyProperties.length === 0) return request;
  const desired = splitWriteOnly(type, request.desiredState);
  const previous = request.previousState ? splitWriteOnly(type, request.previousState) : undefined;
  if (desired.values.length === 0 && !previous?.values.length) return request;
  const sealed: Record<string, unknown> = { desiredState: desired.model };
  if (previous) sealed.previousState = previous.model;
  if (request.typeVersion !== undefined) sealed.typeVersion = request.typeVersion;
  sealed[SEALED] = sealer.seal(
    JSON.stringify([desired.values, previous?.values ?? []]),
    requestPlace(requestToken),
  );
  return sealed;
}

/** The request a provider is handed (copies), write-only values included. */
export function openRequest(
  sealer: Sealer,
  requestToken: string,
  request: Record<string, unknown>,
): OpenedRequest {
  const opened: OpenedRequest = {};
  if (request.desiredState) opened.desiredState = cloneJson(request.desiredState as Model);
  if (request.previousState) opened.previousState = cloneJson(request.previousState as Model);
  const sealed = request[SEALED];
  if (!isSealed(sealed)) return opened;
  const [desired, previous] = JSON.parse(sealer.open(sealed, requestPlace(requestToken))) as [
    WriteOnlyValue[],
    WriteOnlyValue[],
  ];
  if (opened.desiredState) mergeWriteOnly(opened.desiredState, desired);
  if (opened.previousState) mergeWriteOnly(opened.previousState, previous);
  return opened;
}

/** A provider's callback context as stored: sealed whole. */
export function sealContext(
  sealer: Sealer,
  requestToken: string,
  context: Record<string, unknown>,
): Record<string, unknown> {
  return { [SEALED]: sealer.seal(JSON.stringify(context), contextPlace(requestToken)) };
}

/** The callback context a provider gave, as it gave it. */
export function openContext(
  sealer: Sealer,
  requestToken: string,
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const sealed = stored[SEALED];
  if (!isSealed(sealed) || Object.keys(stored).length !== 1) return stored;
  return JSON.parse(sealer.open(sealed, contextPlace(requestToken))) as Record<string, unknown>;
}

/** Shorter strings are not masked: they would mask ordinary words of a message. */
const MIN_MASKED_LENGTH = 4;

/**
 * `text` with every write-only string value of `models` masked: a provider's message or error may
 * quote what it was handed (a database error naming a password, say), and it is kept and logged.
 * Quoted is not always verbatim, so each value is masked in the forms a message may hold it in too
 * ({@link quotedForms}).
 */
export function maskWriteOnly(
  type: ResourceType,
  text: string,
  models: (Model | undefined)[],
  /** Secret as a whole (a type configuration): every value in it is masked. */
  whole?: unknown,
): string {
  if (type.writeOnlyProperties.length === 0 && whole === undefined) return text;
  const secrets: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string' || typeof value === 'number') secrets.push(String(value));
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  for (const model of models) {
    if (!model) continue;
    for (const pointer of type.writeOnlyProperties)
      for (const { value } of valuesAt(model, pointer)) collect(value);
  }
  collect(whole);
  return maskQuoted(text, secrets, '***');
}

/**
 * `text` with each of `secrets` (of 4 characters or more) replaced by `replacement`, in every form a
 * message may quote it in ({@link quotedForms}).
 */
export function maskQuoted(text: string, secrets: Iterable<string>, replacement: string): string {
  const forms = maskedForms(secrets);
  let masked = text;
  // Longest first, so a secret containing another is masked whole.
  for (const form of [...forms].sort((a, b) => b.length - a.length))
    masked = masked.split(form).join(replacement);
  return masked;
}

/** The texts {@link maskQuoted} masks: each of `secrets` long enough, in each of its {@link quotedForms}. */
export function maskedForms(secrets: Iterable<string>): Set<string> {
  const forms = new Set<string>();
  for (const secret of secrets)
    if (secret.length >= MIN_MASKED_LENGTH) for (const form of quotedForms(secret)) forms.add(form);
  return forms;
}

/** A lone surrogate has no percent-encoding (such values are refused on input anyway). */
function percentEncoded(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value;
  }
}

const hex4 = (c: string) => c.charCodeAt(0).toString(16).padStart(4, '0');

/**
 * A value as messages quote it: as it is; inside a JSON string (`"` and `\` escaped), again inside
 * JSON (a JSON document quoted in a JSON string), and with every non-ASCII character as `\uXXXX`
 * (Python's json.dumps, in either case of hex); inside a single-quoted literal (Python's repr); and
 * percent-encoded, as in a URL.
 */
export function quotedForms(value: string): Set<string> {
  const json = JSON.stringify(value).slice(1, -1);
  const ascii = json.replace(/[\u007f-\uffff]/g, (c) => `\\u${hex4(c)}`);
  return new Set([
    value,
    json,
    JSON.stringify(json).slice(1, -1),
    ascii,
    ascii.replace(/\\u[0-9a-f]{4}/g, (u) => u.toUpperCase().replace('\\U', '\\u')),
    value.replace(/[\\']/g, (c) => `\\${c}`),
    percentEncoded(value),
  ]);
}

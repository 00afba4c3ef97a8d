/**
 * @module The engine: uniform create/read/update/delete/list over registered types, with the handler
 * contract enforced around every provider.
 *
 * Mutations are asynchronous operations: the caller gets a PENDING ProgressEvent at once; a worker
 * loop claims due operations from the store (so a restarted server, or another replica, resumes
 * them), invokes the provider, and records the outcome together with the resource index change in
 * one store transaction. Everything decided before a handler runs (bad input, missing type,
 * conflicts) is thrown as a TypeplaneError instead.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { TypeplaneError, isErrorCode, type ErrorCode } from '../errors.js';
import type { Registry } from '../registry/registry.js';
import type { CompiledType } from '../registry/compile.js';
import type { HandlerAction, HandlerEvent, HandlerLogger, Provider } from '../providers/types.js';
import {
  OperationMovedOn,
  type Completion,
  type OperationRecord,
  type ResourceChange,
  type ResourceKey,
  type Store,
  type StoredResource,
} from '../store/types.js';
import { DEFAULT_TIMEOUT_MINUTES, type ResourceType } from '../schema/index.js';
import {
  applyPatch,
  cloneJson,
  createOnlyChanged,
  identifierModel,
  identifierOf,
  readOnlyPresent,
  stripNulls,
  stripWriteOnly,
  valuesAt,
  mergeWriteOnly,
  patchReadsWriteOnly,
  type WriteOnlyValue,
} from './model/index.js';
import {
  TERMINAL_STATUSES,
  type Model,
  type Operation,
  type OperationStatus,
  type ProgressEvent,
  type ResourceDescription,
} from './types.js';
import { raceAbort } from '../providers/abort.js';
import type { Sealer } from '../secrets/index.js';
import {
  maskWriteOnly,
  openContext,
  openRequest,
  openResource,
  sealContext,
  sealRequest,
  sealResource,
} from './sealing.js';

export interface EngineLogger extends HandlerLogger {
  child(bindings: Record<string, unknown>): EngineLogger;
}

export interface EngineOptions {
  store: Store;
  registry: Registry;
  /** The provider serving a type (the state provider when none is configured). */
  providerFor: (typeName: string) => Provider;
  /** Seals write-only values, callback contexts and request hashes before they reach the store. */
  sealer: Sealer;
  logger: EngineLogger;
  /** How long a worker holds an operation without renewing (a crashed worker's work resumes after this). */
  leaseMs?: number;
  /** How often to look for due operations (other replicas', restarts'). */
  pollIntervalMs?: number;
  /** Client tokens are honoured at least this long. */
  tokenRetentionMs?: number;
  /** Most handler invocations running at once in this process. */
  concurrency?: number;
  /** Milliseconds in a "minute" of a handler's timeoutInMinutes (tests shorten it; default 60,000). */
  minuteMs?: number;
}

export const DEFAULT_MAX_RESULTS = 100;
export const MAX_RESULTS_LIMIT = 1000;
const MAX_CALLBACK_DELAY_SECONDS = 3600;
const MAX_READ_MS = 60_000;
const SEVEN_DAYS_MS = 7 * 24 * 3600 * 1000;

const ACTION: Record<Exclude<Operation, 'LIST' | 'READ'>, HandlerAction> = {
  CREATE: 'create',
  UPDATE: 'update',
  DELETE: 'delete',
};

export class Engine {
  private readonly store: Store;
  private readonly registry: Registry;
  private readonly providerFor: (typeName: string) => Provider;
  private readonly log: EngineLogger;
  private readonly sealer: Sealer;
  private readonly owner = `worker-${randomUUID()}`;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly tokenRetentionMs: number;
  private readonly concurrency: number;
  private readonly minuteMs: number;
  private readonly events = new EventEmitter();
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private pollTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  /** More due operations may be waiting than there was room for. */
  private backlog = false;
  private stopped = true;

  constructor(options: EngineOptions) {
    this.store = options.store;
    this.registry = options.registry;
    this.providerFor = options.providerFor;
    this.log = options.logger;
    this.sealer = options.sealer;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.tokenRetentionMs = Math.max(options.tokenRetentionMs ?? SEVEN_DAYS_MS, SEVEN_DAYS_MS);
    this.concurrency = options.concurrency ?? 64;
    this.minuteMs = options.minuteMs ?? 60_000;
    this.events.setMaxListeners(0);
  }

  /** Start working: resume whatever is due, then keep polling. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const poll = () => {
      this.kick();
      this.pollTimer = setTimeout(poll, this.pollIntervalMs);
      this.pollTimer.unref();
    };
    poll();
    const expire = () => {
      this.store
        .expireTokens(new Date(Date.now() - this.tokenRetentionMs))
        .catch((e: unknown) => this.log.error('token expiry failed', { err: String(e) }));
    };
    this.expiryTimer = setInterval(expire, 3600_000);
    this.expiryTimer.unref();
  }

  /**
   * Stop taking work; let running handler invocations finish for up to `graceMs`, then abort them.
   * Whatever is not terminal stays in the store, leases released, to be resumed by the next start.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const inflight = [...this.running.values()];
    const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.all(inflight.map((r) => r.done)), grace]);
    for (const r of this.running.values()) r.abort.abort(new Error('server shutting down'));
    await Promise.all([...this.running.values()].map((r) => r.done));
    await this.claiming;
  }

  // ---- Resources -------------------------------------------------------------------------------

  async create(typeName: string, desiredState: unknown, clientToken?: string): Promise<ProgressEvent> {
    const compiled = await this.registry.get(typeName);
    const type = compiled.type;
    const desired = requireModel(desiredState, 'desiredState');
    refuseReadOnly(type, desired);
    assertValid(compiled, desired);
    checkIdentifierValues(type, desired);
    await this.assertReferencesExist(type, desired);
    const provider = this.providerFor(type.typeName);
    if (provider.recordBacked) {
      return this.createInRecord(compiled, provider, desired, clientToken, { desiredState });
    }
    const identifier = identifierOf(type, desired);
    return this.begin({
      compiled,
      operation: 'CREATE',
      identifier,
      request: { desiredState: desired },
      clientToken,
      hashOf: { desiredState },
    });
  }

  /** A create for a record-backed provider: decided and written in one transaction. */
  private async createInRecord(
    compiled: CompiledType,
    provider: Provider,
    desired: Model,
    clientToken: string | undefined,
    hashOf: unknown,
  ): Promise<ProgressEvent> {
    const type = compiled.type;
    const requestToken = newRequestToken();
    let model: Model | undefined;
    let problem: string | undefined;
    try {
      const created = provider.recordBacked!.create(type, desired, requestToken);
      // The desired state was validated above: only a model the provider added to needs the check again.
      if (Object.keys(created).length === Object.keys(desired).length && identifierOf(type, created)) {
        model = stripNulls(created);
      } else {
        model = this.checkModel(provider, compiled, created, undefined);
      }
    } catch (e) {
      problem = e instanceof Error ? e.message : String(e);
    }
    const references = model ? await this.recordedReferences(type, model) : undefined;
    const identifier = model && identifierOf(type, model);
    return this.begin({
      compiled,
      operation: 'CREATE',
      identifier,
      request: { desiredState: desired },
      clientToken,
      hashOf,
      requestToken,
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
        const now = new Date().toISOString();
        return {
          status: 'SUCCESS',
          resourceModel: stripWriteOnly(type, model),
          change: {
            kind: 'put',
            resource: {
              typeName: type.typeName,
              identifier: identifier!,
              properties: model,
              createdAt: now,
              updatedAt: now,
            },
            ...(references ? { references } : {}),
          },
        };
      },
    });
  }

  /**
   * How an update of a record-backed resource ends, decided under the write lock: it applies only to
   * the state it was computed from (so concurrent updates cannot lose one another's changes).
   */
  private async replaceInRecord(
    type: ResourceType,
    identifier: string,
    base: StoredResource,
    desired: Model,
  ): Promise<(current: StoredResource | undefined) => Completion> {
    const references = await this.recordedReferences(type, desired);
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
      return {
        status: 'SUCCESS',
        resourceModel: stripWriteOnly(type, desired),
        change: {
          kind: 'put',
          resource: {
            typeName: type.typeName,
            identifier,
            properties: desired,
            createdAt: current.createdAt,
            updatedAt: new Date().toISOString(),
          },
          ...(references ? { references } : {}),
        },
      };
    };
  }

  /** The references to record with a model; undefined for a type that has none (nothing to replace). */
  private async recordedReferences(type: ResourceType, model: Model): Promise<ResourceKey[] | undefined> {
    if (type.traits.references.length === 0) return undefined;
    return (await this.referencesOf(type, model))
      .filter((r) => !r.unregistered)
      .map(({ typeName, identifier }) => ({ typeName, identifier }));
  }

  /**
   * A patch applies to the resource as it is when the update begins: when another update got in
   * between the read it was computed from and its begin, it is computed again on the newer state (a
   * `test` operation in it is checked again there), a few times, before ResourceConflict.
   */
  async update(
    typeName: string,
    identifier: string,
    patchDocument: unknown,
    clientToken?: string,
  ): Promise<ProgressEvent> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.updateOnce(typeName, identifier, patchDocument, clientToken);
      } catch (error) {
        if (!(error instanceof ChangedMeanwhile) || attempt >= PATCH_ATTEMPTS) throw error;
        // Spread the contenders out: all computed again at once, all but one would lose again.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** attempt));
      }
    }
  }

  private async updateOnce(
    typeName: string,
    identifier: string,
    patchDocument: unknown,
    clientToken?: string,
  ): Promise<ProgressEvent> {
    const compiled = await this.registry.get(typeName);
    const type = compiled.type;
    const current = await this.resourceWithSecrets(type.typeName, identifier);
    if (!current)
      return this.failImmediately(
        compiled,
        'UPDATE',
        identifier,
        'NotFound',
        `${type.typeName} ${identifier} does not exist`,
        clientToken,
        { patchDocument },
      );
    const readsWriteOnly = patchReadsWriteOnly(type, patchDocument);
    if (readsWriteOnly.length > 0)
      throw new TypeplaneError(
        'InvalidRequest',
        `a patch cannot read write-only values: ${readsWriteOnly.map((p) => `operation ${String(p.index)} ${p.message}`).join('; ')}`,
        readsWriteOnly,
      );
    const desired = applyPatch(type, current.properties, patchDocument);
    await this.assertUpdatable(compiled, current.properties, desired);
    const provider = this.providerFor(type.typeName);
    return this.begin({
      compiled,
      operation: 'UPDATE',
      identifier,
      request: { desiredState: desired, previousState: current.properties },
      clientToken,
      hashOf: { identifier, patchDocument },
      ...(provider.recordBacked
        ? { decide: await this.replaceInRecord(type, identifier, current, desired) }
        : { basedOn: current }),
    });
  }

  /**
   * Create-or-replace (PUT, as ARM and Radius do): creates the resource when it does not exist,
   * otherwise replaces its whole desired state — unless the type has the `noReplace` trait, in which
   * case the operation fails with AlreadyExists.
   */
  async put(
    typeName: string,
    identifier: string,
    desiredState: unknown,
    clientToken?: string,
  ): Promise<ProgressEvent> {
    const compiled = await this.registry.get(typeName);
    const type = compiled.type;
    const desired = requireModel(desiredState, 'desiredState');
    const given = identifierOf(type, desired);
    if (given !== undefined && given !== identifier) {
      throw new TypeplaneError(
        'InvalidRequest',
        `the desired state identifies ${given}, but the path names ${identifier}`,
      );
    }
    const current = await this.resourceWithSecrets(type.typeName, identifier);
    if (!current) {
      // Identifier values not in the body come from the path.
      const fromPath = identifierModel(type, identifier);
      if (!fromPath)
        throw new TypeplaneError(
          'InvalidRequest',
          `'${identifier}' is not an identifier of ${type.typeName}`,
        );
      for (const [key, value] of Object.entries(fromPath))
        if (desired[key] === undefined) desired[key] = value;
      return this.create(typeName, desired, clientToken);
    }
    if (type.traits.noReplace) {
      return this.failImmediately(
        compiled,
        'UPDATE',
        identifier,
        'AlreadyExists',
        `${type.typeName} ${identifier} already exists and its type does not allow replacing (noReplace); update it with PATCH`,
        clientToken,
        { put: desiredState },
      );
    }
    refuseReadOnly(type, desired);
    // What the provider set stays; everything else is replaced by the body.
    for (const pointer of type.readOnlyProperties) {
      for (const { path, value } of valuesAt(current.properties, pointer)) {
        if (path.length === 1) desired[String(path[0])] = structuredClone(value);
      }
    }
    for (const [key, value] of Object.entries(identifierModel(type, identifier) ?? {})) {
      if (desired[key] === undefined) desired[key] = value;
    }
    await this.assertUpdatable(compiled, current.properties, desired);
    const provider = this.providerFor(type.typeName);
    return this.begin({
      compiled,
      operation: 'UPDATE',
      identifier,
      request: { desiredState: desired, previousState: current.properties },
      clientToken,
      hashOf: { identifier, put: desiredState },
      ...(provider.recordBacked
        ? { decide: await this.replaceInRecord(type, identifier, current, desired) }
        : { basedOn: current }),
    });
  }

  /** The contract checks of an update, before any handler runs. */
  private async assertUpdatable(compiled: CompiledType, current: Model, desired: Model): Promise<void> {
    const type = compiled.type;
    const changedReadOnly = type.readOnlyProperties.filter(
      (p) => !sameValues(valuesAt(current, p), valuesAt(desired, p)),
    );
    if (changedReadOnly.length > 0) {
      throw new TypeplaneError(
        'InvalidRequest',
        `read-only properties cannot be changed: ${changedReadOnly.join(', ')}`,
        changedReadOnly.map((pointer) => ({ pointer, message: 'is read-only: the provider sets it' })),
      );
    }
    const createOnly = createOnlyChanged(type, current, desired);
    if (createOnly.length > 0) {
      throw new TypeplaneError(
        'NotUpdatable',
        `create-only properties cannot change after creation: ${createOnly.join(', ')}; delete and re-create the resource instead`,
        createOnly.map((pointer) => ({ pointer, message: 'is create-only' })),
      );
    }
    assertValid(compiled, desired);
    await this.assertReferencesExist(type, desired);
  }

  /** Every resource the model refers to exists (InvalidRequest naming the member otherwise). */
  private async assertReferencesExist(type: ResourceType, model: Model): Promise<void> {
    if (type.traits.references.length === 0) return;
    const missing: { pointer: string; message: string }[] = [];
    for (const ref of await this.referencesOf(type, model)) {
      if (ref.unregistered) {
        missing.push({
          pointer: ref.member,
          message: `refers to type ${ref.typeName}, which is not registered`,
        });
      } else if (!(await this.store.getResource(ref.typeName, ref.identifier))) {
        missing.push({
          pointer: ref.member,
          message: `refers to ${ref.typeName} ${ref.identifier}, which does not exist`,
        });
      }
    }
    if (missing.length > 0) {
      throw new TypeplaneError(
        'InvalidRequest',
        `referenced resources do not exist: ${missing.map((m) => `${m.pointer} ${m.message}`).join('; ')}`,
        missing,
      );
    }
  }

  /**
   * The resources a model refers to, by its type's `references`. A reference is enforced when its
   * ids cover the referenced type's primary identifier (a CloudFormation relationshipRef to, say, an
   * Arn that is not the identifier is documentation only).
   */
  private async referencesOf(
    type: ResourceType,
    model: Model,
  ): Promise<{ typeName: string; identifier: string; member: string; unregistered?: boolean }[]> {
    const found: { typeName: string; identifier: string; member: string; unregistered?: boolean }[] = [];
    for (const ref of type.traits.references) {
      let target: ResourceType | undefined;
      try {
        target = (await this.registry.get(ref.typeName)).type;
      } catch {
        target = undefined;
      }
      const ids =
        ref.ids.length > 0
          ? ref.ids.map((id) => ({
              target:
                id.target === ''
                  ? target?.primaryIdentifier.length === 1
                    ? target.primaryIdentifier[0]!
                    : ''
                  : id.target,
              member: id.member,
            }))
          : (target?.primaryIdentifier.map((p) => ({ target: p, member: p })) ?? []);
      const members = ids.map((id) => valuesAt(model, id.member));
      if (members.every((values) => values.length === 0)) continue; // nothing referred to
      if (!target) {
        found.push({
          typeName: ref.typeName,
          identifier: '',
          member: ids[0]?.member ?? '',
          unregistered: true,
        });
        continue;
      }
      const targets = new Set(ids.map((id) => id.target));
      if (
        targets.size !== target.primaryIdentifier.length ||
        !target.primaryIdentifier.every((p) => targets.has(p))
      )
        continue;
      if (ids.length === 1) {
        for (const { value } of members[0]!) {
          if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
            found.push({ typeName: target.typeName, identifier: String(value), member: ids[0]!.member });
          }
        }
        continue;
      }
      // Compound identifier: one value per part, in the referenced type's identifier order.
      if (members.some((values) => values.length !== 1)) continue;
      const parts = target.primaryIdentifier.map(
        (p) => members[ids.findIndex((id) => id.target === p)]![0]!.value,
      );
      found.push({
        typeName: target.typeName,
        identifier: parts.map(String).join('|'),
        member: ids[0]!.member,
      });
    }
    return found;
  }

  /** Both directions of references for one resource. */
  async references(
    typeName: string,
    identifier: string,
  ): Promise<{
    references: { typeName: string; identifier: string }[];
    referencedBy: { typeName: string; identifier: string }[];
  }> {
    const compiled = await this.registry.get(typeName);
    if (!(await this.store.getResource(compiled.type.typeName, identifier))) {
      throw new TypeplaneError('NotFound', `${compiled.type.typeName} ${identifier} does not exist`);
    }
    return {
      references: await this.store.listReferences(compiled.type.typeName, identifier),
      referencedBy: await this.store.listReferrers(compiled.type.typeName, identifier, MAX_RESULTS_LIMIT),
    };
  }

  async delete(typeName: string, identifier: string, clientToken?: string): Promise<ProgressEvent> {
    const compiled = await this.registry.get(typeName);
    const type = compiled.type;
    const current = await this.resourceWithSecrets(type.typeName, identifier);
    if (!current)
      return this.failImmediately(
        compiled,
        'DELETE',
        identifier,
        'NotFound',
        `${type.typeName} ${identifier} does not exist`,
        clientToken,
        {},
      );
    const dependants = await this.store.listReferrers(type.typeName, identifier, 20);
    if (dependants.length > 0) throw stillReferenced(type.typeName, identifier, dependants);
    const provider = this.providerFor(type.typeName);
    return this.begin({
      compiled,
      operation: 'DELETE',
      identifier,
      request: { desiredState: current.properties },
      clientToken,
      hashOf: { identifier },
      ...(provider.recordBacked
        ? {
            decide: (now: StoredResource | undefined, referrers: ResourceKey[]): Completion => {
              if (!now)
                return {
                  status: 'FAILED',
                  errorCode: 'NotFound',
                  statusMessage: `${type.typeName} ${identifier} does not exist`,
                };
              if (referrers.length > 0) throw stillReferenced(type.typeName, identifier, referrers);
              return { status: 'SUCCESS', change: { kind: 'delete', typeName: type.typeName, identifier } };
            },
          }
        : {}),
    });
  }

  /** The resource as its provider reports it now. */
  async read(typeName: string, identifier: string): Promise<ResourceDescription> {
    const compiled = await this.registry.get(typeName);
    const type = compiled.type;
    const stored = await this.store.getResource(type.typeName, identifier);
    const key = stored?.properties ?? identifierModel(type, identifier);
    if (!stored || !key)
      throw new TypeplaneError('NotFound', `${type.typeName} ${identifier} does not exist`);
    const provider = this.providerFor(type.typeName);
    // Recorded models were checked against the schema when their operation finished.
    if (provider.readsFromRecord) return { identifier, properties: stripWriteOnly(type, stored.properties) };
    const requestToken = newRequestToken();
    const event = await this.invoke(provider, 'read', type, {
      typeName: type.typeName,
      // The provider is handed the whole recorded model, as for the other handlers.
      desiredState: this.opened(stored).properties,
      clientRequestToken: requestToken,
      logger: lazyChild(this.log, { requestToken, operation: 'READ' }),
      // A read answers an HTTP request: bounded by the type's read timeout and by a minute at most.
      signal: AbortSignal.timeout(Math.min(timeoutMinutes(type, 'read') * this.minuteMs, MAX_READ_MS)),
    });
    if (event.status === 'FAILED') {
      const code = event.errorCode ?? 'GeneralServiceException';
      throw new TypeplaneError(code, event.message ?? `read failed with ${code}`);
    }
    if (event.status !== 'SUCCESS')
      throw this.contractViolation(provider, 'read answered IN_PROGRESS; read handlers must answer at once');
    const model = this.checkModel(provider, compiled, event.resourceModel, identifier);
    return { identifier, properties: stripWriteOnly(type, model) };
  }

  async list(
    typeName: string,
    options: { maxResults?: unknown; nextToken?: unknown },
  ): Promise<{ resourceDescriptions: ResourceDescription[]; nextToken: string | null }> {
    const compiled = await this.registry.get(typeName);
    const type = compiled.type;
    const limit = parseMaxResults(options.maxResults);
    if (options.nextToken !== undefined && typeof options.nextToken !== 'string')
      throw new TypeplaneError('InvalidRequest', 'nextToken must be a string');
    const page = await this.store.listResources(type.typeName, {
      limit,
      ...(options.nextToken ? { nextToken: options.nextToken } : {}),
    });
    return {
      resourceDescriptions: page.items.map((r) => ({
        identifier: r.identifier,
        properties: stripNulls(stripWriteOnly(type, r.properties)) as Model,
      })),
      nextToken: page.nextToken ?? null,
    };
  }

  // ---- Requests --------------------------------------------------------------------------------

  async getRequest(requestToken: string): Promise<ProgressEvent> {
    const op = await this.store.getOperation(requestToken);
    if (!op) throw new TypeplaneError('NotFound', `no request ${requestToken}`);
    return this.toEvent(op);
  }

  async listRequests(
    filter: { operation?: Operation[]; status?: OperationStatus[] },
    options: { maxResults?: unknown; nextToken?: unknown },
  ): Promise<{ progressEvents: ProgressEvent[]; nextToken: string | null }> {
    const limit = parseMaxResults(options.maxResults);
    if (options.nextToken !== undefined && typeof options.nextToken !== 'string')
      throw new TypeplaneError('InvalidRequest', 'nextToken must be a string');
    const page = await this.store.listOperations(filter, {
      limit,
      ...(options.nextToken ? { nextToken: options.nextToken } : {}),
    });
    const events: ProgressEvent[] = [];
    for (const op of page.items) events.push(await this.toEvent(op));
    return { progressEvents: events, nextToken: page.nextToken ?? null };
  }

  /** Cancel a pending or in-progress operation. */
  async cancel(requestToken: string): Promise<ProgressEvent> {
    const op = await this.store.getOperation(requestToken);
    if (!op) throw new TypeplaneError('NotFound', `no request ${requestToken}`);
    if (TERMINAL_STATUSES.has(op.status)) {
      throw new TypeplaneError(
        'ResourceConflict',
        `request ${requestToken} is already ${op.status} and cannot be cancelled`,
      );
    }
    if (op.status !== 'CANCEL_IN_PROGRESS') {
      op.status = 'CANCEL_IN_PROGRESS';
      op.eventTime = new Date().toISOString();
      op.statusMessage = 'cancellation requested';
      delete op.retryAfter; // due at once: the worker completes the cancellation
      try {
        await this.store.saveOperation(op);
      } catch (e) {
        // It ended between the read and the write: say how.
        if (!(e instanceof OperationMovedOn)) throw e;
        const ended = await this.store.getOperation(requestToken);
        throw new TypeplaneError(
          'ResourceConflict',
          `request ${requestToken} is already ${ended?.status ?? 'gone'} and cannot be cancelled`,
        );
      }
    }
    this.running.get(requestToken)?.abort.abort(new Error('operation cancelled'));
    this.kick();
    return this.toEvent(op);
  }

  /** The operation's event once terminal, or the latest one when `waitMs` runs out. */
  async waitFor(requestToken: string, waitMs: number): Promise<ProgressEvent> {
    const deadline = Date.now() + Math.max(0, waitMs);
    for (;;) {
      const op = await this.store.getOperation(requestToken);
      if (!op) throw new TypeplaneError('NotFound', `no request ${requestToken}`);
      const left = deadline - Date.now();
      if (TERMINAL_STATUSES.has(op.status) || left <= 0) return this.toEvent(op);
      // Woken by our own workers at once; by other replicas' work within the poll interval.
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.events.off(requestToken, done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, 250));
        this.events.on(requestToken, done);
      });
    }
  }

  // ---- Operations ------------------------------------------------------------------------------

  /** A stored resource with its whole model (write-only values opened); undefined when absent. */
  private async resourceWithSecrets(
    typeName: string,
    identifier: string,
  ): Promise<StoredResource | undefined> {
    const stored = await this.store.getResource(typeName, identifier);
    return stored && this.opened(stored);
  }

  private opened(stored: StoredResource): StoredResource {
    return stored.sealed === undefined
      ? stored
      : { ...stored, properties: openResource(this.sealer, stored) };
  }

  /** A resource change as stored: the model's write-only values sealed to the resource. */
  private sealedChange(type: ResourceType, change: ResourceChange): ResourceChange {
    if (change.kind !== 'put') return change;
    const { sealed: _previous, ...resource } = change.resource;
    const record = sealResource(this.sealer, type, resource.identifier, resource.properties);
    return { ...change, resource: { ...resource, ...record } };
  }

  /** A record-backed decision that sees whole models and stores sealed ones. */
  /** A precondition: the resource is still as `base` (else another update won the race: refused). */
  private unchangedSince(
    type: ResourceType,
    identifier: string,
    base: StoredResource,
  ): (current: StoredResource | undefined) => void {
    const baseJson = JSON.stringify(base.properties);
    return (current) => {
      if (!current || JSON.stringify(this.opened(current).properties) !== baseJson)
        throw new ChangedMeanwhile(type.typeName, identifier);
    };
  }

  private sealedDecision(
    type: ResourceType,
    decide: (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion,
  ): (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion {
    return (current, referrers) => {
      const outcome = decide(current && this.opened(current), referrers);
      return outcome.status === 'SUCCESS'
        ? { ...outcome, change: this.sealedChange(type, outcome.change) }
        : outcome;
    };
  }

  private async begin(args: {
    compiled: CompiledType;
    operation: 'CREATE' | 'UPDATE' | 'DELETE';
    identifier: string | undefined;
    request: Record<string, unknown>;
    clientToken: string | undefined;
    hashOf: unknown;
    requestToken?: string;
    /** Set for a record-backed provider: the operation is decided and written in one transaction. */
    decide?: (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion;
    /** The stored resource an update was computed from: it begins only if that is still the state. */
    basedOn?: StoredResource;
  }): Promise<ProgressEvent> {
    const { compiled, operation, identifier, request, clientToken, decide } = args;
    const type = compiled.type;
    const token = validateClientToken(clientToken);
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    // Started here when there is room: leased to this worker at once and run without a claim.
    const runHere = !decide && !this.stopped && this.running.size < this.concurrency;
    const requestToken = args.requestToken ?? newRequestToken();
    const record: OperationRecord = {
      requestToken,
      typeName: type.typeName,
      operation,
      status: runHere ? 'IN_PROGRESS' : 'PENDING',
      eventTime: nowIso,
      // A completed-inline operation never runs a handler: it keeps no copy of its request.
      request: decide ? {} : sealRequest(this.sealer, type, requestToken, request as { desiredState: Model }),
      startedAt: nowIso,
      deadlineAt: new Date(now + timeoutMinutes(type, ACTION[operation]) * this.minuteMs).toISOString(),
      attempts: 0,
    };
    if (identifier !== undefined) record.identifier = identifier;
    if (token !== undefined) record.clientToken = token;
    // The hash only serves to compare requests made with the same client token.
    const hash =
      token === undefined ? undefined : requestHash(this.sealer, type.typeName, operation, args.hashOf);
    const result = decide
      ? await this.store.completeOperation(record, hash, this.sealedDecision(type, decide))
      : await this.store.beginOperation(
          record,
          hash,
          runHere ? { owner: this.owner, until: new Date(now + this.leaseMs) } : undefined,
          args.basedOn && this.unchangedSince(type, identifier!, args.basedOn),
        );
    switch (result.kind) {
      case 'started':
        if (decide) {
          // Already terminal.
        } else if (runHere) {
          this.launch(result.operation, true);
        } else {
          this.backlog = true;
          this.kick();
        }
        return this.toEvent(result.operation, type);
      case 'replayed':
        return this.toEvent(result.operation, type);
      case 'token-mismatch':
        throw new TypeplaneError(
          'InvalidRequest',
          `clientToken ${token} was already used for a different request (${result.operation.requestToken}); use a new token for a new request`,
        );
      case 'conflict':
        throw new TypeplaneError(
          'ResourceConflict',
          `${type.typeName} ${identifier} has an operation in progress (${result.activeRequestToken}); wait for it to finish`,
          [{ message: 'active operation', requestToken: result.activeRequestToken }],
        );
    }
  }

  /** An operation that fails before any handler runs but is still an operation (NotFound on update/delete). */
  private async failImmediately(
    compiled: CompiledType,
    operation: 'UPDATE' | 'DELETE',
    identifier: string,
    errorCode: ErrorCode,
    message: string,
    clientToken: string | undefined,
    hashOf: Record<string, unknown>,
  ): Promise<ProgressEvent> {
    const token = validateClientToken(clientToken);
    const now = new Date().toISOString();
    const record: OperationRecord = {
      requestToken: newRequestToken(),
      typeName: compiled.type.typeName,
      identifier,
      operation,
      status: 'FAILED',
      eventTime: now,
      errorCode,
      statusMessage: message,
      request: {},
      startedAt: now,
      deadlineAt: now,
      attempts: 0,
    };
    if (token !== undefined) record.clientToken = token;
    const result = await this.store.beginOperation(
      record,
      token === undefined
        ? undefined
        : requestHash(this.sealer, compiled.type.typeName, operation, { identifier, ...hashOf }),
    );
    if (result.kind === 'token-mismatch') {
      throw new TypeplaneError(
        'InvalidRequest',
        `clientToken ${token} was already used for a different request; use a new token for a new request`,
      );
    }
    if (result.kind === 'conflict')
      throw new TypeplaneError(
        'ResourceConflict',
        `${compiled.type.typeName} ${identifier} has an operation in progress`,
      );
    return this.toEvent(result.operation);
  }

  /** Claim due operations and run them; coalesces concurrent calls. */
  private kick(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = (async () => {
      // Yield first: otherwise a pass that ends at once runs its finally (clearing `claiming`) before
      // `claiming` is assigned, leaving it set for good and the loop stopped.
      await null;
      try {
        do {
          this.claimAgain = false;
          const room = this.concurrency - this.running.size;
          if (room <= 0) {
            // Full: the next finished slot claims again.
            this.backlog = true;
            break;
          }
          const ops = await this.store.claimOperations(this.owner, new Date(), this.leaseMs, room);
          for (const op of ops) this.launch(op);
          this.backlog = ops.length === room;
          if (this.backlog) this.claimAgain = true;
        } while (this.claimAgain && !this.stopped);
      } catch (e) {
        this.log.error('claiming operations failed', { err: String(e) });
      } finally {
        this.claiming = undefined;
      }
    })();
  }

  /** Run one step of an operation this worker holds; `fresh` when it was just begun here (never invoked). */
  private launch(op: OperationRecord, fresh = false): void {
    const abort = new AbortController();
    const renew = setInterval(
      () => {
        this.store.renewLease(op.requestToken, this.owner, new Date(), this.leaseMs).catch(() => undefined);
      },
      Math.max(100, this.leaseMs / 3),
    );
    renew.unref();
    const done = this.step(op, abort.signal, fresh)
      .catch((e: unknown) => {
        if (e instanceof OperationMovedOn) {
          this.log.warn(
            'operation moved on while this worker ran it (ended, or taken over): its step is dropped',
            {
              requestToken: op.requestToken,
            },
          );
        } else {
          this.log.error('operation step failed', { requestToken: op.requestToken, err: String(e) });
        }
      })
      .finally(() => {
        clearInterval(renew);
        this.running.delete(op.requestToken);
        this.events.emit(op.requestToken);
        // A finished slot lets queued work in; without a backlog the poll loop is enough.
        if (this.backlog) this.kick();
      });
    this.running.set(op.requestToken, { abort, done });
  }

  /** One handler invocation for an operation this worker holds the lease on. */
  private async step(op: OperationRecord, signal: AbortSignal, fresh: boolean): Promise<void> {
    const log = lazyChild(this.log, {
      requestToken: op.requestToken,
      typeName: op.typeName,
      operation: op.operation,
    });
    if (op.status === 'CANCEL_IN_PROGRESS') {
      return this.finish(op, 'CANCEL_COMPLETE', { statusMessage: 'cancelled' });
    }
    let compiled: CompiledType;
    try {
      compiled = await this.registry.get(op.typeName);
    } catch {
      return this.finish(op, 'FAILED', {
        errorCode: 'InvalidTypeConfiguration',
        statusMessage: `type ${op.typeName} is no longer registered`,
      });
    }
    const type = compiled.type;
    const now = Date.now();
    if (now >= Date.parse(op.deadlineAt)) {
      return this.finish(op, 'FAILED', {
        errorCode: 'NotStabilized',
        statusMessage: `did not finish within ${timeoutMinutes(type, ACTION[op.operation as 'CREATE'])} minutes`,
      });
    }
    // Invoked before (a callback, or a worker that died mid-call) unless it was just begun here.
    const resumed = !fresh && op.status === 'IN_PROGRESS';
    if (op.operation === 'CREATE' && op.identifier !== undefined && !resumed) {
      if (await this.store.getResource(type.typeName, op.identifier)) {
        return this.finish(op, 'FAILED', {
          errorCode: 'AlreadyExists',
          statusMessage: `${type.typeName} ${op.identifier} already exists`,
        });
      }
    }
    if (op.status === 'PENDING') {
      op.status = 'IN_PROGRESS';
      op.eventTime = new Date().toISOString();
      await this.store.saveOperation(op, this.owner);
    }

    const provider = this.providerFor(type.typeName);
    const action = ACTION[op.operation as 'CREATE' | 'UPDATE' | 'DELETE'];
    const remaining = Date.parse(op.deadlineAt) - now;
    const timeout = AbortSignal.timeout(Math.max(1, remaining));
    // Write-only values and the callback context are opened here only, for the provider.
    let opened: ReturnType<typeof openRequest>;
    let callbackContext: Record<string, unknown> | undefined;
    try {
      opened = openRequest(this.sealer, op.requestToken, op.request);
      callbackContext = op.callbackContext && openContext(this.sealer, op.requestToken, op.callbackContext);
    } catch (e) {
      return this.finish(op, 'FAILED', { errorCode: 'InternalFailure', statusMessage: (e as Error).message });
    }
    const request = {
      typeName: type.typeName,
      desiredState: opened.desiredState ?? {},
      clientRequestToken: op.requestToken,
      logger: log,
      signal: AbortSignal.any([signal, timeout]),
      ...(opened.previousState ? { previousState: opened.previousState } : {}),
      ...(callbackContext ? { callbackContext } : {}),
    };
    // Operations begun before a record-backed provider completed them inline are finished the same way.
    const event = provider.recordBacked
      ? recordEvent(provider, type, op, request.desiredState)
      : await this.invoke(provider, action, type, request);

    // Someone may have asked to cancel while the handler ran (a SUCCESS stands regardless).
    const latest = event.status === 'SUCCESS' ? undefined : await this.store.getOperation(op.requestToken);
    // A SUCCESS still stands: the resource exists and must be recorded, or it would leak.
    if (latest?.status === 'CANCEL_IN_PROGRESS' && event.status !== 'SUCCESS') {
      return this.finish(latest, 'CANCEL_COMPLETE', { statusMessage: 'cancelled' });
    }
    // Stopped by a shutdown, not by its deadline: left as it is (lease released) for the next start to resume.
    if (this.stopped && signal.aborted && !timeout.aborted && event.status !== 'SUCCESS') {
      await this.store.renewLease(op.requestToken, this.owner, new Date(), 0);
      return;
    }
    if (timeout.aborted && event.status !== 'SUCCESS') {
      return this.finish(op, 'FAILED', {
        errorCode: 'NotStabilized',
        statusMessage: `did not finish within ${timeoutMinutes(type, action)} minutes`,
      });
    }

    op.attempts += 1;
    switch (event.status) {
      case 'IN_PROGRESS': {
        const delay = Math.min(
          Math.max(Number(event.callbackDelaySeconds ?? 0), 0),
          MAX_CALLBACK_DELAY_SECONDS,
        );
        if (event.callbackContext)
          op.callbackContext = sealContext(this.sealer, op.requestToken, event.callbackContext);
        op.retryAfter = new Date(Date.now() + delay * 1000).toISOString();
        op.eventTime = new Date().toISOString();
        if (event.message) op.statusMessage = event.message;
        if (event.resourceModel && typeof event.resourceModel === 'object')
          op.resourceModel = stripWriteOnly(type, event.resourceModel);
        await this.store.saveOperation(op, this.owner);
        await this.store.renewLease(op.requestToken, this.owner, new Date(), 0);
        this.later(delay * 1000);
        return;
      }
      case 'FAILED': {
        const code = event.errorCode ?? 'GeneralServiceException';
        // A delete re-invoked after its first attempt may find its own work done.
        if (op.operation === 'DELETE' && code === 'NotFound' && resumed) {
          return this.finish(
            op,
            'SUCCESS',
            {},
            { kind: 'delete', typeName: type.typeName, identifier: op.identifier! },
          );
        }
        // The provider says the resource is gone: the index follows the truth.
        const vanished: ResourceChange | undefined =
          code === 'NotFound' && op.identifier !== undefined && op.operation !== 'CREATE'
            ? { kind: 'delete', typeName: type.typeName, identifier: op.identifier }
            : undefined;
        return this.finish(
          op,
          'FAILED',
          { errorCode: code, statusMessage: event.message ?? `${action} failed with ${code}` },
          vanished,
        );
      }
      case 'SUCCESS': {
        if (op.operation === 'DELETE') {
          return this.finish(
            op,
            'SUCCESS',
            {},
            { kind: 'delete', typeName: type.typeName, identifier: op.identifier! },
          );
        }
        let model: Model;
        let identifier: string;
        try {
          model = this.checkModel(provider, compiled, event.resourceModel, op.identifier);
          identifier = identifierOf(type, model)!;
        } catch (e) {
          const message = e instanceof TypeplaneError ? e.message : String(e);
          return this.finish(op, 'FAILED', { errorCode: 'HandlerInternalFailure', statusMessage: message });
        }
        const now = new Date().toISOString();
        op.identifier = identifier;
        // Providers need not echo write-only values; the index keeps what was asked for, so a later
        // patch applies to the whole desired state (they are stripped from every answer regardless).
        keepWriteOnly(type, request.desiredState, model);
        // What it refers to now, recorded with it (so a referenced resource cannot be deleted under it).
        const references = (await this.referencesOf(type, model))
          .filter((r) => !r.unregistered)
          .map(({ typeName, identifier }) => ({ typeName, identifier }));
        // Kept at rest without its write-only values; those are sealed beside it.
        const record = sealResource(this.sealer, type, identifier, model);
        const change: ResourceChange = {
          kind: 'put',
          resource: {
            typeName: type.typeName,
            identifier,
            ...record,
            createdAt: now,
            updatedAt: now,
          },
          // A type without references never has any to replace.
          ...(type.traits.references.length > 0 ? { references } : {}),
        };
        try {
          return await this.finish(op, 'SUCCESS', { resourceModel: record.properties }, change);
        } catch (e) {
          if (e instanceof TypeplaneError && e.code === 'ResourceConflict') {
            return this.finish(op, 'FAILED', {
              errorCode: 'AlreadyExists',
              statusMessage: `${type.typeName} ${identifier} already exists`,
            });
          }
          throw e;
        }
      }
    }
  }

  /** Invoke a handler, turning every way it can misbehave into a FAILED event with the right code. */
  private async invoke(
    provider: Provider,
    action: HandlerAction,
    type: ResourceType,
    request: Parameters<Provider['create']>[0],
  ): Promise<HandlerEvent> {
    // A provider's words may quote what it was handed; they are kept and logged, so never the secrets.
    const mask = (text: string) => maskWriteOnly(type, text, [request.desiredState, request.previousState]);
    let event: unknown;
    try {
      event = await raceAbort(provider[action](request), request.signal);
    } catch (e) {
      if (request.signal.aborted) {
        return {
          status: 'FAILED',
          errorCode: 'NotStabilized',
          message: `${action} was stopped: ${String((request.signal.reason as Error)?.message ?? 'timed out')}`,
        };
      }
      const code = (e as { code?: unknown }).code;
      if (isErrorCode(code))
        return { status: 'FAILED', errorCode: code, message: mask(String((e as Error).message)) };
      this.log.error('handler threw', {
        provider: provider.name,
        typeName: type.typeName,
        action,
        err: mask(String(e)),
      });
      return {
        status: 'FAILED',
        errorCode: 'HandlerInternalFailure',
        message: mask(`provider ${provider.name} failed in ${action}: ${(e as Error)?.message ?? String(e)}`),
      };
    }
    const problem = eventProblem(event);
    if (problem) {
      this.log.error('handler broke the contract', {
        provider: provider.name,
        typeName: type.typeName,
        action,
        problem,
      });
      return {
        status: 'FAILED',
        errorCode: 'HandlerInternalFailure',
        message: `provider ${provider.name} answered ${action} with an invalid event: ${problem}`,
      };
    }
    const answer = event as HandlerEvent;
    return typeof answer.message === 'string' ? { ...answer, message: mask(answer.message) } : answer;
  }

  /** A model a handler returned: shape-valid, carrying the (expected) primary identifier; nulls removed. */
  private checkModel(
    provider: Provider,
    compiled: CompiledType,
    raw: unknown,
    expectedIdentifier: string | undefined,
  ): Model {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw this.contractViolation(provider, 'SUCCESS without a resource model');
    }
    const model = stripNulls(raw) as Model;
    const problems = compiled.validateOutput(model);
    if (problems.length > 0) {
      throw this.contractViolation(
        provider,
        `returned a model that does not match the schema: ${problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`,
      );
    }
    const identifier = identifierOf(compiled.type, model);
    if (identifier === undefined)
      throw this.contractViolation(
        provider,
        `returned a model without its primary identifier (${compiled.type.primaryIdentifier.join(', ')})`,
      );
    const problem = identifierProblem(identifier);
    if (problem) throw this.contractViolation(provider, `returned an identifier that ${problem}`);
    if (expectedIdentifier !== undefined && identifier !== expectedIdentifier) {
      throw this.contractViolation(
        provider,
        `returned identifier ${identifier} for resource ${expectedIdentifier}`,
      );
    }
    return model;
  }

  private contractViolation(provider: Provider, message: string): TypeplaneError {
    this.log.error('handler broke the contract', { provider: provider.name, problem: message });
    return new TypeplaneError('HandlerInternalFailure', `provider ${provider.name} ${message}`);
  }

  private async finish(
    op: OperationRecord,
    status: OperationStatus,
    fields: { errorCode?: ErrorCode; statusMessage?: string; resourceModel?: Model },
    change?: ResourceChange,
  ): Promise<void> {
    op.status = status;
    op.eventTime = new Date().toISOString();
    delete op.retryAfter;
    delete op.callbackContext;
    if (fields.errorCode) op.errorCode = fields.errorCode;
    // A message from an earlier IN_PROGRESS step does not describe the outcome.
    if (fields.statusMessage !== undefined) op.statusMessage = fields.statusMessage;
    else delete op.statusMessage;
    if (fields.resourceModel) op.resourceModel = fields.resourceModel;
    else if (op.operation === 'DELETE') delete op.resourceModel;
    // Fenced: a worker that lost its lease (another took the operation over) cannot overwrite it.
    await this.store.finishOperation(op, change, this.owner);
    this.events.emit(op.requestToken);
  }

  private later(ms: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.kick();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  /** The event of an operation; `type` when the caller has it (the operation's type, as registered now). */
  private async toEvent(op: OperationRecord, known?: ResourceType): Promise<ProgressEvent> {
    const event: ProgressEvent = {
      typeName: op.typeName,
      requestToken: op.requestToken,
      operation: op.operation,
      operationStatus: op.status,
      eventTime: op.eventTime,
    };
    if (op.identifier !== undefined) event.identifier = op.identifier;
    if (op.resourceModel && op.operation !== 'DELETE') {
      let type = known;
      if (!type) {
        try {
          type = (await this.registry.get(op.typeName)).type;
        } catch {
          type = undefined;
        }
      }
      // Without the type we cannot tell what is write-only, so we show nothing rather than too much.
      if (type)
        event.resourceModel = stripNulls(
          type.writeOnlyProperties.length === 0 ? op.resourceModel : stripWriteOnly(type, op.resourceModel),
        );
    }
    if (op.statusMessage !== undefined) event.statusMessage = op.statusMessage;
    if (op.errorCode !== undefined) event.errorCode = op.errorCode;
    if (op.retryAfter !== undefined && !TERMINAL_STATUSES.has(op.status)) event.retryAfter = op.retryAfter;
    return event;
  }
}

function requireModel(value: unknown, name: string): Model {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeplaneError('InvalidRequest', `${name} must be a JSON object of the resource's properties`);
  }
  // The engine's own copy (defaults are applied to it); models are JSON, so a JSON copy does.
  return cloneJson(value as Model);
}

/** A child logger made only when something is logged (most handler calls log nothing). */
function lazyChild(parent: EngineLogger, bindings: Record<string, unknown>): EngineLogger {
  let child: EngineLogger | undefined;
  const get = () => (child ??= parent.child(bindings));
  return {
    debug: (message, fields) => get().debug(message, fields),
    info: (message, fields) => get().info(message, fields),
    warn: (message, fields) => get().warn(message, fields),
    error: (message, fields) => get().error(message, fields),
    child: (more) => get().child(more),
  };
}

/**
 * Copy the write-only values the model lacks from the desired state, at any depth (array items by
 * position), where the model has the place for them.
 */
function keepWriteOnly(type: ResourceType, desired: Model | undefined, model: Model): void {
  if (!desired) return;
  const values: WriteOnlyValue[] = [];
  for (const pointer of type.writeOnlyProperties)
    for (const { path, value } of valuesAt(desired, pointer)) values.push([path, value]);
  if (values.length > 0) mergeWriteOnly(model, values, true);
}

function refuseReadOnly(type: ResourceType, desired: Model): void {
  const readOnly = readOnlyPresent(type, desired);
  if (readOnly.length > 0) {
    throw new TypeplaneError(
      'InvalidRequest',
      `read-only properties cannot be set: ${readOnly.join(', ')}`,
      readOnly.map((pointer) => ({ pointer, message: 'is read-only: the provider sets it' })),
    );
  }
}

function assertValid(compiled: CompiledType, desired: Model): void {
  const problems = compiled.validateInput(desired);
  if (problems.length > 0) {
    throw new TypeplaneError(
      'InvalidRequest',
      `the desired state does not match the schema of ${compiled.type.typeName}: ${problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`,
      problems,
    );
  }
}

function validateClientToken(token: unknown): string | undefined {
  if (token === undefined || token === null) return undefined;
  if (typeof token !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(token)) {
    throw new TypeplaneError(
      'InvalidRequest',
      'clientToken must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-"',
    );
  }
  return token;
}

function parseMaxResults(value: unknown): number {
  if (value === undefined || value === '') return DEFAULT_MAX_RESULTS;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_RESULTS_LIMIT) {
    throw new TypeplaneError(
      'InvalidRequest',
      `maxResults must be a whole number from 1 to ${MAX_RESULTS_LIMIT}`,
    );
  }
  return n;
}

function timeoutMinutes(type: ResourceType, action: HandlerAction): number {
  return type.handlers[action]?.timeoutInMinutes ?? DEFAULT_TIMEOUT_MINUTES;
}

/**
 * Stable hash of a request, for client token comparison (key order does not matter). Keyed: a body
 * may hold a guessable secret, which a plain hash would let anyone with the store check guesses of.
 */
function requestHash(sealer: Sealer, typeName: string, operation: Operation, body: unknown): string {
  return sealer.mac(canonicalJson([typeName, operation, body]));
}

/** JSON with object members in code-unit order of their names (undefined members left out). */
function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  // sort() without a comparator orders strings by UTF-16 code units.
  for (const key of Object.keys(object).sort()) {
    const member = object[key];
    if (member === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${out}}`;
}

function sameValues(a: { value: unknown }[], b: { value: unknown }[]): boolean {
  return canonicalJson(a.map((x) => x.value)) === canonicalJson(b.map((x) => x.value));
}

/** Why a handler's answer is not a valid event, or undefined. */
function eventProblem(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return 'not an object';
  const e = event as Record<string, unknown>;
  if (e.status !== 'SUCCESS' && e.status !== 'FAILED' && e.status !== 'IN_PROGRESS')
    return `status must be SUCCESS, FAILED or IN_PROGRESS, not ${JSON.stringify(e.status)}`;
  if (e.status === 'FAILED' && !isErrorCode(e.errorCode))
    return `FAILED needs a contract errorCode, not ${JSON.stringify(e.errorCode)}`;
  if (
    e.callbackDelaySeconds !== undefined &&
    (typeof e.callbackDelaySeconds !== 'number' || !(e.callbackDelaySeconds >= 0))
  )
    return 'callbackDelaySeconds must be a non-negative number';
  if (
    e.callbackContext !== undefined &&
    (typeof e.callbackContext !== 'object' || e.callbackContext === null || Array.isArray(e.callbackContext))
  )
    return 'callbackContext must be an object';
  return undefined;
}

function stillReferenced(typeName: string, identifier: string, dependants: ResourceKey[]): TypeplaneError {
  return new TypeplaneError(
    'ResourceConflict',
    `${typeName} ${identifier} is still referenced by ${dependants.map((d) => `${d.typeName} ${d.identifier}`).join(', ')}; delete or change those first`,
    dependants.map((d) => ({
      message: 'refers to this resource',
      typeName: d.typeName,
      identifier: d.identifier,
    })),
  );
}

/** What a record-backed provider's handler would answer: the record is the state. */
function recordEvent(
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

/**
 * Request tokens are time-ordered UUIDs (version 7, RFC 9562): the indexes keyed by them then grow
 * at their end, so a burst of operations writes a few pages instead of one random page each. Built
 * from randomUUID, whose entropy Node draws in batches (a per-call getRandomValues cost 5% of a
 * create): the first 48 bits become the millisecond time and the version nibble 7.
 */
function newRequestToken(): string {
  const time = Date.now().toString(16).padStart(12, '0');
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}

/** How many times a patch is computed again when other updates keep getting in first. */
const PATCH_ATTEMPTS = 8;

/** The resource changed between the read an update was computed from and the update's begin. */
class ChangedMeanwhile extends TypeplaneError {
  constructor(typeName: string, identifier: string) {
    super(
      'ResourceConflict',
      `${typeName} ${identifier} kept changing while this update was being prepared; read it again and retry`,
    );
  }
}

/**
 * Identifiers are keys in every store and a segment of every resource path, so they are bounded the
 * same whatever the store: at most {@link MAX_IDENTIFIER_BYTES} bytes of UTF-8 (as Cloud Control's
 * 1,024; URL-encoded, that always fits a path segment), and never U+0000, which PostgreSQL text cannot
 * hold. An identifier problem of a provider's model is the provider's; of a request, the caller's.
 */
export const MAX_IDENTIFIER_BYTES = 1024;

function identifierProblem(identifier: string): string | undefined {
  if (identifier.includes('\u0000')) return 'contains U+0000 (NUL)';
  const bytes = Buffer.byteLength(identifier, 'utf8');
  if (bytes > MAX_IDENTIFIER_BYTES)
    return `is ${bytes} bytes long (UTF-8); an identifier is at most ${MAX_IDENTIFIER_BYTES}`;
  return undefined;
}

function checkIdentifierValues(type: ResourceType, model: Model): void {
  const identifier = identifierOf(type, model);
  const problem = identifier === undefined ? undefined : identifierProblem(identifier);
  if (problem)
    throw new TypeplaneError(
      'InvalidRequest',
      `the identifier (${type.primaryIdentifier.join(', ')}) ${problem}`,
      type.primaryIdentifier.map((pointer) => ({ pointer, message: `the identifier ${problem}` })),
    );
}

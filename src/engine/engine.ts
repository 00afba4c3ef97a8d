/**
 * @module The engine: uniform create/read/update/delete/list over registered types, with the handler
 * contract enforced around every provider.
 *
 * Mutations are asynchronous operations: the caller gets a PENDING ProgressEvent at once; a worker
 * loop claims due operations from the store (so a restarted server, or another replica, resumes
 * them), invokes the provider, and records the outcome together with the resource index change in
 * one store transaction. Everything decided before a handler runs (bad input, missing type,
 * conflicts) is thrown as a TypeplaneError instead.
 *
 * This class wires the parts and is the public API; what happens to a create is `create.ts` →
 * `begin.ts` → `worker.ts` → `step.ts` → `invoke.ts` → `check-answer.ts` → `finish.ts`.
 */
import type { Provider } from '../handler/index.js';
import type { Registry } from '../registry/registry.js';
import type { CompiledType } from '../registry/compile.js';
import type { ResourceType } from '../schema/index.js';
import type { Sealer } from '../secrets/index.js';
import type { Store } from '../store/types.js';
import type { DeniedByVerdicts, Verdict } from '../verdict.js';
import { requiresConfiguration, type ConfigurationSource } from '../type-configuration/index.js';
import { scopedClientToken, type Caller } from './caller.js';
import { expireTokensHourly, SEVEN_DAYS_MS } from './client-token.js';
import { CALL_LIMITS, type CallLimits } from '../handler/index.js';
import type { EngineContext } from './context.js';
import { adopt, unmanaged } from './adopt.js';
import { assertConfigured } from './admission.js';
import { create } from './create.js';
import { deleteResource } from './delete.js';
import { forget } from './forget.js';
import type { EngineLogger } from './logger.js';
import type { EngineObserver } from './observer.js';
import { concerned, previewChange, reviewChange, type Reviewer, type ReviewRequest } from './review.js';
import { put } from './put.js';
import { recordRefusal } from './refusal.js';
import { list, read, readAnswer, type ResourceList } from './read.js';
import { toEvent } from './progress-event.js';
import type { OperationRecord } from '../store/types.js';
import { references } from './references.js';
import { cancel, getRequest, listRequests, waitFor } from './requests.js';
import { step } from './step.js';
import type {
  Operation,
  OperationStatus,
  ProgressEvent,
  RecordedDescription,
  ResourceDescription,
} from './types.js';
import { againstDefaultVersion } from './default-version.js';
import { update } from './update.js';
import { Worker } from './worker.js';

/** The changes {@link Engine.judgesAny} asks about, in order. */
const JUDGED_OPERATIONS = ['CREATE', 'UPDATE', 'DELETE'] as const;

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
  /** Most handler invocations running at once in this process (default 64). */
  concurrency?: number;
  /**
   * Most of those for one type (default three quarters of `concurrency`): no type's operations take
   * every slot, and one type alone still runs nearly as many at once as the server can.
   */
  concurrencyPerType?: number;
  /**
   * Most of those for one caller, a token (default three quarters of `concurrency`): one token's
   * backlog, its stacks' and recipes' included, leaves the other tokens room (docs/fairness.md).
   */
  concurrencyPerFlow?: number;
  /** Milliseconds in a "minute" of a handler's timeoutInMinutes (tests shorten it; default 60,000). */
  minuteMs?: number;
  /** The longest one handler invocation may take (default 60 s for create/update/delete, 30 s for read/list; tests shorten them). */
  callLimitsMs?: Partial<CallLimits>;
  /** Refuse operations on types served by a provider without a passing contract report for their registration. */
  requirePassingContract?: boolean;
  /** Types' configurations: handed to every handler invocation, and required where a type requires them. */
  configurations?: ConfigurationSource;
  /** Told of ended operations and handler calls (metrics). */
  observer?: EngineObserver;
  /** Reviews every change before it begins: admission policies and hooks (src/policy). */
  reviewer?: Reviewer;
}

export class Engine {
  private readonly ctx: EngineContext;
  private readonly tokenRetentionMs: number;
  private expiryTimer: NodeJS.Timeout | undefined;

  constructor(options: EngineOptions) {
    const concurrency = options.concurrency ?? 64;
    const worker = new Worker({
      store: options.store,
      log: options.logger,
      leaseMs: options.leaseMs ?? 30_000,
      pollIntervalMs: options.pollIntervalMs ?? 1_000,
      concurrency,
      concurrencyPerType: Math.min(
        concurrency,
        options.concurrencyPerType ?? Math.max(1, concurrency - Math.ceil(concurrency / 4)),
      ),
      concurrencyPerFlow: Math.min(
        concurrency,
        options.concurrencyPerFlow ?? Math.max(1, concurrency - Math.ceil(concurrency / 4)),
      ),
      step: (op, signal, fresh) => step(ctx, op, signal, fresh),
      ...(options.observer ? { observer: options.observer } : {}),
    });
    const ctx: EngineContext = {
      store: options.store,
      registry: options.registry,
      providerFor: options.providerFor,
      log: options.logger,
      sealer: options.sealer,
      minuteMs: options.minuteMs ?? 60_000,
      callLimits: { ...CALL_LIMITS, ...options.callLimitsMs },
      requirePassingContract: options.requirePassingContract ?? false,
      worker,
      ...(options.configurations ? { configurations: options.configurations } : {}),
      ...(options.observer ? { observer: options.observer } : {}),
      ...(options.reviewer ? { reviewer: options.reviewer } : {}),
    };
    this.ctx = ctx;
    this.tokenRetentionMs = Math.max(options.tokenRetentionMs ?? SEVEN_DAYS_MS, SEVEN_DAYS_MS);
  }

  /** Start working: resume whatever is due, then keep polling. */
  start(): void {
    if (!this.ctx.worker.stopped) return;
    this.ctx.worker.start();
    this.expiryTimer = expireTokensHourly(this.ctx.store, this.tokenRetentionMs, this.ctx.log);
  }

  /**
   * Stop taking work; let running handler invocations finish for up to `graceMs`, then abort them.
   * Whatever is not terminal stays in the store, leases released, to be resumed by the next start.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    await this.ctx.worker.stop(graceMs);
  }

  // ---- Resources -------------------------------------------------------------------------------

  /**
   * Mutations take the `caller` when there is one (an API token): its client tokens are its own, and
   * its models may refer only to types it may see. `version`: check against (and run with) that
   * registered version instead of the default.
   */
  create(
    typeName: string,
    desiredState: unknown,
    clientToken?: string,
    caller?: Caller,
    version?: string,
  ): Promise<ProgressEvent> {
    return this.mutation(typeName, () =>
      create(this.ctx, typeName, desiredState, scopedClientToken(clientToken, caller), caller, version),
    );
  }

  /** Update by JSON Patch, applied to the resource as it is when the update begins. */
  update(
    typeName: string,
    identifier: string,
    patchDocument: unknown,
    clientToken?: string,
    caller?: Caller,
    version?: string,
  ): Promise<ProgressEvent> {
    return this.mutation(typeName, () =>
      update(
        this.ctx,
        typeName,
        identifier,
        patchDocument,
        scopedClientToken(clientToken, caller),
        caller,
        version,
      ),
    );
  }

  /** Create-or-replace (PUT): see `put.ts`. */
  put(
    typeName: string,
    identifier: string,
    desiredState: unknown,
    clientToken?: string,
    caller?: Caller,
    version?: string,
  ): Promise<ProgressEvent> {
    return this.mutation(typeName, () =>
      put(
        this.ctx,
        typeName,
        identifier,
        desiredState,
        scopedClientToken(clientToken, caller),
        caller,
        version,
      ),
    );
  }

  async delete(
    typeName: string,
    identifier: string,
    clientToken?: string,
    caller?: Caller,
  ): Promise<ProgressEvent> {
    const configured = this.configured(typeName);
    if (configured) await configured;
    return deleteResource(this.ctx, typeName, identifier, scopedClientToken(clientToken, caller), caller);
  }

  /**
   * Keeps a change its review denied as an operation that failed before it began, as Cloud Control
   * reports a hook's failure: see `refusal.ts`.
   */
  recordRefusal(
    typeName: string,
    operation: 'CREATE' | 'UPDATE' | 'DELETE',
    identifier: string | undefined,
    refusal: DeniedByVerdicts,
  ): Promise<ProgressEvent> {
    return recordRefusal(this.ctx, typeName, operation, identifier, refusal);
  }

  /**
   * The verdicts the type's rules and the reviewer (admission policies, hooks) give a change of
   * `typeName` (its default version) that is only planned, not made: a stack's plan shows them, and
   * a deployment whose plan is denied fails before anything is created.
   */
  async preview(
    typeName: string,
    change: Pick<ReviewRequest, 'operation' | 'identifier' | 'object' | 'oldObject' | 'caller'>,
  ): Promise<readonly Verdict[]> {
    const compiled = await this.ctx.registry.get(typeName);
    // The type's own rules first, as a change made is checked (ratcheted against the state before).
    const rules =
      change.operation !== 'DELETE' && change.object
        ? (compiled.checkRules?.(change.object, change.oldObject) ?? [])
        : [];
    return [...rules, ...(await previewChange(this.ctx, { ...change, compiled }))];
  }

  /**
   * Whether {@link preview} could give a change of `typeName` (its default version) any verdict: its
   * type has rules (for a create or update), or the reviewer would judge it. A plan of changes nothing
   * judges need not be worked out to be reviewed.
   */
  async judges(typeName: string, operation: 'CREATE' | 'UPDATE' | 'DELETE'): Promise<boolean> {
    return this.judgesOf(await this.ctx.registry.get(typeName), operation);
  }

  /**
   * Whether {@link judges} says so of any change of `typeName` (a create, an update or a delete), the
   * type read once: what a stack asks of each of its types before deploying without a plan, and a
   * recipe of each type before every new instance.
   */
  judgesAny(typeName: string): boolean | Promise<boolean> {
    // At once while the type is fresh here and every reviewer part can say at once (the usual case):
    // a recipe asks this of each of its types before every new instance.
    const fresh = this.ctx.registry.fresh(typeName);
    if (fresh) return this.judgesAnyOf(fresh);
    return this.ctx.registry.get(typeName).then((compiled) => this.judgesAnyOf(compiled));
  }

  /** {@link judgesAny}'s answer for a type already read, from the `from`th operation on. */
  private judgesAnyOf(compiled: CompiledType, from = 0): boolean | Promise<boolean> {
    for (let i = from; i < JUDGED_OPERATIONS.length; i++) {
      const judged = this.judgesOf(compiled, JUDGED_OPERATIONS[i]!);
      if (judged === true) return true;
      if (judged !== false) return judged.then((yes) => yes || this.judgesAnyOf(compiled, i + 1));
    }
    return false;
  }

  /** {@link judges}' answer for a type already read: at once unless the reviewer must be asked. */
  private judgesOf(
    compiled: CompiledType,
    operation: 'CREATE' | 'UPDATE' | 'DELETE',
  ): boolean | Promise<boolean> {
    if (operation !== 'DELETE' && compiled.checkRules) return true;
    return concerned(this.ctx, { operation, compiled, caller: undefined, dryRun: true });
  }

  /**
   * Puts a change the engine does not make itself — a resource a stack imports, recorded by the
   * stack — to the reviewer (admission policies, hooks) as the change would be: the verdicts it may
   * proceed with; `DeniedByVerdicts` when one denies it. The type's rules are not checked: the
   * resource is what it is, and a rule judges what a caller asks for.
   */
  async review(
    typeName: string,
    change: Pick<ReviewRequest, 'operation' | 'identifier' | 'object' | 'oldObject' | 'caller'>,
  ): Promise<readonly Verdict[]> {
    const compiled = await this.ctx.registry.get(typeName);
    return reviewChange(this.ctx, { ...change, compiled });
  }

  /** Drops Typeplane's record of a resource without calling its provider: see `forget.ts`. */
  forget(typeName: string, identifier: string, caller?: Caller): Promise<ProgressEvent> {
    return forget(this.ctx, typeName, identifier, caller);
  }

  /** Records a resource its provider has and Typeplane had no record of, read through the provider: see `adopt.ts`. */
  async adopt(typeName: string, identifier: string, caller?: Caller): Promise<ProgressEvent> {
    await this.configured(typeName);
    return adopt(this.ctx, typeName, identifier, caller);
  }

  /** A page of the provider's own list, without what Typeplane has a record of: see `adopt.ts`. */
  async unmanaged(
    typeName: string,
    options: { maxResults?: unknown; nextToken?: unknown } = {},
  ): Promise<{ resourceDescriptions: ResourceDescription[]; nextToken: string | null }> {
    await this.configured(typeName);
    return unmanaged(this.ctx, typeName, options);
  }

  /** Resolves when `version` of the type is registered; `NotFound` naming the versions it has otherwise. */
  async assertVersion(typeName: string, version: string): Promise<void> {
    await this.ctx.registry.get(typeName, version);
  }

  /**
   * The read-only properties (pointers) of `type` that its provider never sets: none for a provider
   * with handlers of its own (it may set any); for one whose record is the resource (the state
   * provider), all but those it generates.
   */
  readOnlyNeverSet(type: ResourceType): string[] {
    const kept = this.ctx.providerFor(type.typeName).recordBacked;
    if (!kept) return [];
    const generated = new Set(kept.generates(type));
    return type.readOnlyProperties.filter((pointer) => !generated.has(pointer));
  }

  /** The resource as its provider reports it now. */
  async read(typeName: string, identifier: string): Promise<ResourceDescription> {
    return read(this.ctx, await this.readable(typeName), identifier);
  }

  /**
   * The resource as {@link read} answers it, or its recorded model's JSON text when that is the answer
   * as it stands (`RecordedDescription`): the API's reads send it without parsing it.
   */
  async readAnswer(typeName: string, identifier: string): Promise<ResourceDescription | RecordedDescription> {
    return readAnswer(this.ctx, await this.readable(typeName), identifier);
  }

  /** A type to read: one look-up, from memory while it is fresh (a read is the API's most frequent call). */
  private async readable(typeName: string): Promise<CompiledType> {
    const compiled = this.ctx.registry.fresh(typeName) ?? (await this.ctx.registry.get(typeName));
    if (requiresConfiguration(compiled.type.typeConfiguration)) await this.configured(typeName);
    return compiled;
  }

  list(
    typeName: string,
    /** `filters`: top-level scalar property → the value it must have (all must match). */
    /** `version`: the type version whose schema the filters are checked against (the default one if absent). */
    options: {
      maxResults?: unknown;
      nextToken?: unknown;
      filters?: Record<string, unknown>;
      version?: string;
    },
  ): Promise<ResourceList> {
    return list(this.ctx, typeName, options);
  }

  /** Both directions of references for one resource. */
  references(
    typeName: string,
    identifier: string,
  ): Promise<{
    references: { typeName: string; identifier: string }[];
    referencedBy: { typeName: string; identifier: string }[];
  }> {
    return references(this.ctx, typeName, identifier);
  }

  /**
   * A create, update or put of `typeName` (`run`): once the type is configured, checked against the
   * default version unless it names one, and again if the default moves meanwhile (default-version.ts).
   */
  private async mutation(typeName: string, run: () => Promise<ProgressEvent>): Promise<ProgressEvent> {
    const configured = this.configured(typeName);
    if (configured) await configured;
    // Awaited: a promise returned from an async function costs two more turns of the microtask queue.
    return await againstDefaultVersion(this.ctx, run);
  }

  /**
   * A type whose configuration requires a setting is not served until an admin sets it. Undefined
   * (no promise to wait for) when the type, fresh in memory, requires none.
   */
  private configured(typeName: string): Promise<void> | undefined {
    return assertConfigured(this.ctx, typeName);
  }

  /** Handler invocations running in this process now, by type name. */
  running(): ReadonlyMap<string, number> {
    return this.ctx.worker.runningByTypeName;
  }

  // ---- Requests --------------------------------------------------------------------------------

  getRequest(requestToken: string): Promise<ProgressEvent> {
    return getRequest(this.ctx, requestToken);
  }

  listRequests(
    filter: { operation?: Operation[]; status?: OperationStatus[]; typeName?: string; identifier?: string },
    options: { maxResults?: unknown; nextToken?: unknown },
  ): Promise<{ progressEvents: ProgressEvent[]; nextToken: string | null; resourceVersion: string }> {
    return listRequests(this.ctx, filter, options);
  }

  /** An operation as the API reports it (its ProgressEvent: write-only values never). */
  describeOperation(op: OperationRecord): Promise<ProgressEvent> {
    return toEvent(this.ctx, op);
  }

  /** Cancel a pending or in-progress operation. */
  cancel(requestToken: string): Promise<ProgressEvent> {
    return cancel(this.ctx, requestToken);
  }

  /** The operation's event once terminal, or the latest one when `waitMs` runs out. */
  waitFor(requestToken: string, waitMs: number): Promise<ProgressEvent> {
    return waitFor(this.ctx, requestToken, waitMs);
  }
}

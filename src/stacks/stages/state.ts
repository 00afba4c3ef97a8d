/**
 * @module One deployment's state, and the steps every stage of it takes: an engine operation run to
 * its end, a resource record saved or forgotten, an event written, a failure noted, the deployment
 * ended. The phase machine (../deployment.ts) and each stage (load, forward, cleanup, rollback,
 * outputs, delete) share it, so a stage is a function of this state and nothing else.
 */
import { hash } from 'node:crypto';
import type { Verdict } from '../../verdict.js';
import { TypeplaneError } from '../../errors.js';
import { callerOf } from '../../auth/index.js';
import {
  collectReviews,
  refusedEvent,
  reviewsWhileStarting,
  type Caller,
  type Engine,
  type ProgressEvent,
  type ReviewedChange,
} from '../../engine/index.js';
import { stripWriteOnly } from '../../model/index.js';
import type { ResourceType } from '../../schema/index.js';
import { deploymentScope, type Analysis, type TypeSource } from '../analyze.js';
import type { PseudoParameters, Scope } from '../intrinsics.js';
import type {
  DeploymentRecord,
  ResourceRecord,
  ResourceStatus,
  StackOutput,
  StackRecord,
  StackStatus,
  StackStore,
  StoredValue,
} from '../records.js';
import { newEvent } from '../records.js';
import { maskReason, type SecretSources } from '../secrets.js';
import type { Imported } from '../imports.js';
import type { ReviewedStackChange, StacksObserver } from '../observer.js';
import { inSpan, traced } from '../../telemetry/spans.js';
import type { ParameterStore } from '../parameter-store/index.js';
import { inStep, isCustomResourceType } from '../custom-resources/index.js';
import { NESTED_STACK_TYPE } from '../nested/names.js';

/** The engine as stacks use it: its public operations. */
export type StackEngine = Pick<
  Engine,
  | 'create'
  | 'update'
  | 'delete'
  | 'read'
  | 'waitFor'
  | 'readOnlyNeverSet'
  | 'preview'
  | 'review'
  | 'judgesAny'
>;

export interface DeploymentContext {
  engine: StackEngine;
  records: StackStore;
  types: TypeSource;
  pseudo: PseudoParameters;
  /** Most engine operations one deployment runs at once. */
  concurrency: number;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
  /** Told of ended deployments and drift checks (metrics). */
  observer?: StacksObserver;
  /** Told of each change a review gave verdicts (the audit trail). */
  reviewed?: (change: ReviewedStackChange) => void;
  /** What SSM parameter types and dynamic references read (parameter-store/). */
  parameterStore: ParameterStore;
}

/** A deployment's outputs once evaluated, and the exports among them. */
export interface EvaluatedOutputs {
  outputs: StackOutput[];
  exports: Map<string, StoredValue>;
}

const WAIT_SLICE_MS = 60_000;
export const STACK_TYPE = 'Typeplane::Stack';

/** The client token of one step: the same deployment, resource and action always give the same token. */
export function stepToken(deployment: string, action: string, logicalId: string): string {
  const id = hash('sha256', logicalId, 'hex').slice(0, 24);
  return `stack.${deployment}.${action}.${id}`;
}

export class DeploymentState {
  resources = new Map<string, ResourceRecord>();
  stack!: StackRecord;
  analysis?: Analysis;
  /** The analysis the deployment was begun with in this process, if it was: load takes it as it is. */
  begun: Analysis | undefined;
  secrets: string[] = [];
  imports = new Map<string, Imported>();
  outputs: EvaluatedOutputs | undefined;
  /** The resources cleanup deletes (the template no longer has them), once worked out (cleanup.ts). */
  removed: ResourceRecord[] | undefined;

  constructor(
    readonly ctx: DeploymentContext,
    public record: DeploymentRecord,
    /** Persist the deployment's new phase (under its lease); false when the lease was lost. */
    readonly persist: (record: DeploymentRecord) => Promise<boolean>,
    readonly lost: () => boolean,
  ) {}

  get id(): string {
    return this.record.id;
  }

  get name(): string {
    return this.record.stack;
  }

  /**
   * The engine's operations run as who asked: their client tokens, references only to types they see.
   * Made as a step's engine call is (see operate): it carries the step's collector of reviews.
   */
  get caller(): Caller | undefined {
    const asked = this.record.caller;
    return (
      asked && {
        ...callerOf({ tokenId: asked.id, ...asked, stack: this.record.stack }),
        ...reviewsWhileStarting(),
      }
    );
  }

  /** Where this deployment's secrets come from: an evaluation error never quotes a value built from one. */
  secretSources(analysis: Analysis): SecretSources {
    return { parameters: analysis.secretParameters, imports: analysis.secretImports };
  }

  /** `text` with the deployment's secrets masked: for every reason, event and log line it writes. */
  masked(text: string): string {
    return maskReason(text, this.secrets);
  }

  scope(analysis: Analysis): Scope {
    return deploymentScope(analysis, {
      stackName: this.name,
      stackId: this.stack.stackId,
      pseudo: this.ctx.pseudo,
      made: (logicalId) => this.resources.get(logicalId),
      importValue: (name) => this.imports.get(name)?.value,
      secret: this.secretSources(analysis),
    });
  }

  async fail(reason: string): Promise<void> {
    if (this.record.failure === undefined) {
      this.record.failure = this.masked(reason);
      await this.persist(this.record);
    }
  }

  // ---- Engine operations and resource records ----

  /**
   * One resource's step (of any phase: forward, rollback, cleanup, delete); traced, in a span of its
   * own within the deployment's, `stack resource <phase>`, so each engine operation it runs is under it.
   */
  resourceStep<T>(logicalId: string, typeName: string | undefined, step: () => Promise<T>): Promise<T> {
    if (!traced()) return step();
    return inSpan(
      `stack resource ${this.record.phase}`,
      {
        'typeplane.stack': this.name,
        'typeplane.logical_id': logicalId,
        ...(typeName !== undefined ? { 'typeplane.type_name': typeName } : {}),
      },
      step,
    );
  }

  /** Run one engine operation to its end; an operation refused before it began is a failed event. */
  async operate(logicalId: string, start: () => Promise<ProgressEvent>): Promise<ProgressEvent> {
    let event: ProgressEvent;
    const reviews: ReviewedChange[] = [];
    try {
      // In the step's context: a custom resource's request is made of it (custom-resources/), as a
      // nested stack's is; another step runs without one, as an AsyncLocalStorage's hooks, while it
      // is enabled, tax every promise of the process.
      event = await collectReviews(reviews, () =>
        !this.readsStep(logicalId)
          ? start()
          : inStep(
              {
                stackName: this.name,
                stackId: this.stack.stackId,
                rootId: this.stack.rootId ?? this.stack.stackId,
                logicalId,
                ...(this.record.caller ? { caller: this.record.caller } : {}),
                ...(this.caller ? { canSee: this.caller.canSee } : {}),
                record: () => this.resources.get(logicalId),
                secret: (texts) => (this.secrets = [...this.secrets, ...texts]),
              },
              start,
            ),
      );
    } catch (e) {
      if (!(e instanceof TypeplaneError)) throw e;
      for (const review of reviews)
        this.tellReviewed(logicalId, review, { deniedWith: e.code, message: this.masked(e.message) });
      return refusedEvent(e);
    }
    for (const review of reviews)
      this.tellReviewed(logicalId, review, {
        requestToken: event.requestToken,
        ...(event.identifier !== undefined ? { identifier: event.identifier } : {}),
      });
    // A warning is told on the resource's events, as CloudFormation tells a hook's on the stack's.
    if (event.warnings && event.warnings.length > 0)
      await this.resourceEvent(
        logicalId,
        event.typeName,
        event.identifier,
        `${event.operation as 'CREATE' | 'UPDATE' | 'DELETE'}_IN_PROGRESS`,
        `warned: ${event.warnings.map((w) => `${w.source} ${w.name}: ${w.message}`).join('; ')}`,
        event.warnings,
      );
    while (
      event.operationStatus !== 'SUCCESS' &&
      event.operationStatus !== 'FAILED' &&
      event.operationStatus !== 'CANCEL_COMPLETE'
    ) {
      if (this.lost()) return event;
      event = await this.ctx.engine.waitFor(event.requestToken, WAIT_SLICE_MS);
    }
    void logicalId;
    return event;
  }

  /** Whether a step of `logicalId` may reach a custom resource or a nested stack (their engines read the step). */
  private readsStep(logicalId: string): boolean {
    const rec = this.resources.get(logicalId);
    const declared = this.analysis?.resources.get(logicalId)?.compiled.type.typeName;
    const types = [declared, rec?.type, rec?.replaced?.type, rec?.previous?.type];
    // Not known here (a step of a resource neither declared nor recorded): as one that may.
    if (declared === undefined && rec === undefined) return true;
    return types.some((t) => t !== undefined && (isCustomResourceType(t) || t === NESTED_STACK_TYPE));
  }

  /**
   * A change the stack makes itself (an import) put to the reviewer by `review` (an engine call made
   * as a step's is, with the step's caller), the audit trail told what it said: its verdicts, or its
   * refusal thrown.
   */
  async review(
    logicalId: string,
    identifier: string,
    review: () => Promise<readonly Verdict[]>,
  ): Promise<readonly Verdict[]> {
    const reviews: ReviewedChange[] = [];
    let verdicts: readonly Verdict[];
    try {
      verdicts = await collectReviews(reviews, review);
    } catch (e) {
      if (e instanceof TypeplaneError)
        for (const r of reviews)
          this.tellReviewed(logicalId, r, { deniedWith: e.code, message: this.masked(e.message) });
      throw e;
    }
    for (const r of reviews) this.tellReviewed(logicalId, r, { identifier });
    return verdicts;
  }

  /** Tell the audit trail what a review of this step said; messages masked as the step's events are. */
  private tellReviewed(
    logicalId: string,
    review: ReviewedChange,
    outcome: Pick<ReviewedStackChange, 'requestToken' | 'identifier' | 'deniedWith' | 'message'>,
  ): void {
    const asked = this.record.caller;
    this.ctx.reviewed?.({
      ...review,
      ...outcome,
      verdicts: review.verdicts.map((v) => ({ ...v, message: this.masked(v.message) })),
      stack: this.name,
      deployment: this.id,
      phase: this.record.phase,
      logicalId,
      ...(asked
        ? {
            caller: {
              id: asked.id,
              ...(asked.role !== undefined ? { role: asked.role } : {}),
              ...(asked.description !== undefined ? { description: asked.description } : {}),
            },
          }
        : {}),
    });
  }

  reason(event: ProgressEvent): string {
    return this.masked(`${event.errorCode ?? event.operationStatus}: ${event.statusMessage ?? 'no message'}`);
  }

  /** The model to read attributes from: the operation's, or a read when it carried none. */
  async modelOf(
    type: ResourceType,
    event: ProgressEvent,
    identifier: string,
  ): Promise<Record<string, unknown>> {
    if (event.resourceModel) return stripWriteOnly(type, event.resourceModel);
    return (await this.ctx.engine.read(type.typeName, identifier)).properties;
  }

  /** Save a resource record (and write `beside` in the same commit). */
  async save(record: ResourceRecord, beside?: () => Promise<unknown>): Promise<void> {
    // The records were read when the deployment began (under its lease): one absent then is new.
    const stored = this.resources.has(record.logicalId);
    this.resources.set(record.logicalId, record);
    await Promise.all([this.ctx.records.putResource(this.name, record, stored, beside), this.written()]);
  }

  /** Events written without waiting (see {@link soon}), not yet known to be stored. */
  private unsettled: Promise<unknown>[] = [];

  /**
   * Write an event now and wait for it later: it joins the store's next group commit with the write
   * that follows (the step's engine operation), instead of costing a commit and a turn of its own.
   * {@link written} waits for it (and throws its failure) before any record says the step moved on.
   */
  private soon(write: Promise<unknown>): void {
    // Its failure is thrown by written(); until then it is not an unhandled rejection.
    write.catch(() => {});
    this.unsettled.push(write);
  }

  /** Every event written by {@link soon} is stored (or its failure thrown). */
  async written(): Promise<void> {
    if (this.unsettled.length === 0) return;
    const writes = this.unsettled;
    this.unsettled = [];
    await Promise.all(writes);
  }

  async forget(logicalId: string): Promise<void> {
    this.resources.delete(logicalId);
    await this.ctx.records.deleteResource(this.name, logicalId);
  }

  // ---- Phases and events ----

  async setPhase(phase: DeploymentRecord['phase']): Promise<void> {
    this.record = { ...this.record, phase };
    await Promise.all([this.persist(this.record), this.written()]);
  }

  /**
   * The next phase, not written: for a phase that, resumed from the one before, would do the same
   * (forward's steps are each skipped once done), so a crash before the deployment ends loses nothing.
   */
  enterUnwritten(phase: DeploymentRecord['phase']): void {
    this.record = { ...this.record, phase };
  }

  async finish(status: StackStatus, reason?: string): Promise<void> {
    // The stack's record and its event in one commit (the record says the status already: the event
    // alone); the deployment's record goes only once the stack no longer names it.
    await Promise.all([
      this.ctx.records.updateStack(this.name, (s) => {
        const next: StackRecord = { ...s, status, version: s.version + 1 };
        if (reason !== undefined) next.statusReason = this.masked(reason);
        delete next.deployment;
        return next;
      }),
      this.event(status, reason),
      this.written(),
    ]);
    await this.ctx.records.deleteDeployment(this.id);
    this.ended(status);
  }

  /** Tell the observer that the deployment ended with `status`. */
  ended(status: StackStatus | 'DELETE_COMPLETE'): void {
    this.ctx.observer?.deploymentEnded(status, (Date.now() - Date.parse(this.record.startedAt)) / 1000);
  }

  async stackEvent(status: StackStatus | 'DELETE_COMPLETE', reason?: string): Promise<void> {
    // Written together: one commit.
    await Promise.all([
      this.event(status, reason),
      status === 'DELETE_COMPLETE'
        ? undefined
        : this.ctx.records.updateStack(this.name, (s) => (s.deployment === this.id ? { ...s, status } : s)),
    ]);
  }

  /** The stack's event of `status`, its record left as it is. */
  async event(status: StackStatus | 'DELETE_COMPLETE', reason?: string): Promise<void> {
    await this.ctx.records.addEvent(this.name, {
      logicalId: this.name,
      type: STACK_TYPE,
      identifier: this.stack.stackId,
      status,
      ...(reason !== undefined ? { reason: this.masked(reason) } : {}),
    });
  }

  /**
   * Save a record that a step finished, then the event saying so. The event rides in the record
   * (made first, with its id): a crash between the two writes leaves it there for {@link replayEvents}.
   */
  async saveDone(record: ResourceRecord, status: ResourceStatus): Promise<void> {
    const event = newEvent({
      logicalId: record.logicalId,
      type: record.type,
      ...(record.identifier !== undefined ? { identifier: record.identifier } : {}),
      status,
    });
    // Both in one commit: the event is the record's own, so it is written by id only once either way.
    await this.save({ ...record, status, event }, () => this.ctx.records.insertEvent(this.name, event));
  }

  /** Resumed: write again the events of steps this deployment saved as done (written once, by id). */
  async replayEvents(): Promise<void> {
    for (const record of this.resources.values())
      if (record.deployment === this.id && record.event)
        await this.ctx.records.insertEvent(this.name, record.event);
  }

  /**
   * A step's event before its engine operation (`…_IN_PROGRESS`), written without waiting: see
   * {@link soon}. The event's id is its time, so it keeps its place among the stack's events.
   */
  resourceEventSoon(
    logicalId: string,
    type: string,
    identifier: string | undefined,
    status: ResourceStatus,
    reason?: string,
  ): void {
    this.soon(this.resourceEvent(logicalId, type, identifier, status, reason));
  }

  async resourceEvent(
    logicalId: string,
    type: string,
    identifier: string | undefined,
    status: ResourceStatus,
    reason?: string,
    verdicts?: readonly Verdict[],
  ): Promise<void> {
    await this.ctx.records.addEvent(this.name, {
      logicalId,
      type,
      ...(identifier !== undefined ? { identifier } : {}),
      status,
      ...(reason !== undefined ? { reason: this.masked(reason) } : {}),
      ...(verdicts ? { verdicts: verdicts.map((v) => ({ ...v, message: this.masked(v.message) })) } : {}),
    });
  }
}

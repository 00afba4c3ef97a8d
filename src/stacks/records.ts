/**
 * @module What a stack keeps in the store, on the store's key-value table (both SQL stores have it;
 * no migration): the stack, one record per resource, events, plans, deployments, exports and
 * imports. Secrets never reach the store in plain text: each resource's properties and model, NoEcho
 * parameter values and outputs built from them are sealed with the server's sealer.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TypeplaneError } from '../errors.js';
import type { Sealer } from '../secrets/index.js';
import { encodeCursor } from '../store/cursor.js';
import type { KvEntry, KvWrite } from '../store/types.js';
import type { KvStore } from './buffered-kv.js';
import type { Policy } from './template.js';
import type { Verdict } from '../verdict.js';

const STACKS = 'typeplane:stacks';
const DEPLOYMENTS = 'typeplane:stack-deployments';
const EXPORTS = 'typeplane:stack-exports';
/** Resources being imported, by {@link heldKey}: the deployment bringing each in (see claimImport). */
const IMPORT_CLAIMS = 'typeplane:stack-import-claims';
const resourcesOf = (stack: string) => `typeplane:stack/${stack}/resources`;
const eventsOf = (stack: string) => `typeplane:stack/${stack}/events`;
const plansOf = (stack: string) => `typeplane:stack/${stack}/plans`;
const importersOf = (exportName: string) => `typeplane:stack-imports/${exportName}`;
/** Deleted stacks, keyed by when each was deleted (oldest first: a purge reads from the start). */
const DELETED = 'typeplane:deleted-stacks';
/** A name's deleted stacks, keyed by stackId (a name may be used, and deleted, again). */
const deletedOf = (stack: string) => `typeplane:deleted-stacks/${stack}`;
const deletedEventsOf = (stackId: string) => `typeplane:deleted-stack/${stackId}/events`;
/**
 * Resource records read at a time: a record holds its properties, model and previous values sealed,
 * megabytes when a template hands large values out, so a page is a few of them.
 */
const RESOURCE_PAGE = 2;
/** The most a slice of reading or writing records runs before the event loop gets a turn, in milliseconds. */
const SLICE_MS = 4;

/** When the resource writes' present slice began; undefined once the event loop has had its turn. */
let writeSliceStart: number | undefined;

/**
 * A turn for a resource write's own work (its state serialised and sealed: megabytes when a template
 * hands a large value to many resources). A deployment writes many records at once, and the turns they
 * wait for all end in one pass of the event loop, so a turn each held the loop for all of them (forty
 * records of a 400 KB value: 200 ms). The writes resumed in one pass share a slice; once it is spent,
 * the rest wait for the next pass, after the loop has seen to its sockets. Each pass makes progress:
 * the first write resumed in it opens a new slice.
 */
async function writeTurn(): Promise<void> {
  await nextTurn();
  while (writeSliceStart !== undefined && performance.now() - writeSliceStart >= SLICE_MS) await nextTurn();
  if (writeSliceStart === undefined) {
    writeSliceStart = performance.now();
    // Runs in the next pass, before the writes deferred to it: they find the slice closed.
    setImmediate(() => (writeSliceStart = undefined));
  }
}

export type StackStatus =
  | 'CREATE_IN_PROGRESS'
  | 'CREATE_COMPLETE'
  | 'CREATE_FAILED'
  | 'ROLLBACK_IN_PROGRESS'
  | 'ROLLBACK_COMPLETE'
  | 'ROLLBACK_FAILED'
  | 'UPDATE_IN_PROGRESS'
  | 'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS'
  | 'UPDATE_COMPLETE'
  | 'UPDATE_FAILED'
  | 'UPDATE_ROLLBACK_IN_PROGRESS'
  | 'UPDATE_ROLLBACK_COMPLETE'
  | 'UPDATE_ROLLBACK_FAILED'
  | 'DELETE_IN_PROGRESS'
  | 'DELETE_FAILED';

export type ResourceStatus =
  | 'CREATE_IN_PROGRESS'
  | 'CREATE_COMPLETE'
  | 'CREATE_FAILED'
  | 'UPDATE_IN_PROGRESS'
  | 'UPDATE_COMPLETE'
  | 'UPDATE_FAILED'
  | 'DELETE_IN_PROGRESS'
  | 'DELETE_COMPLETE'
  | 'DELETE_FAILED'
  | 'DELETE_SKIPPED'
  | 'IMPORT_IN_PROGRESS'
  | 'IMPORT_COMPLETE'
  | 'IMPORT_FAILED';

/** A stored parameter value: plain, or sealed (NoEcho). */
export type StoredValue = { value: unknown } | { sealed: string };

export interface StackOutput {
  name: string;
  value: StoredValue;
  description?: string;
  exportName?: string;
}

export interface StackRecord {
  name: string;
  stackId: string;
  status: StackStatus;
  statusReason?: string;
  createdAt: string;
  updatedAt: string;
  /** Bumped by every deployment: a plan made against an older version is refused. */
  version: number;
  /** The template and parameters last applied successfully (absent before the first success). */
  template?: string;
  parameters?: Record<string, StoredValue>;
  description?: string;
  outputs: StackOutput[];
  exports: string[];
  imports: string[];
  /** Every type its deployments have used (what a caller must reach to read its reasons). */
  types?: string[];
  /** The deployment running now. */
  deployment?: string;
  /** A nested stack's parent stack and the root of its tree (their stackIds), as CloudFormation's ParentId and RootId. */
  parentId?: string;
  rootId?: string;
}

/** What is kept of a deleted stack, until the server's retention has passed: who it was, and its events. */
export interface DeletedStack {
  /** Where it is kept (when it was deleted, then its stackId): the order of the listing. */
  key: string;
  name: string;
  stackId: string;
  status: 'DELETE_COMPLETE';
  description?: string;
  createdAt: string;
  deletedAt: string;
  /** Every type its deployments used: what a caller must reach to see it. */
  types: string[];
}

/** The part of a resource record that is sealed as a whole. */
export interface ResourceState {
  /** The properties this stack last applied (write-only and NoEcho values among them). */
  properties: Record<string, unknown>;
  /** The model the provider last reported (write-only values excluded): what Fn::GetAtt reads. */
  model: Record<string, unknown>;
  /** The state before the deployment that last touched the resource: what a rollback puts back. */
  previous?: {
    type: string;
    identifier?: string;
    properties: Record<string, unknown>;
    model: Record<string, unknown>;
  };
  /** The resource this one replaced, deleted once the stack is updated. */
  replaced?: { type: string; identifier: string };
}

export interface ResourceRecord extends ResourceState {
  logicalId: string;
  type: string;
  identifier?: string;
  status: ResourceStatus;
  statusReason?: string;
  /** The deployment that last wrote this record. */
  deployment: string;
  deletionPolicy: Policy;
  updateReplacePolicy: Policy;
  /** Logical ids it depended on when applied (a delete runs in the reverse order). */
  dependsOn: string[];
  /** The name the stack gave it, when the template left its identifier out (physical-names.ts). */
  physicalName?: string;
  /**
   * The event saying this record's status, written after the record: a deployment resumed after a
   * crash between the two writes it again (once, by its id), so no step's completion goes unseen.
   */
  event?: StackEvent;
  updatedAt: string;
}

/** An event with its id and time, not yet written. */
export function newEvent(event: Omit<StackEvent, 'eventId' | 'time'>): StackEvent {
  return { eventId: timeKey(), time: now(), ...event };
}

export interface StackEvent {
  eventId: string;
  time: string;
  logicalId: string;
  type: string;
  identifier?: string;
  status: string;
  reason?: string;
  /** What admission policies and hooks warned of when the step's operation began. */
  verdicts?: Verdict[];
}

export interface DeploymentRecord {
  id: string;
  stack: string;
  kind: 'deploy' | 'delete';
  phase: 'forward' | 'cleanup' | 'rollback' | 'delete';
  noRollback: boolean;
  /** The template and parameters being applied (deploy). */
  template?: string;
  parameters?: Record<string, StoredValue>;
  /** Whether the stack had been deployed successfully before (CREATE_* or UPDATE_* statuses). */
  update: boolean;
  failure?: string;
  planId?: string;
  /** Resources it brings into the stack instead of creating them (an import): identifier by logical id. */
  imports?: Record<string, string>;
  /** Resources made already from this template (an adoption, start.ts): recorded with no engine call. */
  adopted?: Record<string, { identifier: string; model: Record<string, unknown> }>;
  /** Who asked for it (an API token's id and type globs): the engine's operations run as them, resumed or not. */
  caller?: StackCaller;
  /** The W3C traceparent of the request that began it: the deployment continues that trace, resumed or not. */
  traceparent?: string;
  owner: string;
  leaseUntil: string;
  startedAt: string;
}

export interface StackCaller {
  id: string;
  /** Type globs; absent: every type. */
  types?: string[];
  /** The token's role and description: what admission policies and hooks are told of who asks. */
  role?: string;
  description?: string;
}

export interface PlanRecord {
  planId: string;
  stack: string;
  /** The stack version the plan was made against (0: the stack does not exist). */
  baseVersion: number;
  template: string;
  parameters: Record<string, StoredValue>;
  changes: unknown[];
  /** The template's warnings when it was planned (diagnostics). */
  warnings?: unknown[];
  /** An import's plan: the resources to import as asked (checked again when it is applied). */
  resourcesToImport?: unknown[];
  /** The parameters of SSM parameter types, and what each read when it was planned (NoEcho masked). */
  resolvedParameters?: unknown[];
  /** A keyed digest of each value read for them: applying the plan refuses when one changed since. */
  resolvedDigests?: Record<string, string>;
  createdAt: string;
}

/** What a wait needs of a stack: the deployment running now and the stamp of the record's last write. */
export interface StackMark {
  deployment?: string;
  stamp: string;
}

const now = () => new Date().toISOString();

/** A stack record as this process last read or wrote it. */
interface KeptStack {
  record: StackRecord;
  writtenBy: string;
}

/** How many opened stack records a process keeps (each a template and a little). */
const KEPT_STACKS = 2_000;

let lastMs = 0;
let sequence = 0;

/**
 * Keys sorting in time order across processes, and in call order within one: keys made in the same
 * millisecond (parallel steps of a deployment) count up, so events list in the order they happened.
 */
export function timeKey(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else sequence++;
  const order = Math.min(sequence, 0xffff).toString(16).padStart(4, '0');
  return `${lastMs.toString().padStart(15, '0')}-${order}${randomUUID().slice(0, 4)}`;
}

export class StackStore {
  /** Told of every write of a stack record made through this process (by stack name). */
  private readonly changes = new EventEmitter().setMaxListeners(0);
  /** Stack records opened (or written) here, by name, each with its write stamp: see getStack. */
  private readonly kept = new Map<string, KeptStack>();
  /** By stack name: its template last sealed or opened here, and that ciphertext (see sealed). */
  private readonly lastSealed = new Map<string, { template: string; sealed: string }>();

  constructor(
    readonly store: KvStore,
    private readonly sealer: Sealer,
  ) {}

  // ---- Secrets ----

  seal(value: unknown, aad: string): StoredValue {
    return { sealed: this.sealer.seal(JSON.stringify(value), aad) };
  }

  open(stored: StoredValue, aad: string): unknown {
    return 'sealed' in stored ? JSON.parse(this.sealer.open(stored.sealed, aad)) : stored.value;
  }

  /**
   * A record with its template sealed: a template may hold write-only values as literals, so it never
   * reaches the store in plain text (`sealedTemplate` in place of `template`).
   */
  private sealed<T extends { template?: string }>(record: T, stack: string): object {
    if (record.template === undefined) return record;
    const { template, ...rest } = record;
    // A deployment's template is written with it, again as it moves on, then with the stack: sealed once.
    const last = this.lastSealed.get(stack);
    if (last?.template === template) return { ...rest, sealedTemplate: last.sealed };
    const sealedTemplate = this.sealer.seal(template, `stack-template:${stack}`);
    this.rememberSealed(stack, template, sealedTemplate);
    return { ...rest, sealedTemplate };
  }

  private opened<T extends { template?: string; stack?: string; name?: string }>(stored: T): T {
    const { sealedTemplate, ...rest } = stored as T & { sealedTemplate?: string };
    if (sealedTemplate === undefined) return stored;
    const stack = stored.stack ?? stored.name ?? '';
    const last = this.lastSealed.get(stack);
    if (last?.sealed === sealedTemplate) return { ...rest, template: last.template } as T;
    const template = this.sealer.open(sealedTemplate, `stack-template:${stack}`);
    this.rememberSealed(stack, template, sealedTemplate);
    return { ...rest, template } as T;
  }

  /** A stack's template and its ciphertext, the last sealed or opened (the oldest goes past the bound). */
  private rememberSealed(stack: string, template: string, sealed: string): void {
    this.lastSealed.delete(stack);
    this.lastSealed.set(stack, { template, sealed });
    if (this.lastSealed.size > KEPT_STACKS) this.lastSealed.delete(this.lastSealed.keys().next().value!);
  }

  // ---- Stacks ----

  /**
   * The stack and its write stamp. A record opened before is kept with the stamp it was read or
   * written with, and served again while the store's stamp still matches (a cheap read): another
   * replica's write changes the stamp, so a kept record is never served stale.
   */
  async getStack(name: string): Promise<{ record: StackRecord; writtenBy: string } | undefined> {
    const kept = this.kept.get(name);
    if (kept) {
      const stamp = await this.store.kvStamp(STACKS, name);
      if (stamp === kept.writtenBy) return { record: structuredClone(kept.record), writtenBy: stamp };
      this.kept.delete(name);
      if (stamp === undefined) return undefined;
    }
    return this.readStack(name);
  }

  /** The expectation, in another writer's transaction, that no stack named `name` is there. */
  absent(name: string): KvWrite {
    return { namespace: STACKS, key: name, expect: null };
  }

  private async readStack(name: string): Promise<{ record: StackRecord; writtenBy: string } | undefined> {
    const entry = await this.store.kvGet(STACKS, name);
    if (!entry) return undefined;
    const record = this.opened(entry.value as unknown as StackRecord);
    this.keep(name, record, entry.writtenBy);
    return { record: structuredClone(record), writtenBy: entry.writtenBy };
  }

  /** Remember a stack record as of `writtenBy` (the oldest kept goes first past {@link KEPT_STACKS}). */
  private keep(name: string, record: StackRecord, writtenBy: string): void {
    this.kept.delete(name);
    this.kept.set(name, { record, writtenBy });
    if (this.kept.size > KEPT_STACKS) this.kept.delete(this.kept.keys().next().value!);
  }

  async insertStack(record: StackRecord): Promise<string | undefined> {
    const writtenBy = randomUUID();
    const e = entry(this.sealed(record, record.name), writtenBy);
    if (!(await this.store.kvInsert(STACKS, record.name, e))) return undefined;
    this.keep(record.name, structuredClone(record), writtenBy);
    this.changed(record.name, record, writtenBy);
    return writtenBy;
  }

  /** The stack's running deployment and write stamp; its template is not opened. */
  async stackMark(name: string): Promise<StackMark | undefined> {
    const kept = this.kept.get(name);
    if (kept) {
      const stamp = await this.store.kvStamp(STACKS, name);
      if (stamp === undefined) return undefined;
      if (stamp === kept.writtenBy)
        return {
          ...(kept.record.deployment !== undefined ? { deployment: kept.record.deployment } : {}),
          stamp,
        };
    }
    const e = await this.store.kvGet(STACKS, name);
    if (!e) return undefined;
    const { deployment } = e.value as { deployment?: string };
    return { ...(deployment !== undefined ? { deployment } : {}), stamp: e.writtenBy };
  }

  /**
   * The stack's mark once it is no longer `mark` (undefined once the stack is gone), or `mark` itself
   * after `ms` of no change. Woken at once by a write made in this process; a write made by another
   * replica is seen by reading the record's stamp alone when `ms` runs out (the record is read whole
   * only once its stamp moved).
   */
  async nextStackMark(name: string, mark: StackMark, ms: number): Promise<StackMark | undefined> {
    const woken = await new Promise<StackMark | undefined | 'timeout'>((resolve) => {
      const listener = (next: StackMark | undefined) => {
        clearTimeout(timer);
        this.changes.off(`stack:${name}`, listener);
        resolve(next);
      };
      const timer = setTimeout(() => {
        this.changes.off(`stack:${name}`, listener);
        resolve('timeout');
      }, ms);
      // Prefixed: a stack may be named `error`, which an emitter treats apart.
      this.changes.on(`stack:${name}`, listener);
    });
    if (woken !== 'timeout') return woken;
    const stamp = await this.store.kvStamp(STACKS, name);
    if (stamp === mark.stamp) return mark;
    return stamp === undefined ? undefined : this.stackMark(name);
  }

  private changed(name: string, record: StackRecord | undefined, stamp: string): void {
    this.changes.emit(
      `stack:${name}`,
      record && { ...(record.deployment !== undefined ? { deployment: record.deployment } : {}), stamp },
    );
  }

  /**
   * Read, change and write the stack atomically (compare-and-swap, retried): `change` returns the new
   * record, or throws to refuse.
   */
  async updateStack(name: string, change: (record: StackRecord) => StackRecord): Promise<StackRecord> {
    // First against the record this process kept, unread: the swap itself checks it is still current
    // (a record another replica wrote since fails it, and is read). A refusal made from the kept
    // record alone is asked again of the stored one.
    let guess = this.kept.get(name);
    for (let attempt = 0; attempt < 20; attempt++) {
      let current: { record: StackRecord; writtenBy: string } | undefined;
      let unread = false;
      if (guess) {
        current = { record: guess.record, writtenBy: guess.writtenBy };
        unread = true;
        guess = undefined;
      } else current = await this.readStack(name);
      if (!current) throw new TypeplaneError('NotFound', `stack ${name} does not exist`);
      const draft = structuredClone(current.record);
      let changed: StackRecord;
      try {
        changed = change(draft);
      } catch (e) {
        if (unread) continue;
        throw e;
      }
      // Nothing to change: no write (and the record's stamp stays, so no waiter wakes for nothing).
      if (changed === draft) {
        if (!unread) return draft;
        if ((await this.store.kvStamp(STACKS, name)) === current.writtenBy) return draft;
        continue;
      }
      const next = { ...changed, updatedAt: now() };
      const stamp = randomUUID();
      const e = entry(this.sealed(next, name), stamp);
      if (await this.store.kvSwap(STACKS, name, e, current.writtenBy)) {
        this.keep(name, structuredClone(next), stamp);
        this.changed(name, next, stamp);
        return next;
      }
      this.kept.delete(name);
    }
    throw new TypeplaneError('ResourceConflict', `stack ${name} kept changing; try again`);
  }

  async deleteStack(name: string): Promise<void> {
    await this.store.kvDelete(STACKS, name);
    this.kept.delete(name);
    this.changed(name, undefined, '');
  }

  // ---- Deleted stacks ----

  /**
   * Keep the stack `record` as deleted, with its events, then drop it and its live events: the name is
   * free for a new stack, and this one is still listed (`listDeleted`) and its events read. Run again
   * (a deletion resumed), it keeps the stack once.
   */
  async keepDeleted(record: StackRecord, types: string[]): Promise<void> {
    const held = await this.store.kvGet(deletedOf(record.name), record.stackId);
    const key = (held?.value as DeletedStack | undefined)?.key ?? `${timeKey()} ${record.stackId}`;
    const deleted: DeletedStack = {
      key,
      name: record.name,
      stackId: record.stackId,
      status: 'DELETE_COMPLETE',
      ...(record.description !== undefined ? { description: record.description } : {}),
      createdAt: record.createdAt,
      deletedAt: now(),
      types,
    };
    for await (const { key: eventKey, entry: e } of this.all(eventsOf(record.name)))
      await this.store.kvInsert(deletedEventsOf(record.stackId), eventKey, e);
    if (!held) {
      await this.store.kvInsert(deletedOf(record.name), record.stackId, entry(deleted, 'stacks'));
      await this.store.kvInsert(DELETED, key, entry(deleted, 'stacks'));
    }
    // The live events go before the record: a stack of this name made next starts with none.
    await this.dropEvents(record.name);
    await this.deleteStack(record.name);
  }

  /** The deleted stacks of `name`, oldest first. */
  async deletedNamed(name: string): Promise<DeletedStack[]> {
    const out: DeletedStack[] = [];
    for await (const { entry: e } of this.all(deletedOf(name))) out.push(e.value as unknown as DeletedStack);
    return out.sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  async listDeleted(
    limit: number,
    nextToken?: string,
  ): Promise<{ items: DeletedStack[]; nextToken?: string }> {
    const page = await this.store.kvList(DELETED, { limit, ...(nextToken ? { nextToken } : {}) });
    return {
      items: page.items.map((i) => i.entry.value as unknown as DeletedStack),
      ...(page.nextToken ? { nextToken: page.nextToken } : {}),
    };
  }

  async listDeletedEvents(
    stackId: string,
    limit: number,
    nextToken?: string,
    after?: string,
  ): Promise<{ items: StackEvent[]; nextToken?: string }> {
    return this.eventsIn(deletedEventsOf(stackId), limit, nextToken, after);
  }

  /**
   * Forget the stacks deleted before `before` (an ISO time), with their events: reads the oldest
   * first and stops at the first one to keep, so a purge with nothing to do costs one read.
   */
  async purgeDeleted(before: string): Promise<number> {
    let purged = 0;
    for (;;) {
      const page = await this.store.kvList(DELETED, { limit: 100 });
      const due = page.items
        .map((i) => i.entry.value as unknown as DeletedStack)
        .filter((d) => d.deletedAt < before);
      for (const d of due) {
        await this.dropNamespace(deletedEventsOf(d.stackId));
        await this.store.kvDelete(deletedOf(d.name), d.stackId);
        await this.store.kvDelete(DELETED, d.key);
      }
      purged += due.length;
      if (due.length < page.items.length || !page.nextToken) return purged;
    }
  }

  async listStacks(limit: number, nextToken?: string): Promise<{ items: StackRecord[]; nextToken?: string }> {
    const page = await this.store.kvList(STACKS, { limit, ...(nextToken ? { nextToken } : {}) });
    return {
      items: page.items.map((i) => this.opened(i.entry.value as unknown as StackRecord)),
      ...(page.nextToken ? { nextToken: page.nextToken } : {}),
    };
  }

  // ---- Resources ----

  private aad(stack: string, logicalId: string): string {
    return `stack-resource:${stack}/${logicalId}`;
  }

  /**
   * A stack's resource records, opened. A few at a time, giving the event loop a turn whenever a slice
   * of reading and opening has run {@link SLICE_MS}: a stack of large records (megabytes each) would
   * otherwise hold a server's other requests for the whole read, on a store that answers at once.
   */
  async getResources(stack: string): Promise<Map<string, ResourceRecord>> {
    const out = new Map<string, ResourceRecord>();
    let sliceStart = performance.now();
    for await (const { key, entry: e } of this.all(resourcesOf(stack), RESOURCE_PAGE)) {
      const { sealed, ...rest } = e.value as { sealed: string } & Omit<ResourceRecord, keyof ResourceState>;
      const state = JSON.parse(this.sealer.open(sealed, this.aad(stack, key))) as ResourceState;
      out.set(key, { ...rest, ...state });
      if (performance.now() - sliceStart >= SLICE_MS) {
        await nextTurn();
        sliceStart = performance.now();
      }
    }
    return out;
  }

  /**
   * Write a resource record; `stored` says whether one is likely there already (tried first: one write).
   * Sealed in a turn of its own: a deployment's steps often end together (their writes committed in
   * one go), and sealing each one's record (megabytes, with its previous values) one after the other
   * would hold the event loop for all of them. `beside` is written in the same turn, so in the same
   * commit (the step's event).
   */
  async putResource(
    stack: string,
    record: ResourceRecord,
    stored = true,
    beside?: () => Promise<unknown>,
  ): Promise<void> {
    await writeTurn();
    const { properties, model, previous, replaced, ...plain } = record;
    const state: ResourceState = {
      properties,
      model,
      ...(previous ? { previous } : {}),
      ...(replaced ? { replaced } : {}),
    };
    const value = {
      ...plain,
      updatedAt: now(),
      sealed: this.sealer.seal(JSON.stringify(state), this.aad(stack, record.logicalId)),
    };
    const e = entry(value, 'stacks');
    const namespace = resourcesOf(stack);
    const written = async () => {
      if (stored) {
        if (!(await this.store.kvReplace(namespace, record.logicalId, e)))
          await this.store.kvInsert(namespace, record.logicalId, e);
      } else if (!(await this.store.kvInsert(namespace, record.logicalId, e)))
        await this.store.kvReplace(namespace, record.logicalId, e);
    };
    await Promise.all([written(), beside?.()]);
  }

  /**
   * Which stack holds each of `wanted` (keys made by {@link heldKey}), read from the records' plain
   * parts (nothing is opened). Reads every stack's resource records: for an import, not a hot path;
   * the event loop gets a turn after each stack's, so other requests go on while many stacks are read.
   */
  async holders(wanted: ReadonlySet<string>): Promise<Map<string, { stack: string; logicalId: string }>> {
    const found = new Map<string, { stack: string; logicalId: string }>();
    for await (const { key: stack } of this.all(STACKS)) {
      for await (const { key: logicalId, entry: e } of this.all(resourcesOf(stack))) {
        const { type, identifier } = e.value as { type: string; identifier?: string };
        const key = identifier === undefined ? undefined : heldKey(type, identifier);
        if (key !== undefined && wanted.has(key)) found.set(key, { stack, logicalId });
      }
      await nextTurn();
    }
    return found;
  }

  /**
   * Claims the resource `key` ({@link heldKey}) for `deployment`, an import into `stack`: two imports
   * of one resource racing past {@link holders} (which reads what stacks hold, not what is being
   * brought in) cannot both go on. The claim is an insert that fails when the key exists, atomic on
   * every store; a claim whose deployment has ended (its record deleted) is stale and taken over
   * (compare-and-swap). Undefined when claimed; else the stack whose deployment holds it.
   */
  async claimImport(key: string, stack: string, deployment: string): Promise<string | undefined> {
    const claim = entry({ stack, deployment }, deployment);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.store.kvInsert(IMPORT_CLAIMS, key, claim)) return undefined;
      const held = await this.store.kvGet(IMPORT_CLAIMS, key);
      if (!held) continue;
      const by = held.value as { stack: string; deployment: string };
      if (by.deployment === deployment) return undefined;
      if (await this.getDeployment(by.deployment)) return by.stack;
      if (await this.store.kvSwap(IMPORT_CLAIMS, key, claim, held.writtenBy)) return undefined;
    }
    return stack;
  }

  /** Drops the claims `deployment` holds on `keys` (a claim another deployment took over stays). */
  async releaseImports(keys: readonly string[], deployment: string): Promise<void> {
    for (const key of keys)
      if ((await this.store.kvStamp(IMPORT_CLAIMS, key)) === deployment)
        await this.store.kvDelete(IMPORT_CLAIMS, key);
  }

  async deleteResource(stack: string, logicalId: string): Promise<void> {
    await this.store.kvDelete(resourcesOf(stack), logicalId);
  }

  // ---- Events ----

  async addEvent(stack: string, event: Omit<StackEvent, 'eventId' | 'time'>): Promise<StackEvent> {
    const full = newEvent(event);
    await this.insertEvent(stack, full);
    return full;
  }

  /** Write an event made beforehand; one already written (the same id) stays as it is. */
  async insertEvent(stack: string, event: StackEvent): Promise<void> {
    await this.store.kvInsert(eventsOf(stack), event.eventId, entry(event, 'stacks'));
  }

  /** Events in time order; `after` (an event id, or any key in its form) starts after it. */
  async listEvents(
    stack: string,
    limit: number,
    nextToken?: string,
    after?: string,
  ): Promise<{ items: StackEvent[]; nextToken?: string }> {
    return this.eventsIn(eventsOf(stack), limit, nextToken, after);
  }

  private async eventsIn(
    namespace: string,
    limit: number,
    nextToken?: string,
    after?: string,
  ): Promise<{ items: StackEvent[]; nextToken?: string }> {
    const from = nextToken ?? (after !== undefined ? encodeCursor('kv', after) : undefined);
    const page = await this.store.kvList(namespace, { limit, ...(from ? { nextToken: from } : {}) });
    return {
      items: page.items.map((i) => i.entry.value as unknown as StackEvent),
      ...(page.nextToken ? { nextToken: page.nextToken } : {}),
    };
  }

  async dropEvents(stack: string): Promise<void> {
    await this.dropNamespace(eventsOf(stack));
  }

  /** A deleted stack's plans go with it. */
  async dropPlans(stack: string): Promise<void> {
    await this.dropNamespace(plansOf(stack));
  }

  async dropResources(stack: string): Promise<void> {
    await this.dropNamespace(resourcesOf(stack));
  }

  // ---- Plans ----

  async putPlan(plan: PlanRecord): Promise<void> {
    await this.store.kvInsert(
      plansOf(plan.stack),
      plan.planId,
      entry(this.sealed(plan, plan.stack), 'stacks'),
    );
  }

  async getPlan(stack: string, planId: string): Promise<PlanRecord | undefined> {
    const stored = (await this.store.kvGet(plansOf(stack), planId))?.value as unknown as
      PlanRecord | undefined;
    return stored && this.opened(stored);
  }

  // ---- Deployments ----

  async insertDeployment(d: DeploymentRecord): Promise<string> {
    const writtenBy = randomUUID();
    await this.store.kvInsert(DEPLOYMENTS, d.id, entry(this.sealed(d, d.stack), writtenBy));
    return writtenBy;
  }

  async getDeployment(id: string): Promise<{ record: DeploymentRecord; writtenBy: string } | undefined> {
    const e = await this.store.kvGet(DEPLOYMENTS, id);
    return e && { record: this.opened(e.value as unknown as DeploymentRecord), writtenBy: e.writtenBy };
  }

  /** Write the deployment only if nobody else has since `writtenBy`; the new stamp, or undefined. */
  async swapDeployment(d: DeploymentRecord, writtenBy: string): Promise<string | undefined> {
    const next = randomUUID();
    const e = entry(this.sealed(d, d.stack), next);
    return (await this.store.kvSwap(DEPLOYMENTS, d.id, e, writtenBy)) ? next : undefined;
  }

  async deleteDeployment(id: string): Promise<void> {
    await this.store.kvDelete(DEPLOYMENTS, id);
  }

  async listDeployments(): Promise<{ record: DeploymentRecord; writtenBy: string }[]> {
    const out: { record: DeploymentRecord; writtenBy: string }[] = [];
    for await (const { entry: e } of this.all(DEPLOYMENTS))
      out.push({ record: this.opened(e.value as unknown as DeploymentRecord), writtenBy: e.writtenBy });
    return out;
  }

  // ---- Exports and imports ----

  async getExport(name: string): Promise<{ stack: string; value: StoredValue } | undefined> {
    return (await this.store.kvGet(EXPORTS, name))?.value as
      { stack: string; value: StoredValue } | undefined;
  }

  /** Claim or update an export for `stack`; false when another stack holds the name. */
  async putExport(name: string, stack: string, value: StoredValue): Promise<boolean> {
    const e = entry({ stack, value }, stack);
    if (await this.store.kvInsert(EXPORTS, name, e)) return true;
    return this.store.kvSwap(EXPORTS, name, e, stack);
  }

  async deleteExport(name: string, stack: string): Promise<void> {
    const current = await this.getExport(name);
    if (current?.stack === stack) await this.store.kvDelete(EXPORTS, name);
  }

  async importers(exportName: string): Promise<string[]> {
    const page = await this.store.kvList(importersOf(exportName), { limit: 20 });
    return page.items.map((i) => i.key);
  }

  async setImport(exportName: string, stack: string, imported: boolean): Promise<void> {
    if (imported) await this.store.kvInsert(importersOf(exportName), stack, entry({}, stack));
    else await this.store.kvDelete(importersOf(exportName), stack);
  }

  // ---- Helpers ----

  private async *all(namespace: string, limit = 500): AsyncGenerator<{ key: string; entry: KvEntry }> {
    let nextToken: string | undefined;
    do {
      const page = await this.store.kvList(namespace, { limit, ...(nextToken ? { nextToken } : {}) });
      yield* page.items;
      nextToken = page.nextToken;
    } while (nextToken);
  }

  private async dropNamespace(namespace: string): Promise<void> {
    const keys: string[] = [];
    for await (const { key } of this.all(namespace)) keys.push(key);
    for (const key of keys) await this.store.kvDelete(namespace, key);
  }
}

/** A resource as {@link StackStore.holders} looks it up: its type and identifier. */
export function heldKey(type: string, identifier: string): string {
  return JSON.stringify([type, identifier]);
}

function entry(value: unknown, writtenBy: string): KvEntry {
  return { value: value as KvEntry['value'], writtenBy };
}

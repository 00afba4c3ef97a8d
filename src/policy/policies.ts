/**
 * @module Registered admission policies, kept in the store's key-value space (`typeplane:policies`,
 * one entry a policy), so every replica serves the same ones. Each replica keeps them compiled in
 * memory and asks the store at most once a second whether they changed: a write stamps a generation
 * entry with a new value, and a cheap read of that stamp (no policy read) tells a replica to load
 * them again. A change here is seen here at once, on other replicas within a second.
 */
import { createHash, randomUUID } from 'node:crypto';
import { TypeplaneError, type ErrorDetail } from '../errors.js';
import type { Model } from '../model/index.js';
import type { KvEntry, Store } from '../store/index.js';
import { readPolicy, salvagePolicy, type PolicyDocument } from './document.js';

const NAMESPACE = 'typeplane:policies';
const GENERATION_NAMESPACE = 'typeplane:policy-generation';
const GENERATION = 'generation';
/** How stale a replica's policies may be: how often it reads the generation's stamp at most. */
const CHECK_MS = 1000;
/** The most policies a store holds: each one is compiled on every replica and run on matching changes. */
export const MAX_POLICIES = 256;
const PAGE = 100;

/** A policy as stored and shown: the document, and when and by whom it was set. */
export interface PolicyRecord {
  policy: PolicyDocument;
  createdAt: string;
  updatedAt: string;
  /** The id of the token that last set it (never the token). */
  updatedBy?: string;
}

/**
 * Whether a stored policy is in force as written. One that no longer compiles (a newer Typeplane's
 * stricter checks, a hand-edited store) runs none of its expressions and follows its failurePolicy
 * on every change it matches: `Fail` gives each a verdict of its action (a Deny policy refuses them),
 * `Ignore` nothing.
 */
export type PolicyStatus =
  | { inForce: true }
  | {
      inForce: false;
      /** Why, with each problem at its pointer in the document. */
      reason: string;
      problems: ErrorDetail[];
      /** What it does meanwhile. */
      failurePolicy: 'Fail' | 'Ignore';
    };

/** A policy as `GET /v1/policies` shows it: as stored, and whether it is in force. */
export type ShownPolicy = PolicyRecord & { status: PolicyStatus };

/** How a store's policies are made ready to run, and what is told of one that cannot be. */
export interface PolicyCompiler<C extends Compiled> {
  /**
   * Makes a policy ready to run; throws InvalidRequest with located problems for one that does not
   * compile (a write is refused so, before anything is stored).
   */
  compile(policy: PolicyDocument): C;
  /** What runs for a stored policy that does not compile: its failurePolicy on what it matches. */
  notCompiled(policy: PolicyDocument, reason: string): C;
  /** Told once per replica and stored version of a policy that does not compile (logged). */
  onNotCompiled?(name: string, status: Extract<PolicyStatus, { inForce: false }>): void;
}

/** A stored record made ready: by its content's hash, so a reload compiles only what changed. */
interface Checked<C> {
  compiled: C;
  status: PolicyStatus;
}

/** A policy ready to run, made from its document once per replica and change. */
export interface Compiled {
  readonly policy: PolicyDocument;
}

export class Policies<C extends Compiled = Compiled> {
  private loaded: { stamp: string | undefined; policies: readonly C[]; checkedAt: number } | undefined;
  private loading: Promise<readonly C[]> | undefined;
  /** Counts this replica's own changes: a load begun before one is not kept. */
  private changes = 0;

  /** The records last loaded, checked, by content hash. */
  private checked = new Map<string, Checked<C>>();

  constructor(
    private readonly store: Store,
    private readonly compiler: PolicyCompiler<C>,
  ) {}

  /**
   * Register a policy, or replace the one of that name (`replace`; without it, a name taken is a
   * conflict). Checked and compiled first: a policy that does not compile is never stored.
   */
  async put(
    value: unknown,
    by: string | undefined,
    options: { replace?: boolean } = {},
  ): Promise<PolicyRecord> {
    const policy = readPolicy(value);
    this.compiler.compile(policy);
    const existing = await this.store.kvGet(NAMESPACE, policy.name);
    const now = new Date().toISOString();
    const record: PolicyRecord = {
      policy,
      createdAt: existing ? (existing.value as unknown as PolicyRecord).createdAt : now,
      updatedAt: now,
      ...(by !== undefined ? { updatedBy: by } : {}),
    };
    const entry: KvEntry = { value: record as unknown as Model, writtenBy: randomUUID() };
    if (existing) {
      if (!options.replace)
        throw new TypeplaneError(
          'AlreadyExists',
          `a policy named ${policy.name} exists: replace it with PUT /v1/policies/${policy.name} ('typeplane policy create --replace'), or choose another name`,
        );
      if (!(await this.store.kvSwap(NAMESPACE, policy.name, entry, existing.writtenBy)))
        throw changedMeanwhile(policy.name);
    } else {
      const count = await this.count();
      if (count >= MAX_POLICIES)
        throw new TypeplaneError(
          'ServiceLimitExceeded',
          `at most ${MAX_POLICIES} policies may be registered: delete one first, or merge policies that match the same types`,
        );
      if (!(await this.store.kvInsert(NAMESPACE, policy.name, entry))) throw changedMeanwhile(policy.name);
    }
    await this.changed();
    return record;
  }

  /** The policy as stored, with whether it is in force. */
  async get(name: string): Promise<ShownPolicy | undefined> {
    const entry = await this.store.kvGet(NAMESPACE, name);
    return entry && this.shown(name, entry.value as unknown as PolicyRecord);
  }

  /** Every policy as stored, with whether it is in force, by name. */
  async list(): Promise<ShownPolicy[]> {
    return (await this.stored()).map(([name, record]) => this.shown(name, record));
  }

  private shown(name: string, record: PolicyRecord): ShownPolicy {
    return { ...record, status: this.check(name, record).status };
  }

  /** Every stored record with the key it is stored under (its name, unless the store was edited by hand), by name. */
  private async stored(): Promise<[string, PolicyRecord][]> {
    const records: [string, PolicyRecord][] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.store.kvList(NAMESPACE, { limit: PAGE, ...(nextToken ? { nextToken } : {}) });
      for (const { key, entry } of page.items) records.push([key, entry.value as unknown as PolicyRecord]);
      nextToken = page.nextToken;
    } while (nextToken);
    return records.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** False when no policy has this name. */
  async delete(name: string): Promise<boolean> {
    const deleted = await this.store.kvDelete(NAMESPACE, name);
    if (deleted) await this.changed();
    return deleted;
  }

  /**
   * The policies to review changes with, compiled: from memory while the store's generation is the
   * one they were loaded at (read at most once a second).
   */
  /** The policies in force when last checked less than a second ago; undefined when they must be. */
  fresh(): readonly C[] | undefined {
    const loaded = this.loaded;
    return loaded && Date.now() - loaded.checkedAt < CHECK_MS ? loaded.policies : undefined;
  }

  async current(): Promise<readonly C[]> {
    const loaded = this.loaded;
    const now = Date.now();
    if (loaded && now - loaded.checkedAt < CHECK_MS) return loaded.policies;
    const stamp = await this.store.kvStamp(GENERATION_NAMESPACE, GENERATION);
    if (loaded && stamp === loaded.stamp) {
      loaded.checkedAt = now;
      return loaded.policies;
    }
    this.loading ??= this.load(stamp).finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(stamp: string | undefined): Promise<readonly C[]> {
    const changes = this.changes;
    const policies: C[] = [];
    const checked = new Map<string, Checked<C>>();
    for (const [name, record] of await this.stored()) {
      const hash = contentHash(name, record);
      const known = this.checked.get(hash);
      const made = known ?? this.check(name, record);
      // Told once per replica and stored version: a reload keeps what it checked before.
      if (!known && !made.status.inForce) this.compiler.onNotCompiled?.(name, made.status);
      checked.set(hash, made);
      policies.push(made.compiled);
    }
    this.checked = checked;
    if (changes === this.changes) this.loaded = { stamp, policies, checkedAt: Date.now() };
    return policies;
  }

  /**
   * A stored record made ready to run. Compiled when stored, it may no longer compile (a newer
   * Typeplane's stricter checks, a hand-edited store): it then stands for its failurePolicy on what
   * it matches, read from what of it still reads (see salvagePolicy), rather than be skipped unseen.
   */
  private check(name: string, record: PolicyRecord): Checked<C> {
    const known = this.checked.get(contentHash(name, record));
    if (known) return known;
    let policy: PolicyDocument | undefined;
    try {
      policy = readPolicy(isObject(record) ? record.policy : record);
      if (policy.name !== name)
        throw new TypeplaneError('InvalidRequest', `it is stored as ${name} but named ${policy.name}`, [
          { pointer: '/name', message: `must be ${name}, the name it is stored under` },
        ]);
      return { compiled: this.compiler.compile(policy), status: { inForce: true } };
    } catch (e) {
      const error =
        e instanceof TypeplaneError
          ? e
          : new TypeplaneError('InvalidRequest', `it cannot be read: ${(e as Error).message}`);
      const standIn = policy
        ? { ...policy, name }
        : salvagePolicy(isObject(record) ? record.policy : undefined, name);
      return {
        compiled: this.compiler.notCompiled(standIn, error.message),
        status: {
          inForce: false,
          reason: error.message,
          problems: error.details,
          failurePolicy: standIn.failurePolicy ?? 'Fail',
        },
      };
    }
  }

  private async count(): Promise<number> {
    return (await this.stored()).length;
  }

  /** A new generation: this replica reloads at its next review, others within a second. */
  private async changed(): Promise<void> {
    const entry: KvEntry = { value: {}, writtenBy: randomUUID() };
    if (!(await this.store.kvReplace(GENERATION_NAMESPACE, GENERATION, entry)))
      if (!(await this.store.kvInsert(GENERATION_NAMESPACE, GENERATION, entry)))
        await this.store.kvReplace(GENERATION_NAMESPACE, GENERATION, entry);
    this.changes++;
    this.loaded = undefined;
  }
}

function changedMeanwhile(name: string): TypeplaneError {
  return new TypeplaneError(
    'ResourceConflict',
    `policy ${name} was changed by another request meanwhile; send it again`,
  );
}

function contentHash(name: string, record: PolicyRecord): string {
  return createHash('sha256').update(name).update('\0').update(JSON.stringify(record)).digest('base64url');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

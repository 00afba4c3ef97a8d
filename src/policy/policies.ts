/**
 * @module Registered admission policies, kept in the store's key-value space (`typeplane:policies`,
 * one entry a policy), so every replica serves the same ones. Each replica keeps them compiled in
 * memory and asks the store at most once a second whether they changed: a write stamps a generation
 * entry with a new value, and a cheap read of that stamp (no policy read) tells a replica to load
 * them again. A change here is seen here at once, on other replicas within a second.
 */
import { randomUUID } from 'node:crypto';
import { TypeplaneError } from '../errors.js';
import type { Model } from '../model/index.js';
import type { KvEntry, Store } from '../store/index.js';
import { readPolicy, type PolicyDocument } from './document.js';

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

/** A policy ready to run, made from its document once per replica and change. */
export interface Compiled {
  readonly policy: PolicyDocument;
}

export class Policies<C extends Compiled = Compiled> {
  private loaded: { stamp: string | undefined; policies: readonly C[]; checkedAt: number } | undefined;
  private loading: Promise<readonly C[]> | undefined;
  /** Counts this replica's own changes: a load begun before one is not kept. */
  private changes = 0;

  /**
   * @param compile makes a policy ready to run; throws InvalidRequest with located problems for one
   * that does not compile (a write is refused so, before anything is stored).
   */
  constructor(
    private readonly store: Store,
    private readonly compile: (policy: PolicyDocument) => C,
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
    this.compile(policy);
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

  async get(name: string): Promise<PolicyRecord | undefined> {
    const entry = await this.store.kvGet(NAMESPACE, name);
    return entry && (entry.value as unknown as PolicyRecord);
  }

  /** Every policy, by name. */
  async list(): Promise<PolicyRecord[]> {
    const records: PolicyRecord[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.store.kvList(NAMESPACE, { limit: PAGE, ...(nextToken ? { nextToken } : {}) });
      for (const { entry } of page.items) records.push(entry.value as unknown as PolicyRecord);
      nextToken = page.nextToken;
    } while (nextToken);
    return records.sort((a, b) =>
      a.policy.name < b.policy.name ? -1 : a.policy.name > b.policy.name ? 1 : 0,
    );
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
    for (const record of await this.list()) {
      // Compiled when stored; one that no longer compiles (a newer Typeplane's stricter check) is
      // skipped rather than stopping every change, and shows on `policy list` as stored.
      try {
        policies.push(this.compile(record.policy));
      } catch {
        continue;
      }
    }
    if (changes === this.changes) this.loaded = { stamp, policies, checkedAt: Date.now() };
    return policies;
  }

  private async count(): Promise<number> {
    return (await this.list()).length;
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

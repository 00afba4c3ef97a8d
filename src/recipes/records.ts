/**
 * @module What recipes keep in the store: environments, recipes (each a line of versions, never
 * rewritten), and one record per instance (the recipe version it ran, its stack, its model). A
 * recipe's template and parameters are sealed at rest; an instance record is kept as its resource's
 * own record is (the engine's): in the clear but for its write-only values, sealed. Its generated
 * secrets are not kept at all: they are derived from the record again, with the key that made them.
 */
import { hash, randomUUID } from 'node:crypto';
import { TypeplaneError } from '../errors.js';
import { mergeWriteOnly, splitWriteOnly, type Model, type WriteOnlyValue } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import type { Sealer } from '../secrets/index.js';
import type { KvEntry, KvWrite, Store } from '../store/types.js';

const ENVIRONMENTS = 'typeplane:environments';
const RECIPES = 'typeplane:recipes';
const VERSIONS = 'typeplane:recipe-versions';
const INSTANCES = 'typeplane:recipe-instances';
/** Every type a recipe ever backed: its instances stay served by recipes after its recipes go. */
const BACKED = 'typeplane:recipe-types';
const SEP = '\n';

export interface EnvironmentRecord {
  name: string;
  description?: string;
  createdAt: string;
  updatedAt: string;
}

/** A recipe's line in an environment: `latest` is what new instances run. */
export interface RecipeHead {
  environment: string;
  typeName: string;
  name: string;
  latest: number;
  createdAt: string;
  updatedAt: string;
  /** Deleted: no instance may choose it, and its number goes on where it was if it is registered again. */
  deleted?: true;
}

export interface RecipeVersion {
  environment: string;
  typeName: string;
  name: string;
  version: number;
  /** Only `cloudformation` runs here; the field is open for others (see docs/recipes.md). */
  templateKind: string;
  /** Where the template came from (the file registered), shown in `status.recipe.templatePath`. */
  templatePath: string;
  template: string;
  /** The environment's defaults for the template's parameters (NoEcho ones among them). */
  parameters: Record<string, unknown>;
  /** The types the recipe makes: what its stacks may use, as granted by the admin who registered it. */
  grants: string[];
  /** Of template, kind and parameters: registering the same again makes no new version. */
  digest: string;
  registeredAt: string;
  registeredBy?: string;
}

/** One instance of a recipe-backed type, as its recipe made it. */
export interface InstanceRecord {
  typeName: string;
  identifier: string;
  environment: string;
  recipe: string;
  version: number;
  /** A newer version to move to on the next update (`resource upgrade`). */
  upgradeTo?: number;
  stack: string;
  /**
   * NoEcho values the recipe generates once per instance (its `GeneratedSecrets`): derived from the
   * instance's type, identifier and create token under the server's key ({@link generatedSecrets}),
   * so the same every time, and never stored.
   */
  generated: Record<string, string>;
  /** The model the last successful operation reported (write-only values among them). */
  model?: Model;
  /** The client token of the create that made it. */
  createdBy: string;
  /**
   * Made without a stack (direct.ts), whose stack is not written yet: what was asked, what was made,
   * and the deployment id and stack id the stack is to be written with (adopt.ts).
   */
  direct?: {
    deploymentId: string;
    stackId: string;
    asked: Model;
    made: { logicalId: string; typeName: string; identifier: string; model: Record<string, unknown> }[];
  };
  phase: 'creating' | 'ready' | 'deleting';
}

/**
 * An instance record as stored: the record in the clear, without its generated secrets (their names
 * only, and the key id that derives them) nor the write-only values of its model and of what was
 * asked (sealed together, when there are any). Records written before this form are one sealed
 * value (`{ sealed }`), and are read as such.
 */
interface StoredInstance {
  form: 2;
  record: Omit<InstanceRecord, 'generated'>;
  generated: string[];
  keyId: string;
  sealed?: string;
}

/** The write-only values taken out of a stored instance record's model and asked state. */
interface SealedInstanceValues {
  model?: WriteOnlyValue[];
  asked?: WriteOnlyValue[];
}

/**
 * The values of the generated secrets `names` of an instance: keyed hashes (`mac`, the server's key)
 * of the instance's type, identifier and create token, so a create run again after a crash, and
 * every later deployment, gives its resources the same ones.
 */
export function generatedSecrets(
  mac: (data: string) => string,
  typeName: string,
  identifier: string,
  createdBy: string,
  names: readonly string[],
): Record<string, string> {
  const generated: Record<string, string> = {};
  for (const name of names)
    generated[name] = Buffer.from(
      mac(`recipe-generated\n${typeName}\n${identifier}\n${createdBy}\n${name}`),
      'hex',
    )
      .subarray(0, 24)
      .toString('base64url');
  return generated;
}

export function digestOf(parts: unknown): string {
  return hash('sha256', JSON.stringify(parts), 'hex');
}

const versionKey = (env: string, type: string, name: string, version: number) =>
  [env, type, name, String(version).padStart(8, '0')].join(SEP);

/** How many opened recipe versions a process keeps (each a template and its parameters). */
const KEPT_VERSIONS = 500;
/** How many recipe heads a process keeps. */
const KEPT_HEADS = 1_000;
/** A head's write stamp: fresh at each write, so a head kept elsewhere is seen to have changed. */
const headStamp = () => `recipes.${randomUUID()}`;

export class RecipeStore {
  /**
   * Versions opened here, by key. A version is written once (an insert, never replaced nor deleted:
   * deleting a recipe drops its head alone), so a kept one is what the store holds.
   */
  private readonly versions = new Map<string, Readonly<RecipeVersion>>();
  /** Heads read here, with the stamps they were read with (see keptHead). */
  private readonly heads = new Map<string, { head: Readonly<RecipeHead>; stamp: string }>();

  constructor(
    private readonly store: Store,
    private readonly sealer: Sealer,
  ) {}

  // ---- Environments ----

  async getEnvironment(name: string): Promise<EnvironmentRecord | undefined> {
    return (await this.store.kvGet(ENVIRONMENTS, name))?.value as EnvironmentRecord | undefined;
  }

  async insertEnvironment(env: EnvironmentRecord): Promise<boolean> {
    return this.store.kvInsert(ENVIRONMENTS, env.name, { value: env as never, writtenBy: 'recipes' });
  }

  async replaceEnvironment(env: EnvironmentRecord): Promise<boolean> {
    return this.store.kvReplace(ENVIRONMENTS, env.name, { value: env as never, writtenBy: 'recipes' });
  }

  async deleteEnvironment(name: string): Promise<boolean> {
    return this.store.kvDelete(ENVIRONMENTS, name);
  }

  async listEnvironments(): Promise<EnvironmentRecord[]> {
    return (await this.all(ENVIRONMENTS)).map((e) => e.entry.value as unknown as EnvironmentRecord);
  }

  // ---- Recipes ----

  async getHead(env: string, type: string, name: string): Promise<RecipeHead | undefined> {
    const head = await this.rawHead(env, type, name);
    return head?.deleted ? undefined : head;
  }

  /** The highest version number the recipe has had, deleted or not (0 when never registered). */
  async lastNumber(env: string, type: string, name: string): Promise<number> {
    return (await this.rawHead(env, type, name))?.latest ?? 0;
  }

  private async rawHead(env: string, type: string, name: string): Promise<RecipeHead | undefined> {
    const key = [env, type, name].join(SEP);
    const entry = await this.store.kvGet(RECIPES, key);
    this.heads.delete(key);
    if (!entry) return undefined;
    const head = Object.freeze(entry.value as unknown as RecipeHead);
    this.heads.set(key, { head, stamp: entry.writtenBy });
    if (this.heads.size > KEPT_HEADS) this.heads.delete(this.heads.keys().next().value!);
    return head;
  }

  /**
   * The recipe's head as last read here (read now if never), and what a transaction expects to see
   * if it is still so (its stamp): a composed create reads no head, and its write is refused when
   * the head has changed since (another replica registered a version). Reading the head again (any
   * getHead) keeps the new one.
   */
  async keptHead(
    env: string,
    type: string,
    name: string,
  ): Promise<{ head: RecipeHead; holds: KvWrite } | undefined> {
    const key = [env, type, name].join(SEP);
    if (!this.heads.has(key)) await this.rawHead(env, type, name);
    const kept = this.heads.get(key);
    if (!kept || kept.head.deleted) return undefined;
    return { head: kept.head, holds: { namespace: RECIPES, key, expect: kept.stamp } };
  }

  async listHeads(): Promise<RecipeHead[]> {
    return (await this.all(RECIPES))
      .map((e) => e.entry.value as unknown as RecipeHead)
      .filter((h) => !h.deleted);
  }

  /** Add `version` as the recipe's next one; false when another registration took that number first. */
  async addVersion(version: RecipeVersion): Promise<boolean> {
    const { template, parameters, ...rest } = version;
    const key = versionKey(version.environment, version.typeName, version.name, version.version);
    const sealed = this.sealer.seal(JSON.stringify({ template, parameters }), `recipe:${key}`);
    if (
      !(await this.store.kvInsert(VERSIONS, key, {
        value: { ...rest, sealed } as never,
        writtenBy: 'recipes',
      }))
    )
      return false;
    await this.store.kvInsert(BACKED, version.typeName, { value: {} as never, writtenBy: 'recipes' });
    const headKey = [version.environment, version.typeName, version.name].join(SEP);
    const head: RecipeHead = {
      environment: version.environment,
      typeName: version.typeName,
      name: version.name,
      latest: version.version,
      createdAt: version.registeredAt,
      updatedAt: version.registeredAt,
    };
    const current = await this.store.kvGet(RECIPES, headKey);
    this.heads.delete(headKey);
    if (current) {
      const was = current.value as unknown as RecipeHead;
      if (!was.deleted) head.createdAt = was.createdAt;
      await this.store.kvReplace(RECIPES, headKey, { value: head as never, writtenBy: headStamp() });
    } else await this.store.kvInsert(RECIPES, headKey, { value: head as never, writtenBy: headStamp() });
    return true;
  }

  async getVersion(
    env: string,
    type: string,
    name: string,
    version: number,
  ): Promise<Readonly<RecipeVersion> | undefined> {
    const key = versionKey(env, type, name, version);
    // Shared, frozen: every handler call of every instance reads one, and its template's text (the
    // same string each time) is the key its parsed form is kept under (parsed.ts).
    const kept = this.versions.get(key);
    if (kept) return kept;
    const entry = await this.store.kvGet(VERSIONS, key);
    if (!entry) return undefined;
    const { sealed, ...rest } = entry.value as unknown as Omit<RecipeVersion, 'template' | 'parameters'> & {
      sealed: string;
    };
    const open = JSON.parse(this.sealer.open(sealed, `recipe:${key}`)) as Pick<
      RecipeVersion,
      'template' | 'parameters'
    >;
    const opened = deepFreeze({ ...rest, ...open });
    this.versions.set(key, opened);
    if (this.versions.size > KEPT_VERSIONS) this.versions.delete(this.versions.keys().next().value!);
    return opened;
  }

  /** Drop the recipe's head: new instances cannot choose it; instances made by it keep their version. */
  async deleteHead(env: string, type: string, name: string): Promise<boolean> {
    // Kept, marked: versions are never written twice (a version once read is kept in memory), so a
    // recipe registered again numbers on from where it was.
    const head = await this.rawHead(env, type, name);
    if (!head || head.deleted) return false;
    const deleted: RecipeHead = { ...head, deleted: true, updatedAt: new Date().toISOString() };
    const key = [env, type, name].join(SEP);
    this.heads.delete(key);
    return this.store.kvReplace(RECIPES, key, { value: deleted as never, writtenBy: headStamp() });
  }

  /** The types recipes back (or backed). */
  async backedTypes(): Promise<string[]> {
    return (await this.all(BACKED)).map((e) => e.key);
  }

  // ---- Instances ----

  private instanceNamespace(type: string): string {
    return `${INSTANCES}:${type}`;
  }

  private seal(type: ResourceType, record: InstanceRecord): KvEntry['value'] {
    const { generated, ...rest } = record;
    const plain: Omit<InstanceRecord, 'generated'> = rest;
    const values: SealedInstanceValues = {};
    if (record.model) {
      const split = splitWriteOnly(type, record.model);
      if (split.values.length > 0) {
        plain.model = split.model;
        values.model = split.values;
      }
    }
    if (record.direct) {
      const split = splitWriteOnly(type, record.direct.asked);
      if (split.values.length > 0) {
        plain.direct = { ...record.direct, asked: split.model };
        values.asked = split.values;
      }
    }
    const stored: StoredInstance = {
      form: 2,
      record: plain,
      generated: Object.keys(generated),
      keyId: this.sealer.keyId,
    };
    if (values.model || values.asked)
      stored.sealed = this.sealer.seal(JSON.stringify(values), instancePlace(record));
    return stored as unknown as KvEntry['value'];
  }

  private open(type: string, identifier: string, value: KvEntry['value']): InstanceRecord {
    const place = `recipe-instance:${type}:${identifier}`;
    if ((value as Partial<StoredInstance>).form !== 2)
      return JSON.parse(this.sealer.open((value as { sealed: string }).sealed, place)) as InstanceRecord;
    const stored = value as unknown as StoredInstance;
    if (stored.generated.length > 0 && stored.keyId !== this.sealer.keyId)
      throw new TypeplaneError(
        'InternalFailure',
        `the generated secrets of ${type} ${identifier} were derived with key ${stored.keyId}, but the key in use is ${this.sealer.keyId}`,
      );
    const record = stored.record as InstanceRecord;
    record.generated = generatedSecrets(
      (data) => this.sealer.mac(data),
      record.typeName,
      record.identifier,
      record.createdBy,
      stored.generated,
    );
    if (stored.sealed !== undefined) {
      const values = JSON.parse(this.sealer.open(stored.sealed, place)) as SealedInstanceValues;
      if (values.model && record.model) mergeWriteOnly(record.model, values.model);
      if (values.asked && record.direct) mergeWriteOnly(record.direct.asked, values.asked);
    }
    return record;
  }

  async getInstance(
    type: string,
    identifier: string,
  ): Promise<{ record: InstanceRecord; writtenBy: string } | undefined> {
    const entry = await this.store.kvGet(this.instanceNamespace(type), identifier);
    return entry && { record: this.open(type, identifier, entry.value), writtenBy: entry.writtenBy };
  }

  /** Insert; false when the identifier is taken. `type` says which values are write-only. */
  async insertInstance(type: ResourceType, record: InstanceRecord, by: string): Promise<boolean> {
    return this.store.kvInsert(this.instanceNamespace(record.typeName), record.identifier, {
      value: this.seal(type, record),
      writtenBy: by,
    });
  }

  /** The insert of a new instance's record as one write of a transaction (Store.completeAll, kvCommit). */
  instanceInsert(type: ResourceType, record: InstanceRecord, by: string): KvWrite {
    return {
      namespace: this.instanceNamespace(record.typeName),
      key: record.identifier,
      entry: { value: this.seal(type, record), writtenBy: by },
    };
  }

  async replaceInstance(type: ResourceType, record: InstanceRecord, by: string): Promise<boolean> {
    return this.store.kvReplace(this.instanceNamespace(record.typeName), record.identifier, {
      value: this.seal(type, record),
      writtenBy: by,
    });
  }

  /**
   * Replace only while the record is still the one stamped `expected` (as read): false when another
   * wrote it meanwhile. For writers that hold no operation of the instance (an upgrade asked, a stack
   * written for a drift check); the new stamp is fresh, so a second swap against `expected` fails.
   */
  async swapInstance(type: ResourceType, record: InstanceRecord, expected: string): Promise<boolean> {
    return this.store.kvSwap(
      this.instanceNamespace(record.typeName),
      record.identifier,
      { value: this.seal(type, record), writtenBy: `swapped.${randomUUID()}` },
      expected,
    );
  }

  async deleteInstance(type: string, identifier: string): Promise<boolean> {
    return this.store.kvDelete(this.instanceNamespace(type), identifier);
  }

  async listInstances(
    type: string,
    limit: number,
    nextToken?: string,
  ): Promise<{ records: InstanceRecord[]; nextToken?: string }> {
    const page = await this.store.kvList(this.instanceNamespace(type), {
      limit,
      ...(nextToken !== undefined ? { nextToken } : {}),
    });
    return {
      records: page.items.map((i) => this.open(type, i.key, i.entry.value)),
      ...(page.nextToken ? { nextToken: page.nextToken } : {}),
    };
  }

  private async all(namespace: string): Promise<{ key: string; entry: KvEntry }[]> {
    const out: { key: string; entry: KvEntry }[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.store.kvList(namespace, { limit: 500, ...(nextToken ? { nextToken } : {}) });
      out.push(...page.items);
      nextToken = page.nextToken ?? undefined;
    } while (nextToken);
    return out;
  }
}

/** What an instance record's sealed values are bound to: its type and identifier. */
const instancePlace = (record: InstanceRecord) => `recipe-instance:${record.typeName}:${record.identifier}`;

/** `value`, frozen through: a kept version handed to every caller cannot be changed by one. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

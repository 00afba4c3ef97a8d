/**
 * @module The store's key-value part held back: writes kept in memory (reads see them) until
 * {@link BufferedKv.flush} writes them all in one turn — one group commit.
 * A deployment that ends within a handler's wait (a recipe instance's create, see buffered.ts) writes
 * its stack once, as it ended, instead of each step as it happened; one that is still running is
 * flushed and then writes through, as any deployment does.
 */
import { TypeplaneError } from '../errors.js';
import { decodeCursor, encodeCursor } from '../store/index.js';
import type { KvEntry, KvWrite, Page, Store } from '../store/types.js';

/** What the stacks' records use of a store. */
export type KvStore = Pick<
  Store,
  'kvGet' | 'kvStamp' | 'kvInsert' | 'kvReplace' | 'kvSwap' | 'kvDelete' | 'kvList'
>;

/** A key read or written here: what it holds now (undefined: none), and the store's stamp when first read. */
interface Held {
  entry: KvEntry | undefined;
  /** The store's stamp before the first write here (undefined: the store had no such key). */
  base: string | undefined;
  dirty: boolean;
}

const sep = '\u0000';

export class BufferedKv implements KvStore {
  private readonly held = new Map<string, Held>();
  /** Once flushed: every write goes to the store at once. */
  private through = false;
  private flushing: Promise<void> | undefined;

  constructor(private readonly store: KvStore & Pick<Store, 'kvCommit'>) {}

  get writesThrough(): boolean {
    return this.through;
  }

  private async base(namespace: string, key: string): Promise<Held> {
    const id = namespace + sep + key;
    let held = this.held.get(id);
    if (!held) {
      const entry = await this.store.kvGet(namespace, key);
      // Read meanwhile by another call of this buffer: its copy stands.
      held = this.held.get(id) ?? { entry, base: entry?.writtenBy, dirty: false };
      this.held.set(id, held);
    }
    return held;
  }

  async kvGet(namespace: string, key: string): Promise<KvEntry | undefined> {
    if (this.through && !this.held.has(namespace + sep + key)) return this.store.kvGet(namespace, key);
    const held = await this.base(namespace, key);
    return held.entry && structuredClone(held.entry);
  }

  async kvStamp(namespace: string, key: string): Promise<string | undefined> {
    if (this.through && !this.held.has(namespace + sep + key)) return this.store.kvStamp(namespace, key);
    return (await this.base(namespace, key)).entry?.writtenBy;
  }

  /** As the store does, an entry is taken as written: its writer never changes it afterwards. */
  private set(namespace: string, key: string, held: Held, entry: KvEntry | undefined): void {
    held.entry = entry;
    held.dirty = true;
    this.held.set(namespace + sep + key, held);
  }

  /**
   * A key never read here is taken to be absent (a new event, resource or deployment: keys made to be
   * unique); were it not, the flush's insert fails and says so. A key read before is decided as read.
   */
  async kvInsert(namespace: string, key: string, entry: KvEntry): Promise<boolean> {
    const id = namespace + sep + key;
    if (this.through && !this.held.has(id)) return this.store.kvInsert(namespace, key, entry);
    const held = this.held.get(id) ?? { entry: undefined, base: undefined, dirty: false };
    if (held.entry) return false;
    this.set(namespace, key, held, entry);
    return true;
  }

  async kvReplace(namespace: string, key: string, entry: KvEntry): Promise<boolean> {
    if (this.through && !this.held.has(namespace + sep + key))
      return this.store.kvReplace(namespace, key, entry);
    const held = await this.base(namespace, key);
    if (!held.entry) return false;
    this.set(namespace, key, held, entry);
    return true;
  }

  async kvSwap(namespace: string, key: string, entry: KvEntry, expectedWrittenBy: string): Promise<boolean> {
    if (this.through && !this.held.has(namespace + sep + key))
      return this.store.kvSwap(namespace, key, entry, expectedWrittenBy);
    const held = await this.base(namespace, key);
    if (held.entry?.writtenBy !== expectedWrittenBy) return false;
    this.set(namespace, key, held, entry);
    return true;
  }

  async kvDelete(namespace: string, key: string): Promise<boolean> {
    if (this.through && !this.held.has(namespace + sep + key)) return this.store.kvDelete(namespace, key);
    const held = await this.base(namespace, key);
    if (!held.entry) return false;
    this.set(namespace, key, held, undefined);
    return true;
  }

  /** Ordered by key, as the store lists: its page and what is held here, merged. */
  async kvList(
    namespace: string,
    options: { limit: number; nextToken?: string },
  ): Promise<Page<{ key: string; entry: KvEntry }>> {
    const prefix = namespace + sep;
    const mine = [...this.held].filter(([id]) => id.startsWith(prefix));
    if (mine.length === 0) return this.store.kvList(namespace, options);
    const after = decodeCursor('kv', options.nextToken);
    const here = new Map(mine.map(([id, held]) => [id.slice(prefix.length), held.entry]));
    // Enough of the store's keys that the page is full once those held here are set aside.
    const stored = await this.store.kvList(namespace, {
      limit: options.limit + here.size,
      ...(options.nextToken !== undefined ? { nextToken: options.nextToken } : {}),
    });
    const merged = new Map<string, KvEntry>();
    for (const item of stored.items) if (!here.has(item.key)) merged.set(item.key, item.entry);
    for (const [key, entry] of here)
      if (entry && (after === undefined || key > after)) merged.set(key, structuredClone(entry));
    let items = [...merged].map(([key, entry]) => ({ key, entry })).sort((a, b) => (a.key < b.key ? -1 : 1));
    // Past the store's page, a key of the store's next page may come first: stop at its last key.
    const lastStored = stored.items.at(-1)?.key;
    if (stored.nextToken !== undefined && lastStored !== undefined)
      items = items.filter((i) => i.key <= lastStored);
    if (items.length > options.limit || stored.nextToken !== undefined) {
      const page = items.slice(0, options.limit);
      const last = page.at(-1);
      return last ? { items: page, nextToken: encodeCursor('kv', last.key) } : { items: page };
    }
    return { items };
  }

  /**
   * Write everything held in one transaction, then write through. Each key is written as it now is
   * against what the store held when it was first touched: a key another writer changed meanwhile
   * fails the flush (ResourceConflict), and then nothing held is written.
   */
  flush(): Promise<void> {
    this.flushing ??= this.writeHeld();
    return this.flushing;
  }

  private async writeHeld(): Promise<void> {
    // Writes made while one round is stored are the next round's.
    for (;;) {
      const round = [...this.held].filter(([, held]) => held.dirty);
      if (round.length === 0) {
        // In the same turn as the last check: no write can fall between the two.
        this.through = true;
        this.held.clear();
        return;
      }
      const writes = round.map(([id, held]): KvWrite => {
        held.dirty = false;
        const cut = id.indexOf(sep);
        return {
          namespace: id.slice(0, cut),
          key: id.slice(cut + 1),
          ...(held.entry ? { entry: held.entry } : {}),
          ...(held.base !== undefined ? { base: held.base } : {}),
        };
      });
      const conflict = await this.store.kvCommit(writes);
      if (conflict)
        throw new TypeplaneError(
          'ResourceConflict',
          `${conflict.namespace} ${conflict.key} was written by another meanwhile; the deployment's records were not`,
        );
      // What the store holds now: the base of a key written again meanwhile (the next round).
      round.forEach(([, held], i) => (held.base = writes[i]!.entry?.writtenBy));
    }
  }
}

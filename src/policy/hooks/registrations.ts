/**
 * @module Registered hooks and their configurations, kept in the store's key-value space: a hook's
 * schema under its type name, its configuration sealed as a whole (its `Properties` may hold API
 * keys), as type configurations are. What reviews read is a snapshot of the enabled hooks, read again
 * at most once a second: a change made on this server shows at once, one made on another replica
 * within a second.
 */
import { TypeplaneError } from '../../errors.js';
import type { Sealer } from '../../secrets/index.js';
import type { SourceFormat } from '../../schema/source.js';
import type { KvEntry, Store } from '../../store/types.js';
import type { Model } from '../../model/index.js';
import { parseHookConfiguration, type HookSettings } from './configuration.js';
import { checkHookSchema, hookDefinition, type HookDefinition } from './schema.js';

const HOOKS = 'typeplane:hook';
const CONFIGURATIONS = 'typeplane:hook-configuration';
/** The most hooks a server keeps: each enabled one may be invoked on every change. */
export const MAX_HOOKS = 100;
const SNAPSHOT_MS = 1000;

export interface RegisteredHook {
  hook: HookDefinition;
  registeredAt: string;
}

/** A hook as reviews use it: enabled, with its settings. */
export interface ActiveHook {
  hook: HookDefinition;
  settings: HookSettings;
}

interface StoredHook {
  document: Record<string, unknown>;
  registeredAt: string;
}

export class HookRegistrations {
  private snapshot: { at: number; hooks: readonly ActiveHook[] } | undefined;
  private reading: Promise<readonly ActiveHook[]> | undefined;
  /** Definitions by their registration, so a snapshot does not compile a schema again. */
  private readonly known = new Map<string, { registeredAt: string; hook: HookDefinition }>();

  constructor(
    private readonly store: Store,
    private readonly sealer: Sealer,
  ) {}

  /**
   * Register (or replace) a hook from its schema's text. An invalid schema is refused with its
   * located diagnostics; a replacement its configuration no longer fits, with the configuration's problems.
   */
  async register(
    input: string | Uint8Array,
    options: { file?: string; format?: SourceFormat } = {},
  ): Promise<RegisteredHook & { outcome: 'registered' | 'updated' | 'unchanged' }> {
    const checked = checkHookSchema(input, options);
    if (!checked.hook) {
      const errors = checked.diagnostics.filter((d) => d.severity === 'error');
      throw new TypeplaneError(
        'InvalidRequest',
        `the hook schema is invalid: ${errors.length} error${errors.length === 1 ? '' : 's'}, first: ${errors[0]?.rule} ${errors[0]?.message}`,
        checked.diagnostics.map((d) => ({ ...d })),
      );
    }
    const hook = checked.hook;
    const existing = await this.find(hook.typeName);
    if (existing && JSON.stringify(existing.hook.document) === JSON.stringify(hook.document))
      return { ...existing, outcome: 'unchanged' };
    if (!existing && (await this.count()) >= MAX_HOOKS)
      throw new TypeplaneError(
        'ServiceLimitExceeded',
        `at most ${MAX_HOOKS} hooks may be registered; deregister one first ('typeplane hook deregister')`,
      );
    // A configuration set for the earlier schema must fit this one: checked before anything is written.
    const configured = await this.configuration(hook.typeName);
    if (configured) parseHookConfiguration(hook, configured.configuration);
    const registeredAt = new Date().toISOString();
    const entry = { value: { document: hook.document, registeredAt } as unknown as Model, writtenBy: 'hook' };
    await this.put(HOOKS, hook.typeName, entry);
    return { hook, registeredAt, outcome: existing ? 'updated' : 'registered' };
  }

  async list(): Promise<RegisteredHook[]> {
    const page = await this.store.kvList(HOOKS, { limit: MAX_HOOKS });
    return page.items.map(({ key, entry }) => this.definition(key, entry.value as unknown as StoredHook));
  }

  /** The hook registered under `typeName`; NotFound otherwise. */
  async get(typeName: string): Promise<RegisteredHook> {
    const found = await this.find(typeName);
    if (!found)
      throw new TypeplaneError(
        'NotFound',
        `no hook ${typeName} is registered; register its schema with POST /v1/hooks ('typeplane hook register')`,
      );
    return found;
  }

  /** Deregister a hook, its configuration with it; NotFound when there is none. */
  async remove(typeName: string): Promise<void> {
    await this.store.kvDelete(CONFIGURATIONS, typeName);
    const removed = await this.store.kvDelete(HOOKS, typeName);
    this.changed();
    if (!removed) await this.get(typeName);
  }

  /** Check the configuration against the hook's schema and keep it sealed, replacing any earlier one. */
  async configure(typeName: string, value: unknown): Promise<{ settings: HookSettings; updatedAt: string }> {
    const { hook } = await this.get(typeName);
    const settings = parseHookConfiguration(hook, value);
    const updatedAt = new Date().toISOString();
    const entry = {
      value: { sealed: this.sealer.seal(JSON.stringify(value), place(typeName)), updatedAt },
      writtenBy: 'hook-configuration',
    };
    await this.put(CONFIGURATIONS, typeName, entry);
    return { settings, updatedAt };
  }

  /** The configuration as set (opened), with when; undefined when none is. */
  async configuration(typeName: string): Promise<{ configuration: unknown; updatedAt: string } | undefined> {
    const entry = await this.store.kvGet(CONFIGURATIONS, typeName);
    if (!entry) return undefined;
    const { sealed, updatedAt } = entry.value as { sealed: string; updatedAt: string };
    return { configuration: JSON.parse(this.sealer.open(sealed, place(typeName))) as unknown, updatedAt };
  }

  /** The settings of a configured hook; undefined when it has no configuration. */
  async settings(hook: HookDefinition): Promise<HookSettings | undefined> {
    const found = await this.configuration(hook.typeName);
    return found && parseHookConfiguration(hook, found.configuration);
  }

  /** The enabled hooks when the snapshot is at most a second old; undefined when it must be read. */
  fresh(): readonly ActiveHook[] | undefined {
    return this.snapshot && Date.now() - this.snapshot.at < SNAPSHOT_MS ? this.snapshot.hooks : undefined;
  }

  /** The enabled hooks, from a snapshot at most a second old. */
  async active(): Promise<readonly ActiveHook[]> {
    if (this.snapshot && Date.now() - this.snapshot.at < SNAPSHOT_MS) return this.snapshot.hooks;
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<readonly ActiveHook[]> {
    const at = Date.now();
    const hooks: ActiveHook[] = [];
    for (const { hook } of await this.list()) {
      const settings = await this.settings(hook).catch(() => undefined);
      if (settings?.enabled) hooks.push({ hook, settings });
    }
    this.snapshot = { at, hooks };
    return hooks;
  }

  /** Replace, or insert when absent; another replica inserting meanwhile means replacing after all. */
  private async put(namespace: string, key: string, entry: KvEntry): Promise<void> {
    if (!(await this.store.kvReplace(namespace, key, entry)))
      if (!(await this.store.kvInsert(namespace, key, entry)))
        await this.store.kvReplace(namespace, key, entry);
    this.changed();
  }

  private changed(): void {
    this.snapshot = undefined;
  }

  private async find(typeName: string): Promise<RegisteredHook | undefined> {
    const entry = await this.store.kvGet(HOOKS, typeName);
    return entry && this.definition(typeName, entry.value as unknown as StoredHook);
  }

  private definition(typeName: string, stored: StoredHook): RegisteredHook {
    const known = this.known.get(typeName);
    if (known?.registeredAt === stored.registeredAt) return known;
    const hook = hookDefinition(stored.document);
    const registered = { hook, registeredAt: stored.registeredAt };
    this.known.set(typeName, registered);
    return registered;
  }

  private async count(): Promise<number> {
    return (await this.store.kvList(HOOKS, { limit: MAX_HOOKS })).items.length;
  }
}

function place(typeName: string): string {
  return `hook-configuration:${typeName}`;
}

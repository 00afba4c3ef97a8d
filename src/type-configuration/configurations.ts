/**
 * @module Type configurations: the settings an operator sets per type (API keys and the like), as
 * its schema's `typeConfiguration` declares them. Validated against it, kept sealed as a whole
 * (AES-256-GCM, bound to the type's name) in the store's key-value space, opened only to hand a
 * provider its request or to show an admin.
 */
import { TypeplaneError } from '../errors.js';
import { cloneJson, type Model } from '../model/index.js';
import type { Registry } from '../registry/index.js';
import type { Sealer } from '../secrets/index.js';
import type { Store } from '../store/types.js';

/** No type name has a single colon, so this namespace meets none. */
const NAMESPACE = 'typeplane:type-configuration';

/** What the engine needs: whether a type is configured, and its configuration. */
export interface ConfigurationSource {
  has(typeName: string): Promise<boolean>;
  get(typeName: string): Promise<Record<string, unknown> | undefined>;
}

export class TypeConfigurations implements ConfigurationSource {
  constructor(
    private readonly store: Store,
    private readonly sealer: Sealer,
    private readonly registry: Registry,
  ) {}

  /**
   * Validate `value` against the type's (default version's) `typeConfiguration` and keep it sealed,
   * replacing any earlier one. Problems are named by pointer, never by the values given.
   */
  async set(typeName: string, value: unknown): Promise<{ updatedAt: string }> {
    const compiled = await this.registry.get(typeName);
    if (!compiled.validateConfiguration)
      throw new TypeplaneError(
        'InvalidRequest',
        `${typeName} takes no configuration: its schema declares no typeConfiguration (a manifest type: no x-typeplane-configuration)`,
      );
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new TypeplaneError('InvalidRequest', 'a type configuration is a JSON object of its settings');
    const configuration = cloneJson(value as Model);
    const problems = compiled.validateConfiguration(configuration);
    if (problems.length > 0)
      throw new TypeplaneError(
        'InvalidRequest',
        `the configuration does not match the typeConfiguration of ${typeName}: ${problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`,
        problems,
      );
    const updatedAt = new Date().toISOString();
    const entry = {
      value: { sealed: this.sealer.seal(JSON.stringify(configuration), place(typeName)), updatedAt },
      writtenBy: 'configuration',
    };
    // Replace, or insert when absent; another replica inserting meanwhile means replacing after all.
    if (!(await this.store.kvReplace(NAMESPACE, typeName, entry)))
      if (!(await this.store.kvInsert(NAMESPACE, typeName, entry)))
        await this.store.kvReplace(NAMESPACE, typeName, entry);
    return { updatedAt };
  }

  async has(typeName: string): Promise<boolean> {
    return (await this.store.kvGet(NAMESPACE, typeName)) !== undefined;
  }

  async get(typeName: string): Promise<Record<string, unknown> | undefined> {
    return (await this.describe(typeName))?.configuration;
  }

  /** The configuration opened, with when it was set; undefined when none is. */
  async describe(
    typeName: string,
  ): Promise<{ configuration: Record<string, unknown>; updatedAt: string } | undefined> {
    const entry = await this.store.kvGet(NAMESPACE, typeName);
    if (!entry) return undefined;
    const { sealed, updatedAt } = entry.value as { sealed: string; updatedAt: string };
    return {
      configuration: JSON.parse(this.sealer.open(sealed, place(typeName))) as Record<string, unknown>,
      updatedAt,
    };
  }

  /** Forget a type's configuration (its type was deregistered); false when it had none. */
  remove(typeName: string): Promise<boolean> {
    return this.store.kvDelete(NAMESPACE, typeName);
  }
}

function place(typeName: string): string {
  return `type-configuration:${typeName}`;
}

/** Whether a type cannot be used before it is configured: its configuration requires a setting. */
export function requiresConfiguration(typeConfiguration: Record<string, unknown> | undefined): boolean {
  return Array.isArray(typeConfiguration?.required) && typeConfiguration.required.length > 0;
}

/**
 * @module The type registry: registers validated type documents in the store and hands the engine
 * compiled types. The store is the source of truth; compiled validators are a cache keyed by the
 * stored record, so replicas sharing a store see each other's registrations.
 */
import { TypeplaneError } from '../errors.js';
import { validateDocument, type SourceFormat } from '../schema/index.js';
import type { Store, StoredType } from '../store/types.js';
import { compileType, type CompiledType } from './compile.js';

export const RESOURCE_SCHEMA_VERSION = '1';

export interface RegisterOptions {
  format?: SourceFormat;
  /** Shown in diagnostics. */
  file?: string;
}

export class Registry {
  private readonly compiled = new Map<string, { registeredAt: string; compiled: CompiledType }>();

  constructor(private readonly store: Store) {}

  /**
   * Validate a resource schema or manifest and register every type it defines. Invalid documents
   * are refused with InvalidRequest carrying the validator's diagnostics.
   */
  async register(input: string | Uint8Array, options: RegisterOptions = {}): Promise<StoredType[]> {
    const result = validateDocument(input, options);
    if (!result.valid) {
      const errors = result.diagnostics.filter((d) => d.severity === 'error');
      throw new TypeplaneError(
        'InvalidRequest',
        `the type document is invalid: ${errors.length} error${errors.length === 1 ? '' : 's'}, first: ${errors[0]?.rule} ${errors[0]?.message}`,
        result.diagnostics.map((d) => ({ ...d, message: d.message })),
      );
    }
    const source = typeof input === 'string' ? input : Buffer.from(input).toString('utf8');
    const registeredAt = new Date().toISOString();
    const stored: StoredType[] = [];
    // Compile before storing anything: a type the engine could not validate against is refused whole.
    const compiled = result.types.map((type) => compileType(type));
    for (const [i, type] of result.types.entries()) {
      const record: StoredType = {
        typeName: type.typeName,
        version: type.apiVersion ?? RESOURCE_SCHEMA_VERSION,
        model: type,
        source,
        registeredAt,
      };
      await this.store.putType(record);
      this.compiled.set(cacheKey(record), { registeredAt, compiled: compiled[i]! });
      stored.push(record);
    }
    return stored;
  }

  /** The default version of a type, compiled; NotFound when it is not registered. */
  async get(typeName: string): Promise<CompiledType> {
    const record = await this.store.getType(typeName);
    if (!record) throw notRegistered(typeName);
    return this.compile(record);
  }

  async describe(typeName: string): Promise<{ latest: StoredType; versions: StoredType[] }> {
    const versions = await this.store.listTypeVersions(typeName);
    const latest = await this.store.getType(typeName);
    if (!latest) throw notRegistered(typeName);
    return { latest, versions };
  }

  list(): Promise<StoredType[]> {
    return this.store.listTypes();
  }

  async deregister(typeName: string): Promise<void> {
    const removed = await this.store.deleteType(typeName);
    if (!removed) throw notRegistered(typeName);
    for (const key of this.compiled.keys())
      if (key.startsWith(`${typeName}\u0000`)) this.compiled.delete(key);
  }

  private compile(record: StoredType): CompiledType {
    const key = cacheKey(record);
    const hit = this.compiled.get(key);
    if (hit && hit.registeredAt === record.registeredAt) return hit.compiled;
    const compiled = compileType(record.model);
    this.compiled.set(key, { registeredAt: record.registeredAt, compiled });
    return compiled;
  }
}

function cacheKey(record: StoredType): string {
  return `${record.typeName}\u0000${record.version}`;
}

function notRegistered(typeName: string): TypeplaneError {
  return new TypeplaneError(
    'NotFound',
    `type ${typeName} is not registered; register it with POST /v1/types or 'typeplane type register'`,
  );
}

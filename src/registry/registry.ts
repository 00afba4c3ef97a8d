/**
 * @module The type registry: registers validated type documents in the store and hands the engine
 * compiled types. The store is the source of truth; compiled validators are a cache keyed by the
 * stored record, so replicas sharing a store see each other's registrations.
 */
import { TypeplaneError } from '../errors.js';
import { validateDocument, type Diagnostic, type ResourceType, type SourceFormat } from '../schema/index.js';
import { PointerResolver } from '../schema/resource-schema/index.js';
import type { Store, StoredType } from '../store/types.js';
import { compileType, type CompiledType } from './compile.js';

export const RESOURCE_SCHEMA_VERSION = '1';
/** How long a replica trusts its view of a type before checking the store again. */
export const STAMP_TTL_MS = 1000;

export interface RegisterOptions {
  format?: SourceFormat;
  /** Shown in diagnostics. */
  file?: string;
}

export class Registry {
  private readonly compiled = new Map<string, { registeredAt: string; compiled: CompiledType }>();
  /** The default version of each type as last checked against the store. */
  private readonly latest = new Map<string, { compiled: CompiledType; checkedAt: number }>();

  constructor(private readonly store: Store) {}

  /**
   * Validate a resource schema or manifest and register every type it defines. Invalid documents
   * are refused with InvalidRequest carrying the validator's diagnostics.
   */
  async register(input: string | Uint8Array, options: RegisterOptions = {}): Promise<StoredType[]> {
    return (await this.registerDocument(input, options)).types;
  }

  /**
   * As `register`, also returning the validator's warnings: a registered type may still deserve a
   * look (an empty schema leaves its properties unvalidated, say).
   */
  async registerDocument(
    input: string | Uint8Array,
    options: RegisterOptions = {},
  ): Promise<{ types: StoredType[]; warnings: Diagnostic[] }> {
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
    await this.checkReferences(result.types);
    // Compile before storing anything: a type the engine could not validate against is refused whole.
    const compiled = result.types.map((type) => compileForRegistration(type));
    for (const [i, type] of result.types.entries()) {
      const record: StoredType = {
        typeName: type.typeName,
        version: type.apiVersion ?? RESOURCE_SCHEMA_VERSION,
        model: type,
        source,
        registeredAt,
      };
      await this.store.putType(record);
      this.latest.delete(record.typeName);
      this.compiled.set(cacheKey(record), { registeredAt, compiled: compiled[i]! });
      stored.push(record);
    }
    return { types: stored, warnings: result.diagnostics.filter((d) => d.severity === 'warning') };
  }

  /**
   * A reference must point at properties the referenced type has. Checked when the referenced type
   * is known (registered, or in the same document); one registered later is checked by the engine
   * when a resource is created.
   */
  private async checkReferences(types: readonly ResourceType[]): Promise<void> {
    const problems: { pointer: string; message: string }[] = [];
    for (const type of types) {
      for (const [i, ref] of type.traits.references.entries()) {
        if (ref.relationshipRef) continue;
        const target =
          types.find((t) => t.typeName === ref.typeName) ?? (await this.store.getType(ref.typeName))?.model;
        if (!target) continue;
        const resolver = new PointerResolver(target.schema as Record<string, unknown>);
        if (ref.ids.length === 0) {
          // Without ids, members named like the target's identifiers supply them (as loadTypes' TP1014).
          const own = new PointerResolver(type.schema as Record<string, unknown>);
          for (const p of target.primaryIdentifier) {
            if (!own.resolves(p)) {
              problems.push({
                pointer: `/traits/references/${i}`,
                message: `${type.typeName} refers to ${ref.typeName} without ids, but has no property ${p} to supply that identifier; add ids mapping it to a property`,
              });
            }
          }
        }
        for (const id of ref.ids) {
          if (id.target !== '' && !resolver.resolves(id.target)) {
            problems.push({
              pointer: `/traits/references/${i}`,
              message: `${type.typeName} refers to ${ref.typeName} property ${id.target}, which ${ref.typeName} does not declare`,
            });
          }
        }
      }
    }
    if (problems.length > 0) {
      throw new TypeplaneError(
        'InvalidRequest',
        `references point at undeclared properties: ${problems.map((p) => p.message).join('; ')}`,
        problems,
      );
    }
  }

  /** The default version of a type, compiled; NotFound when it is not registered. */
  async get(typeName: string): Promise<CompiledType> {
    // Within STAMP_TTL_MS a type is served from memory; after that a two-column query checks it is
    // still the registered version (another replica may have re-registered or removed it).
    const now = Date.now();
    const fresh = this.latest.get(typeName);
    if (fresh && now - fresh.checkedAt < STAMP_TTL_MS) return fresh.compiled;
    const stamp = await this.store.getTypeStamp(typeName);
    if (!stamp) {
      this.latest.delete(typeName);
      throw notRegistered(typeName);
    }
    const hit = this.compiled.get(`${typeName}\u0000${stamp.version}`);
    let compiled: CompiledType;
    if (hit && hit.registeredAt === stamp.registeredAt) {
      compiled = hit.compiled;
    } else {
      const record = await this.store.getType(typeName);
      if (!record) throw notRegistered(typeName);
      compiled = this.compile(record);
    }
    this.latest.set(typeName, { compiled, checkedAt: now });
    return compiled;
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

  /** Name, version and registration time of each type's default version: what `list` has, without the models. */
  listStamps(): Promise<{ typeName: string; version: string; registeredAt: string }[]> {
    return this.store.listTypeStamps();
  }

  async deregister(typeName: string): Promise<void> {
    const removed = await this.store.deleteType(typeName);
    if (!removed) throw notRegistered(typeName);
    for (const key of this.compiled.keys())
      if (key.startsWith(`${typeName}\u0000`)) this.compiled.delete(key);
    this.latest.delete(typeName);
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

/** A schema the validator compiler refuses (too complex, not compilable) is a refused request here. */
function compileForRegistration(type: ResourceType): CompiledType {
  try {
    return compileType(type);
  } catch (e) {
    if (e instanceof TypeplaneError && e.code === 'InvalidTypeConfiguration')
      throw new TypeplaneError('InvalidRequest', e.message, e.details);
    throw e;
  }
}

function cacheKey(record: StoredType): string {
  return `${record.typeName}\u0000${record.version}`;
}

/** NotFound for a type name; the HTTP layer adds the registered names close to it, as the caller may see them. */
export class TypeNotRegistered extends TypeplaneError {
  constructor(readonly typeName: string) {
    super(
      'NotFound',
      `type ${typeName} is not registered; register it with POST /v1/types or 'typeplane type register'`,
    );
  }
}

function notRegistered(typeName: string): TypeplaneError {
  return new TypeNotRegistered(typeName);
}

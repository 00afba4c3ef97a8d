/**
 * @module The type registry: registers validated type documents in the store and hands the engine
 * compiled types. The store is the source of truth; compiled validators are a cache keyed by the
 * stored record, so replicas sharing a store see each other's registrations.
 */
import { diffTypes, documentTarget, type Change, type Target } from '../diff/index.js';
import { TypeplaneError, type ErrorDetail } from '../errors.js';
import { cloneJson, jsonEqual } from '../model/index.js';
import {
  validateDocumentYielding,
  type Diagnostic,
  type ResourceType,
  type SourceFormat,
  type ValidationResult,
} from '../schema/index.js';
import { PointerResolver } from '../schema/resource-schema/index.js';
import {
  TypeChangedMeanwhile,
  type Store,
  type StoredType,
  type TypeVersionExpectation,
} from '../store/types.js';
import { compileType, type CompiledType } from './compile.js';
import { checkResources, type Violations } from './violations.js';
import { typesAt } from '../model/index.js';
import { attachReport, reportStatus, type ContractStatus } from './contract-reports.js';

export const RESOURCE_SCHEMA_VERSION = '1';
/** How long a replica trusts its view of a type before checking the store again. */
export const STAMP_TTL_MS = 1000;

export interface RegisterOptions {
  format?: SourceFormat;
  /** Shown in diagnostics. */
  file?: string;
  /** Told what is worth knowing but does not refuse the document (a reference to a type not registered). */
  onWarning?: (warning: { pointer: string; message: string }) => void;
  /** Register a breaking change even while resources of the type exist (they are named in the answer). */
  allowBreaking?: boolean;
}

/** What registering a document did to one type it defines. */
export interface Registration {
  record: StoredType;
  /** `created`: a new type (version 1); `new-version`: a changed schema; `unchanged`: nothing stored. */
  outcome: 'created' | 'new-version' | 'unchanged';
  /** The changes from the previous default version (empty unless `new-version`). */
  changes: Change[];
  /** Existing resources the new version refuses (checked when a change is breaking and resources exist). */
  violations?: Violations;
}

/** Worth knowing, not refusing: a validator's warning, or a reference to a type not registered. */
export type RegistrationWarning = Pick<Diagnostic, 'pointer' | 'message'> & Partial<Diagnostic>;

export class Registry {
  private readonly compiled = new Map<string, { registeredAt: string; compiled: CompiledType }>();
  /** The default version of each type as last checked against the store. */
  private readonly latest = new Map<string, { compiled: CompiledType; checkedAt: number }>();

  constructor(private readonly store: Store) {}

  /**
   * Validate a resource schema or manifest and register every type it defines. Invalid documents
   * are refused with InvalidRequest carrying the validator's diagnostics.
   */
  async register(input: string | Uint8Array, options: RegisterOptions = {}): Promise<Registration[]> {
    return (await this.registerDocument(input, options)).registrations;
  }

  /**
   * As `register`, also returning the validator's warnings: a registered type may still deserve a
   * look (an empty schema leaves its properties unvalidated, say).
   */
  async registerDocument(
    input: string | Uint8Array,
    options: RegisterOptions = {},
  ): Promise<{ registrations: Registration[]; warnings: RegistrationWarning[] }> {
    return this.registerValidated(input, await validateDocumentYielding(input, options), options);
  }

  /**
   * As `registerDocument`, for a document already validated as `result` (by `loadTypes`, which
   * validates a folder's documents together): it is not validated again.
   */
  async registerValidated(
    input: string | Uint8Array,
    result: ValidationResult,
    options: RegisterOptions = {},
  ): Promise<{ registrations: Registration[]; warnings: RegistrationWarning[] }> {
    if (!result.valid) {
      const errors = result.diagnostics.filter((d) => d.severity === 'error');
      throw new TypeplaneError(
        'InvalidRequest',
        `the type document is invalid: ${errors.length} error${errors.length === 1 ? '' : 's'}, first: ${errors[0]?.rule} ${errors[0]?.message}`,
        result.diagnostics.map((d) => ({ ...d, message: d.message })),
      );
    }
    const source = typeof input === 'string' ? input : Buffer.from(input).toString('utf8');
    const referenceWarnings: RegistrationWarning[] = [];
    await this.checkReferences(result.types, (w) => {
      referenceWarnings.push(w);
      options.onWarning?.(w);
    });
    // A type is served in one model: a manifest's `defaultApiVersion` of it (its last API version when
    // it names none), which manifestToModel puts last.
    const served = new Map<string, ResourceType>();
    for (const type of result.types) served.set(type.typeName, type);
    // Compiled before anything is stored: a document with a model the engine could not validate
    // against is refused whole. A served model the same as its type's default version is not compiled
    // again (it was when that version was stored): a restart registering the same documents costs no
    // compiling.
    for (const type of result.types) if (served.get(type.typeName) !== type) compileForRegistration(type);
    const target = documentTarget({ text: input, ...options });
    const allowBreaking = options.allowBreaking === true;
    const plans: Plan[] = [];
    for (const type of served.values())
      plans.push(await this.plan(type, compileOnce(type), target, allowBreaking));
    const refusals = plans.flatMap((p) => (p.refusal ? [p.refusal] : []));
    if (refusals.length > 0) throw breakingRefused(refusals, 'register');
    const registeredAt = new Date().toISOString();
    const registrations: Registration[] = [];
    const stored = await this.storePlans(plans, source, registeredAt, target, allowBreaking);
    for (const { record, plan } of stored) {
      this.latest.delete(record.typeName);
      const { type: _type, compile, current: _current, expected: _expected, refusal: _r, ...outcome } = plan;
      if (outcome.outcome !== 'unchanged')
        this.compiled.set(cacheKey(record), {
          registeredAt,
          compiled: { ...compile(), version: record.version },
        });
      registrations.push({ record, ...outcome });
    }
    return {
      registrations,
      warnings: [...result.diagnostics.filter((d) => d.severity === 'warning'), ...referenceWarnings],
    };
  }

  /**
   * Store the plans' new versions, all or none (a manifest's types are registered together), only if
   * what each plan was decided on still holds (checked in the insert's transaction): a registration or
   * a resource that got in first makes them all decide again, on what is there now (an identical
   * registration that got in first leaves nothing to do for its type).
   */
  private async storePlans(
    plans: Plan[],
    source: string,
    registeredAt: string,
    target: Target,
    allowBreaking: boolean,
  ): Promise<{ record: StoredType; plan: Plan }[]> {
    for (let attempt = 1; ; attempt++) {
      const changing = plans.filter((p) => p.outcome !== 'unchanged');
      try {
        const records =
          changing.length === 0
            ? []
            : await this.store.addTypeVersions(
                changing.map((plan) => ({
                  type: { typeName: plan.type.typeName, model: plan.type, source, registeredAt },
                  expected: plan.expected,
                })),
              );
        // The records come in the order of `changing`, which keeps the plans' order.
        let at = 0;
        return plans.map((plan) =>
          plan.outcome === 'unchanged' ? { record: plan.current!, plan } : { record: records[at++]!, plan },
        );
      } catch (error) {
        if (!(error instanceof TypeChangedMeanwhile)) throw error;
        if (attempt >= PLAN_ATTEMPTS) throw keptChanging(error);
        const again: Plan[] = [];
        for (const plan of plans) again.push(await this.plan(plan.type, plan.compile, target, allowBreaking));
        const refusals = again.flatMap((p) => (p.refusal ? [p.refusal] : []));
        if (refusals.length > 0) throw breakingRefused(refusals, 'register');
        plans = again;
      }
    }
  }

  /** What registering `type` would do, against the store as it is now. */
  private async plan(
    type: ResourceType,
    compile: () => CompiledType,
    target: Target,
    allowBreaking: boolean,
  ): Promise<Plan> {
    const current = await this.store.getType(type.typeName);
    if (!current) {
      compile();
      return {
        type,
        compile,
        outcome: 'created',
        changes: [],
        expected: { defaultVersion: undefined },
      };
    }
    const expected: TypeVersionExpectation = { defaultVersion: current.version };
    if (sameModel(current.model, type))
      return { type, compile, current, outcome: 'unchanged', changes: [], expected };
    const next = compile();
    const changes = diffTypes(current.model, type, target);
    const check = await this.checkBreaking(type.typeName, changes, next, allowBreaking);
    return {
      type,
      compile,
      current,
      outcome: 'new-version',
      changes,
      expected: { ...expected, ...(check.unused ? { unused: true } : {}) },
      ...(check.violations ? { violations: check.violations } : {}),
      ...(check.refusal ? { refusal: check.refusal } : {}),
    };
  }

  /**
   * Whether a new default version with `changes` may be served: anything goes when nothing breaks;
   * a breaking change while resources exist or operations are in progress (they may write resources
   * under the old version) is refused unless `allowBreaking`; otherwise it may go only while the
   * type stays unused until it is the default (`unused`, which the store checks as it makes it so).
   */
  private async checkBreaking(
    typeName: string,
    changes: Change[],
    next: CompiledType,
    allowBreaking: boolean,
  ): Promise<{ unused?: boolean; violations?: Violations; refusal?: Refusal }> {
    const breaking = changes.filter((c) => c.verdict === 'breaking');
    if (breaking.length === 0) return {};
    const { resources, activeOperations: inProgress } = await this.store.typeUsage(typeName);
    if (resources === 0 && inProgress === 0) return allowBreaking ? {} : { unused: true };
    const violations = await checkResources(this.store, next, typeName);
    if (allowBreaking) return { violations };
    return { violations, refusal: { typeName, breaking, violations, inProgress } };
  }

  /**
   * A reference (the Smithy trait) names members that hold strings, and `ids` keys that are
   * identifiers of the referenced type. The members are checked always; the keys when the referenced
   * type is known (registered, or in the same document). A reference to a type not registered is a
   * warning: it cannot be resolved, so the engine neither checks nor records it until that type is
   * registered (docs/traits.md).
   */
  private async checkReferences(
    types: readonly ResourceType[],
    onWarning?: RegisterOptions['onWarning'],
  ): Promise<void> {
    const problems: { pointer: string; message: string }[] = [];
    for (const type of types) {
      for (const [i, ref] of type.traits.references.entries()) {
        if (ref.relationshipRef) continue;
        for (const id of ref.ids) {
          const kinds = [...typesAt(type, id.member)];
          if (kinds.length !== 1 || kinds[0] !== 'string')
            problems.push({
              pointer: `/traits/references/${i}`,
              message: `${type.typeName} member ${id.member} refers to ${ref.typeName}, so it must be a string property (it is ${kinds.join(' or ') || 'not a scalar'})`,
            });
        }
        const target =
          types.find((t) => t.typeName === ref.typeName) ?? (await this.store.getType(ref.typeName))?.model;
        if (!target) {
          onWarning?.({
            pointer: `/traits/references/${i}`,
            message: `${type.typeName} refers to ${ref.typeName}, which is not registered: until it is, the engine neither checks nor records these references`,
          });
          continue;
        }
        const identifiers = new Set([target.primaryIdentifier, ...target.additionalIdentifiers].flat());
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
          } else if (id.target !== '' && !identifiers.has(id.target)) {
            problems.push({
              pointer: `/traits/references/${i}`,
              message: `${type.typeName} refers to ${ref.typeName} by ${id.target}, which is not one of its identifiers (${[...identifiers].join(', ')}); ids keys name identifier properties of the referenced type`,
            });
          }
        }
      }
    }
    if (problems.length > 0) {
      throw new TypeplaneError(
        'InvalidRequest',
        `references are not valid: ${problems.map((p) => p.message).join('; ')}`,
        problems,
      );
    }
  }

  /**
   * The default version of a type, compiled (or, with `version`, that version); NotFound when it is
   * not registered.
   */
  async get(typeName: string, version?: string): Promise<CompiledType> {
    // Within STAMP_TTL_MS the default version is served from memory, and so is a version named when
    // it is that one (an operation's usually is); after that a two-column query checks it is still
    // the registered version (another replica may have re-registered or removed it).
    const known = this.now(typeName, version);
    if (known) return known;
    if (version !== undefined) {
      const record = await this.store.getType(typeName, version);
      if (!record) throw await this.versionNotRegistered(typeName, version);
      return this.compile(record);
    }
    const now = Date.now();
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

  /**
   * The default version of a type as `get` answers it, when this replica checked it against the store
   * less than STAMP_TTL_MS ago; undefined otherwise (then `get` it). No promise: the API's reads take
   * their type from here.
   */
  fresh(typeName: string): CompiledType | undefined {
    const latest = this.latest.get(typeName);
    return latest && Date.now() - latest.checkedAt < STAMP_TTL_MS ? latest.compiled : undefined;
  }

  /**
   * What `get(typeName, version)` answers when it can answer from memory (the default version, fresh,
   * is the one asked for); undefined otherwise (then `get` it). No promise.
   */
  now(typeName: string, version?: string): CompiledType | undefined {
    const fresh = this.fresh(typeName);
    return fresh && (version === undefined || fresh.version === version) ? fresh : undefined;
  }

  /** Forget what this replica knows of a type's default version: the next `get` reads the store. */
  forget(typeName: string): void {
    this.latest.delete(typeName);
  }

  /** A type's default version (or `version`), every version, and how many resources each was last written with. */
  async describe(
    typeName: string,
    version?: string,
  ): Promise<{
    record: StoredType;
    defaultVersion: string;
    versions: StoredType[];
    resourceCounts: Record<string, number>;
  }> {
    const versions = await this.store.listTypeVersions(typeName);
    const latest = versions.at(-1);
    if (!latest) throw notRegistered(typeName);
    const record = version === undefined ? latest : versions.find((v) => v.version === version);
    if (!record) throw await this.versionNotRegistered(typeName, version!);
    const resourceCounts = await this.store.countResourcesByVersion(typeName);
    return { record, defaultVersion: latest.version, versions, resourceCounts };
  }

  /** The stored record of a type's version (the default when none is named), without compiling it. */
  async record(typeName: string, version?: string): Promise<StoredType> {
    const record = await this.store.getType(typeName, version);
    if (record) return record;
    throw version === undefined
      ? notRegistered(typeName)
      : await this.versionNotRegistered(typeName, version);
  }

  list(): Promise<StoredType[]> {
    return this.store.listTypes();
  }

  /** Attach a `typeplane test -o json` report to a version of a type (its default version unless named) (see `contract-reports.ts`). */
  async attachContractReport(typeName: string, report: unknown, version?: string): Promise<ContractStatus> {
    const { record } = await this.describe(typeName, version);
    return attachReport(this.store, record, report);
  }

  /** The contract report status of a registration (by name: `version`, or the default version). */
  async contractStatus(type: string | StoredType, version?: string): Promise<ContractStatus | undefined> {
    const record = typeof type === 'string' ? await this.store.getType(type, version) : type;
    return record && reportStatus(this.store, record);
  }

  /** Name, version and registration time of each type's default version: what `list` has, without the models. */
  listStamps(): Promise<{ typeName: string; version: string; registeredAt: string }[]> {
    return this.store.listTypeStamps();
  }

  /**
   * Make a registered version the one requests are served with. Checked as a registration is: a
   * version breaking relative to the current default is refused while resources exist or operations
   * are in progress, unless `allowBreaking`. Answers the changes from the previous default.
   */
  async setDefault(
    typeName: string,
    version: string,
    options: { allowBreaking?: boolean } = {},
  ): Promise<{ changes: Change[]; violations?: Violations }> {
    for (let attempt = 1; ; attempt++) {
      const [current, chosen] = await Promise.all([
        this.store.getType(typeName),
        this.store.getType(typeName, version),
      ]);
      if (!current || !chosen) throw await this.versionNotRegistered(typeName, version);
      const changes =
        current.version === version
          ? []
          : diffTypes(current.model, chosen.model, documentTarget({ text: chosen.source }));
      const check = await this.checkBreaking(
        current.typeName,
        changes,
        this.compile(chosen),
        options.allowBreaking === true,
      );
      if (check.refusal) throw breakingRefused([check.refusal], 'set-default');
      const expected: TypeVersionExpectation = {
        defaultVersion: current.version,
        ...(check.unused ? { unused: true } : {}),
      };
      try {
        if (!(await this.store.setDefaultTypeVersion(current.typeName, version, expected)))
          throw await this.versionNotRegistered(typeName, version);
      } catch (error) {
        if (!(error instanceof TypeChangedMeanwhile)) throw error;
        if (attempt >= PLAN_ATTEMPTS) throw keptChanging(error);
        continue;
      }
      this.latest.delete(current.typeName);
      return { changes, ...(check.violations ? { violations: check.violations } : {}) };
    }
  }

  /**
   * Remove a type (every version), or one version of it. Refused (ResourceConflict) while resources
   * exist, or, for a version, while resources were last written with it or it is the default.
   */
  async deregister(typeName: string, version?: string): Promise<void> {
    const removed =
      version === undefined
        ? await this.store.deleteType(typeName)
        : await this.store.deleteTypeVersion(typeName, version);
    if (!removed)
      throw version === undefined
        ? notRegistered(typeName)
        : await this.versionNotRegistered(typeName, version);
    for (const key of this.compiled.keys())
      if (version === undefined ? key.startsWith(`${typeName}\u0000`) : key === `${typeName}\u0000${version}`)
        this.compiled.delete(key);
    this.latest.delete(typeName);
  }

  private async versionNotRegistered(typeName: string, version: string): Promise<TypeplaneError> {
    const versions = await this.store.listTypeVersions(typeName);
    if (versions.length === 0) return notRegistered(typeName);
    return new TypeVersionNotRegistered(
      typeName,
      version,
      versions.map((v) => v.version),
    );
  }

  private compile(record: StoredType): CompiledType {
    const key = cacheKey(record);
    const hit = this.compiled.get(key);
    if (hit && hit.registeredAt === record.registeredAt) return hit.compiled;
    const compiled = { ...compileType(record.model), version: record.version };
    this.compiled.set(key, { registeredAt: record.registeredAt, compiled });
    return compiled;
  }
}

/** The type compiled for registration on the first call, the same compiled type on later ones. */
function compileOnce(type: ResourceType): () => CompiledType {
  let compiled: CompiledType | undefined;
  return () => (compiled ??= compileForRegistration(type));
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

/** Two models of one type are the same schema (where they were read from does not count). */
function sameModel(a: ResourceType, b: ResourceType): boolean {
  const { source: _a, ...left } = a;
  const { source: _b, ...right } = b;
  return jsonEqual(cloneJson(left), cloneJson(right));
}

/** How many times a registration or set-default is decided again when the type keeps changing under it. */
const PLAN_ATTEMPTS = 5;

/** A type being registered, and what registering it would do. */
type Plan = Omit<Registration, 'record'> & {
  type: ResourceType;
  /** The type compiled (once; a plan left unchanged never compiles it). */
  compile: () => CompiledType;
  current?: StoredType;
  /** What the plan was decided on: checked again as the version is stored. */
  expected: TypeVersionExpectation;
  refusal?: Refusal;
};

/** A breaking change refused: what breaks, and what it would strand. */
interface Refusal {
  typeName: string;
  breaking: Change[];
  violations: Violations;
  /** Operations on the type not ended yet (each may write a resource under the current version). */
  inProgress: number;
}

/** A breaking change while resources exist: the changes that break, and the resources the new version refuses. */
function breakingRefused(refusals: Refusal[], how: 'register' | 'set-default'): TypeplaneError {
  const details: ErrorDetail[] = [];
  const sentences: string[] = [];
  const what = how === 'register' ? 'the new version' : 'that version';
  for (const { typeName, breaking, violations, inProgress } of refusals) {
    const busy =
      inProgress > 0 ? ` and ${inProgress} operation${inProgress === 1 ? ' is' : 's are'} in progress` : '';
    sentences.push(
      `${typeName}: ${breaking.length} breaking change${breaking.length === 1 ? '' : 's'} (first: ${breaking[0]!.rule} ${breaking[0]!.message}) while ${violations.total} resource${violations.total === 1 ? ' exists' : 's exist'}${busy}, ${violations.count} of the ${violations.checked} checked violating ${what}${violations.identifiers.length > 0 ? ` (${violations.identifiers.join(', ')})` : ''}`,
    );
    for (const change of breaking) details.push({ ...change });
    details.push({
      pointer: '',
      typeName,
      message: `${violations.count} of ${violations.checked} resources checked (of ${violations.total}) violate ${what}${busy}`,
      violations,
      operationsInProgress: inProgress,
    });
  }
  const anyway =
    how === 'register'
      ? "Register it anyway with allowBreaking=true ('typeplane type register --allow-breaking')"
      : "Make it the default anyway with allowBreaking=true ('typeplane type set-default --allow-breaking')";
  return new TypeplaneError(
    'ResourceConflict',
    `breaking change refused: ${sentences.join('; ')}. ${anyway}; resources that violate it stay as they are and their updates are checked against it, except for values an update leaves unchanged`,
    details,
  );
}

/** Registrations or resources kept getting in first, every time: the caller may send it again. */
function keptChanging(error: TypeChangedMeanwhile): TypeplaneError {
  return new TypeplaneError(
    'ResourceConflict',
    `${error.typeName} kept changing while its new default version was being decided (${error.reason}); send the request again`,
  );
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

/** A registered type asked for a version it does not have. */
export class TypeVersionNotRegistered extends TypeplaneError {
  constructor(
    readonly typeName: string,
    readonly version: string,
    versions: readonly string[],
  ) {
    super(
      'NotFound',
      `${typeName} has no version ${JSON.stringify(version)}; its versions are ${versions.join(', ')}`,
    );
  }
}

function notRegistered(typeName: string): TypeplaneError {
  return new TypeNotRegistered(typeName);
}

/**
 * @module Recipes: types implemented by a template of other types, with no provider code. An admin
 * registers a recipe for a type in an environment (checked against the type first); an instance of
 * the type is then made, changed and deleted by its recipe, run as a stack of its own with the rights
 * the recipe was registered with. See docs/recipes.md.
 */
import type { Engine, Caller, ProgressEvent } from '../engine/index.js';
import { TypeplaneError } from '../errors.js';
import type { Provider } from '../handler/types.js';
import type { Registry } from '../registry/registry.js';
import type { Diagnostic, ResourceType } from '../schema/index.js';
import type { Sealer } from '../secrets/index.js';
import { MASK, type PlannedChange, type ResourceDrift, type Stacks } from '../stacks/index.js';
import type { Store } from '../store/types.js';
import { checkRecipe } from './check.js';
import { loadRecipeTemplate } from './parsed.js';
import { adoptStack } from './adopt.js';
import { bindInstance, callerFor, grantsOf } from './instance-stack.js';
import {
  createRecipeProvider,
  DEFAULT_ENVIRONMENT,
  DEFAULT_RECIPE,
  TEMPLATE_KIND,
  type RecipeRuntime,
} from './provider.js';
import {
  digestOf,
  RecipeStore,
  type EnvironmentRecord,
  type RecipeHead,
  type RecipeVersion,
} from './records.js';

/** Environment and recipe names: as Radius's resource names, short and safe in paths. */
const NAME = /^[A-Za-z][A-Za-z0-9-]{0,62}$/;
const MAX_PARAMETERS = 100;
/** Template kinds one could add: each needs a runner this server has (docs/recipes.md). */
export const TEMPLATE_KINDS = [TEMPLATE_KIND] as const;

export interface RecipesOptions {
  stacks: Stacks;
  registry: Registry;
  store: Store;
  sealer: Sealer;
  engine: Engine;
  /** The provider serving a type otherwise (a recipe implements a type no provider serves). */
  servedBy(typeName: string): string | undefined;
  pollIntervalMs?: number;
  /** How long one handler call waits for its stack before answering IN_PROGRESS (default 1 s). */
  handlerWaitMs?: number;
  log?: { warn(obj: object, msg: string): void };
}

/** A recipe version as answers show it: the template and NoEcho parameter values aside. */
export interface RecipeView {
  environment: string;
  typeName: string;
  name: string;
  version: number;
  latest: number;
  templateKind: string;
  templatePath: string;
  parameters: Record<string, unknown>;
  types: string[];
  registeredAt: string;
  registeredBy?: string;
  template?: string;
}

export class Recipes {
  readonly records: RecipeStore;
  readonly provider: Provider;
  private readonly runtime: RecipeRuntime;
  private backed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly pollIntervalMs: number;

  constructor(private readonly options: RecipesOptions) {
    this.records = new RecipeStore(options.store, options.sealer);
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.runtime = {
      stacks: options.stacks,
      records: this.records,
      engine: options.engine,
      mac: (data) => options.sealer.mac(data),
      typeOf: async (typeName) => (await options.registry.get(typeName)).type,
      waitMs: options.handlerWaitMs ?? 1_000,
    };
    this.provider = createRecipeProvider(this.runtime);
  }

  /** Whether a recipe (in any environment) implements `typeName`: its operations go to the recipe provider. */
  backs(typeName: string): boolean {
    return this.backed.has(typeName);
  }

  /** Learn which types recipes back, and keep learning (another replica registers some). */
  async start(): Promise<void> {
    await this.refresh();
    const poll = () => {
      this.refresh().catch((e: unknown) =>
        this.options.log?.warn({ err: String(e) }, 'reading recipes failed'),
      );
      this.timer = setTimeout(poll, this.pollIntervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(poll, this.pollIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private async refresh(): Promise<void> {
    // Once backed, a type stays so: a deleted recipe leaves the instances it made served.
    for (const t of await this.records.backedTypes()) this.backed.add(t);
  }

  // ---- Environments ----

  async createEnvironment(name: string, description?: string): Promise<EnvironmentRecord> {
    checkName('environment', name);
    const now = new Date().toISOString();
    const env: EnvironmentRecord = {
      name,
      ...(description ? { description } : {}),
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.records.insertEnvironment(env)))
      throw new TypeplaneError('AlreadyExists', `environment ${name} already exists`);
    return env;
  }

  async environment(name: string): Promise<EnvironmentRecord & { recipes: RecipeView[] }> {
    const env = await this.records.getEnvironment(name);
    if (!env) {
      if (name === DEFAULT_ENVIRONMENT) {
        const recipes = await this.list({ environment: name });
        const now = new Date(0).toISOString();
        return { name, createdAt: now, updatedAt: now, recipes };
      }
      throw environmentNotFound(name);
    }
    return { ...env, recipes: await this.list({ environment: name }) };
  }

  async environments(): Promise<EnvironmentRecord[]> {
    const envs = await this.records.listEnvironments();
    if (!envs.some((e) => e.name === DEFAULT_ENVIRONMENT)) {
      const now = new Date(0).toISOString();
      envs.unshift({
        name: DEFAULT_ENVIRONMENT,
        description: 'where resources go that name no environment',
        createdAt: now,
        updatedAt: now,
      });
    }
    return envs;
  }

  async deleteEnvironment(name: string): Promise<void> {
    const recipes = (await this.records.listHeads()).filter((h) => h.environment === name);
    if (recipes.length > 0)
      throw new TypeplaneError(
        'ResourceConflict',
        `environment ${name} still has recipes (${recipes
          .map((r) => `${r.typeName} ${r.name}`)
          .slice(0, 5)
          .join(', ')}): delete them first`,
      );
    if (!(await this.records.deleteEnvironment(name)) && name !== DEFAULT_ENVIRONMENT)
      throw environmentNotFound(name);
  }

  // ---- Recipes ----

  /** Check a recipe against its type without registering it: every problem, located. */
  async check(input: RegisterInput): Promise<{ valid: boolean; diagnostics: Diagnostic[]; types: string[] }> {
    const type = await this.recipeType(input.typeName);
    const result = await checkRecipe({
      text: input.template,
      ...(input.file ? { file: input.file } : {}),
      type,
      parameters: input.parameters ?? {},
      validate: async (text) => this.options.stacks.validate(text, undefined),
      lowerType: async (name) => {
        try {
          return (await this.options.registry.get(name)).type;
        } catch {
          return undefined;
        }
      },
    });
    const diagnostics = [...result.diagnostics];
    if (result.types.includes(type.typeName) || (await this.cycle(type.typeName, result.types)))
      diagnostics.push({
        severity: 'error',
        rule: 'TP7002',
        pointer: '/Resources',
        message: `the recipe makes ${type.typeName} itself (directly or through another recipe): it would never end`,
        line: 1,
        column: 1,
      });
    return { valid: !diagnostics.some((d) => d.severity === 'error'), diagnostics, types: result.types };
  }

  /** Register a recipe for a type in an environment: a new version when it differs from the latest. */
  async register(
    input: RegisterInput,
  ): Promise<{ recipe: RecipeView; created: boolean; diagnostics: Diagnostic[] }> {
    const environment = input.environment ?? DEFAULT_ENVIRONMENT;
    const name = input.name ?? DEFAULT_RECIPE;
    checkName('recipe', name);
    checkName('environment', environment);
    const kind = input.templateKind ?? TEMPLATE_KIND;
    if (kind !== TEMPLATE_KIND)
      throw new TypeplaneError(
        'InvalidRequest',
        `templateKind ${kind} cannot run on this server: it runs ${TEMPLATE_KINDS.join(', ')} templates (CloudFormation format, JSON or YAML); see docs/recipes.md for how another kind would be added`,
      );
    if (environment !== DEFAULT_ENVIRONMENT && !(await this.records.getEnvironment(environment)))
      throw environmentNotFound(environment);
    const parameters = input.parameters ?? {};
    if (Object.keys(parameters).length > MAX_PARAMETERS)
      throw new TypeplaneError('InvalidRequest', `a recipe takes at most ${MAX_PARAMETERS} parameters`);
    // Resources another provider made are not a recipe's: it would find no instance behind them.
    if (!this.backed.has(input.typeName)) {
      const existing = await this.options.store.countResources(input.typeName);
      if (existing > 0)
        throw new TypeplaneError(
          'ResourceConflict',
          `${input.typeName} has ${existing} resource${existing === 1 ? '' : 's'} made without a recipe: a recipe would not know ${existing === 1 ? 'it' : 'them'}; delete ${existing === 1 ? 'it' : 'them'} first, or give the recipe a type of its own`,
        );
    }
    const checked = await this.check(input);
    if (!checked.valid)
      throw new TypeplaneError(
        'InvalidRequest',
        `the recipe does not fit ${input.typeName}: ${checked.diagnostics.filter((d) => d.severity === 'error').length} errors`,
        checked.diagnostics.map((d) => ({ ...d, pointer: d.pointer })),
      );
    const digest = digestOf([kind, input.template, parameters]);
    const head = await this.records.getHead(environment, input.typeName, name);
    if (head) {
      const latest = await this.records.getVersion(environment, input.typeName, name, head.latest);
      if (latest?.digest === digest)
        return { recipe: view(latest, head.latest), created: false, diagnostics: checked.diagnostics };
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const version: RecipeVersion = {
        environment,
        typeName: input.typeName,
        name,
        version: (await this.records.lastNumber(environment, input.typeName, name)) + 1,
        templateKind: kind,
        templatePath: input.file ?? `${name}.template`,
        template: input.template,
        parameters,
        grants: checked.types,
        digest,
        registeredAt: new Date().toISOString(),
        ...(input.by ? { registeredBy: input.by } : {}),
      };
      if (await this.records.addVersion(version)) {
        this.backed.add(input.typeName);
        return { recipe: view(version, version.version), created: true, diagnostics: checked.diagnostics };
      }
    }
    throw new TypeplaneError(
      'ResourceConflict',
      `recipe ${name} was registered by someone else meanwhile; try again`,
    );
  }

  async list(filter: { environment?: string; typeName?: string } = {}): Promise<RecipeView[]> {
    const heads = (await this.records.listHeads()).filter(
      (h) =>
        (filter.environment === undefined || h.environment === filter.environment) &&
        (filter.typeName === undefined || h.typeName === filter.typeName),
    );
    const out: RecipeView[] = [];
    for (const h of heads) {
      const v = await this.records.getVersion(h.environment, h.typeName, h.name, h.latest);
      if (v) out.push(view(v, h.latest));
    }
    return out;
  }

  async show(
    environment: string,
    typeName: string,
    name: string,
    version?: number,
  ): Promise<RecipeView & { template: string }> {
    const head = await this.records.getHead(environment, typeName, name);
    const v = await this.records.getVersion(environment, typeName, name, version ?? head?.latest ?? 0);
    if (!v)
      throw new TypeplaneError(
        'NotFound',
        `environment ${environment} has no recipe ${name}${version !== undefined ? `@${version}` : ''} for ${typeName}`,
      );
    return { ...view(v, head?.latest ?? v.version), template: v.template };
  }

  /** Delete a recipe: new instances cannot use it; instances it made keep the version they ran. */
  async delete(environment: string, typeName: string, name: string): Promise<void> {
    if (!(await this.records.deleteHead(environment, typeName, name)))
      throw new TypeplaneError(
        'NotFound',
        `environment ${environment} has no recipe ${name} for ${typeName}`,
      );
  }

  // ---- Instances ----

  /** What moving an instance to its recipe's latest version would change, as a stack plan. */
  async upgradePlan(typeName: string, identifier: string): Promise<UpgradePlan> {
    const { record: held, head } = await this.instance(typeName, identifier);
    const latest = (await this.records.getVersion(held.environment, typeName, held.recipe, head.latest))!;
    if (!held.model)
      throw new TypeplaneError('ResourceConflict', `${typeName} ${identifier} is not ready yet`);
    const type = (await this.options.registry.get(typeName)).type;
    const record = await adoptStack(this.runtime, type, held);
    // Bound as the upgrade will bind it: the instance's own parameters and application included.
    const bound = bindInstance(type, record, latest, held.model);
    const plan = await this.options.stacks.plan(record.stack, bound.text, bound.parameters, grantsOf(latest));
    const shown = await this.options.stacks.getPlan(record.stack, plan.planId);
    return {
      typeName,
      identifier,
      recipe: record.recipe,
      environment: record.environment,
      from: record.version,
      to: latest.version,
      changes: shown.changes,
    };
  }

  /** Move an instance to its recipe's latest version: an update of the instance, as `caller`. */
  async upgrade(typeName: string, identifier: string, caller?: Caller): Promise<ProgressEvent> {
    const { record, head, writtenBy } = await this.instance(typeName, identifier);
    if (record.phase === 'deleting')
      throw new TypeplaneError('NotFound', `${typeName} ${identifier} is being deleted`);
    if (record.version === head.latest && record.upgradeTo === undefined)
      throw new TypeplaneError(
        'InvalidRequest',
        `${typeName} ${identifier} already runs recipe ${record.recipe}@${record.version}, the latest`,
      );
    const { type } = await this.options.registry.get(typeName);
    if (!(await this.records.swapInstance(type, { ...record, upgradeTo: head.latest }, writtenBy)))
      throw new TypeplaneError(
        'ResourceConflict',
        `${typeName} ${identifier} changed while its upgrade was asked for; ask again`,
      );
    return this.options.engine.update(typeName, identifier, [], undefined, caller);
  }

  /** Drift of the instance's resources: each read through its provider, compared with what the recipe applied. */
  async drift(
    typeName: string,
    identifier: string,
    visible: (typeName: string) => boolean,
  ): Promise<{
    typeName: string;
    identifier: string;
    status: 'IN_SYNC' | 'DRIFTED';
    resources: Partial<ResourceDrift>[];
  }> {
    const { record: held } = await this.instance(typeName, identifier);
    const type = (await this.options.registry.get(typeName)).type;
    const record = await adoptStack(this.runtime, type, held);
    const drift = await this.options.stacks.drift(record.stack);
    const resources = drift.resources.map((r) =>
      visible(r.type)
        ? r
        : // A resource the caller may not see: its state only, not what or where it is.
          {
            logicalId: r.logicalId,
            status: r.status,
            differences: r.differences.map((d) => ({
              path: d.path,
              kind: d.kind,
              ...(d.expected !== undefined ? { expected: MASK } : {}),
              ...(d.actual !== undefined ? { actual: MASK } : {}),
            })),
          },
    );
    return {
      typeName,
      identifier,
      status: drift.resources.every((r) => r.status === 'IN_SYNC') ? 'IN_SYNC' : 'DRIFTED',
      resources,
    };
  }

  private async instance(typeName: string, identifier: string) {
    const held = await this.records.getInstance(typeName, identifier);
    if (!held)
      throw new TypeplaneError(
        'NotFound',
        `${typeName} ${identifier} was not made by a recipe (or does not exist)`,
      );
    const head = await this.records.getHead(held.record.environment, typeName, held.record.recipe);
    if (!head)
      throw new TypeplaneError(
        'NotFound',
        `recipe ${held.record.recipe} of environment ${held.record.environment} was deleted: ${typeName} ${identifier} keeps version ${held.record.version}`,
      );
    return { record: held.record, head, writtenBy: held.writtenBy };
  }

  private async recipeType(typeName: string): Promise<ResourceType> {
    const type = (await this.options.registry.get(typeName)).type;
    const provider = this.options.servedBy(typeName);
    if (provider !== undefined)
      throw new TypeplaneError(
        'InvalidRequest',
        `${typeName} is served by the provider ${provider}: a recipe implements a type no provider serves`,
      );
    return type;
  }

  /** Whether a recipe making `types` for `typeName` would close a loop through other recipes. */
  private async cycle(typeName: string, types: string[]): Promise<boolean> {
    const heads = await this.records.listHeads();
    const seen = new Set<string>();
    const stack = [...types];
    while (stack.length > 0) {
      const t = stack.pop()!;
      if (t === typeName) return true;
      if (seen.has(t)) continue;
      seen.add(t);
      for (const h of heads.filter((x) => x.typeName === t)) {
        const v = await this.records.getVersion(h.environment, h.typeName, h.name, h.latest);
        if (v) stack.push(...v.grants);
      }
    }
    return false;
  }
}

export interface RegisterInput {
  typeName: string;
  template: string;
  file?: string;
  name?: string;
  environment?: string;
  parameters?: Record<string, unknown>;
  templateKind?: string;
  by?: string;
}

export interface UpgradePlan {
  typeName: string;
  identifier: string;
  recipe: string;
  environment: string;
  from: number;
  to: number;
  changes: PlannedChange[];
}

function view(v: RecipeVersion, latest: number): RecipeView {
  const template = loadRecipeTemplate(v.template).template;
  const noEcho = new Set(
    [...(template?.parameters.values() ?? [])].filter((p) => p.noEcho).map((p) => p.name),
  );
  return {
    environment: v.environment,
    typeName: v.typeName,
    name: v.name,
    version: v.version,
    latest,
    templateKind: v.templateKind,
    templatePath: v.templatePath,
    // NoEcho values are the template's to know: an answer never carries parameter values that may be secrets.
    parameters: Object.fromEntries(
      Object.keys(v.parameters).map((k) => [k, noEcho.has(k) ? MASK : v.parameters[k]]),
    ),
    types: v.grants,
    registeredAt: v.registeredAt,
    ...(v.registeredBy ? { registeredBy: v.registeredBy } : {}),
  };
}

function checkName(what: string, name: string): void {
  if (!NAME.test(name))
    throw new TypeplaneError(
      'InvalidRequest',
      `${what} name '${name.slice(0, 64)}' is not valid: a letter, then letters, digits and '-', at most 63`,
    );
}

function environmentNotFound(name: string): TypeplaneError {
  return new TypeplaneError(
    'NotFound',
    `environment ${name} does not exist: create it (typeplane environment create ${name})`,
  );
}

export { callerFor, type RecipeHead };

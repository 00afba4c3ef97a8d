/**
 * @module The provider every recipe-backed type is served by: its handlers keep the whole contract by
 * running the instance's recipe as a stack of its own (one per instance, named from the type and the
 * identifier). A handler starts (or, re-invoked, resumes) the stack's deployment, waits a little for
 * it, and answers IN_PROGRESS until it ends; a crash between two calls loses nothing, since the
 * deployment is the stacks' (resumed under their lease) and is started again by the same client token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isErrorCode, TypeplaneError, type ErrorCode } from '../errors.js';
import type { HandlerEvent, HandlerRequest, Provider } from '../handler/types.js';
import { identifierOf, resolverOf, stripWriteOnly, type Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import type { BufferedDeployment, StackState, StackView, Stacks } from '../stacks/index.js';
import { applicationOf, environmentOf, underWriteOnly, type RecipeContext } from './context.js';
import { bindRecipe, type Bound } from './bind.js';
import type { InstanceRecord, RecipeStore, RecipeVersion } from './records.js';
import { outputTargets, readSpec, RESULT } from './spec.js';
import { loadRecipeTemplate } from './parsed.js';

export const RECIPE_PROVIDER_NAME = 'recipes';
export const DEFAULT_ENVIRONMENT = 'default';
export const DEFAULT_RECIPE = 'default';
export const TEMPLATE_KIND = 'cloudformation';

export interface RecipeRuntime {
  stacks: Stacks;
  records: RecipeStore;
  typeOf(typeName: string): Promise<ResourceType>;
  /** How long one handler call waits for the stack before answering IN_PROGRESS. */
  waitMs: number;
}

/** Where a handler is, kept between its calls. */
interface Progress {
  deploymentId: string;
  startedAt: string;
  /** The recipe version being applied (a version registered meanwhile is the next update's). */
  version?: number;
  /** A failed create being cleaned up: the failure to report once the stack is gone. */
  failure?: { code: ErrorCode; message: string };
}

/** The instance's stack: one per (type, identifier), a name no template chooses by chance. */
export function stackNameOf(typeName: string, identifier: string): string {
  return `tp-recipe-${createHash('sha256').update(`${typeName}\n${identifier}`).digest('hex').slice(0, 32)}`;
}

/** Whether a stack name is one of an instance's (reserved: no one deploys to it directly). */
export function isRecipeStack(name: string): boolean {
  return name.startsWith('tp-recipe-');
}

/**
 * An instance's stack deploys as its recipe: admission policies see role `recipe` (and the instance's
 * stack); the instance's own create or update was reviewed as the token that asked for it.
 */
export function callerFor(version: RecipeVersion): {
  id: string;
  types: string[];
  role: string;
  description: string;
} {
  return {
    id: `recipe:${version.environment}/${version.typeName}/${version.name}@${version.version}`,
    types: version.grants,
    role: 'recipe',
    description: `recipe ${version.name}@${version.version} of environment ${version.environment}`,
  };
}

/** The stacks' authorizer for a recipe: it may use exactly the types it was registered with. */
export function grantsOf(version: RecipeVersion): (typeNames: string[]) => void {
  return (typeNames) => {
    for (const t of typeNames)
      if (!version.grants.includes(t))
        throw new TypeplaneError(
          'AccessDenied',
          `recipe ${version.name}@${version.version} was registered to make ${version.grants.join(', ') || 'nothing'}, not ${t}; register it again`,
        );
  };
}

/** The recipe a model names (`recipe.name`), else the environment's default one. */
function recipeNameOf(model: Model): string {
  const recipe = model.recipe;
  return typeof recipe === 'object' &&
    recipe !== null &&
    typeof (recipe as { name?: unknown }).name === 'string'
    ? (recipe as { name: string }).name
    : DEFAULT_RECIPE;
}

/**
 * The template and parameters an instance's stack gets from `version` of its recipe: what a deploy
 * applies, and what an upgrade's plan shows (the same binding, so the plan is what will happen).
 */
export function bindInstance(
  type: ResourceType,
  record: InstanceRecord,
  version: RecipeVersion,
  desired: Model,
): Bound {
  const application = applicationOf(desired);
  const recipe = desired.recipe;
  const overrides =
    typeof recipe === 'object' && recipe !== null && !Array.isArray(recipe)
      ? (recipe as { parameters?: unknown }).parameters
      : undefined;
  const context: RecipeContext = {
    resource: {
      name: record.identifier,
      id: `${type.typeName}/${record.identifier}`,
      type: type.typeName,
      properties: desired,
    },
    environment: { name: record.environment },
    application: application !== undefined ? { name: application } : {},
    recipe: { name: record.recipe, version: version.version },
  };
  return bindRecipe({
    template: version.template,
    type,
    context,
    defaults: version.parameters,
    generated: record.generated,
    overrides:
      typeof overrides === 'object' && overrides !== null && !Array.isArray(overrides)
        ? (overrides as Record<string, unknown>)
        : {},
  });
}

const FAILED_CREATE = new Set(['ROLLBACK_COMPLETE', 'CREATE_FAILED', 'ROLLBACK_FAILED']);
const FAILED_UPDATE = new Set(['UPDATE_ROLLBACK_COMPLETE', 'UPDATE_ROLLBACK_FAILED', 'UPDATE_FAILED']);
const DONE = new Set(['CREATE_COMPLETE', 'UPDATE_COMPLETE']);

const failed = (code: ErrorCode, message: string): HandlerEvent => ({
  status: 'FAILED',
  errorCode: code,
  message,
});

/** A deployment's id derived from the instance's stack and the create's client token: the same when run again. */
export function deploymentIdOf(stack: string, token: string): string {
  const h = createHash('sha256').update(`${stack}\n${token}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** Whether `done` settled within `ms`. */
function within(done: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    done.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(resolve, ms, false);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** How long an ended buffered deployment is kept for its handler's next call (which comes at once). */
const KEEP_ENDED_MS = 60_000;

export function createRecipeProvider(runtime: RecipeRuntime): Provider {
  const { stacks, records } = runtime;
  /** Buffered deployments running (or just ended) in this process, by id. */
  const inline = new Map<string, BufferedDeployment>();
  const remember = (run: BufferedDeployment) => {
    const id = run.deploymentId;
    inline.set(id, run);
    // Its handler forgets it when it sees it end; one whose operation never came back is forgotten
    // later (the timer holds its id only: an ended deployment is not kept alive by it).
    void run.done.then(() => setTimeout(() => inline.delete(id), KEEP_ENDED_MS).unref());
  };

  const versionOf = async (record: InstanceRecord, version = record.version): Promise<RecipeVersion> => {
    const found = await records.getVersion(record.environment, record.typeName, record.recipe, version);
    if (!found)
      throw new TypeplaneError(
        'InternalFailure',
        `recipe ${record.recipe}@${version} of environment ${record.environment} is missing from the store`,
      );
    return found;
  };

  /** Start (or, with the same token, find again) the instance's deployment. */
  const deploy = async (
    type: ResourceType,
    record: InstanceRecord,
    version: RecipeVersion,
    desired: Model,
    token: string,
  ): Promise<Progress> => {
    const bound = bindInstance(type, record, version, desired);
    const started = await stacks.deploy(record.stack, bound.text, bound.parameters, {
      clientToken: `recipe-${token}`,
      authorize: grantsOf(version),
      caller: callerFor(version),
    });
    return { deploymentId: started.deploymentId, startedAt: started.startedAt, version: version.version };
  };

  const stackExists = async (name: string): Promise<boolean> => {
    try {
      await stacks.describe(name);
      return true;
    } catch (e) {
      if (e instanceof TypeplaneError && e.code === 'NotFound') return false;
      throw e;
    }
  };

  /** The underlying failure: the first resource that failed in this deployment, its code and words. */
  const failureOf = async (name: string, progress: Progress, view: StackState | undefined) =>
    failureIn(
      async () =>
        (
          await stacks.events(name, {
            after: String(Date.parse(progress.startedAt) - 1),
            limit: 200,
          })
        ).events,
      view,
    );

  /** The first resource that failed among the events `list` gives, its code and words. */
  const failureIn = async (
    list: () => Promise<{ type: string; status: string; reason?: string; logicalId: string }[]>,
    view: StackState | undefined,
  ) => {
    try {
      const events = await list();
      const first = events.find(
        (e) => e.type !== 'Typeplane::Stack' && e.status.endsWith('_FAILED') && e.reason,
      );
      if (first?.reason) {
        const m = /^([A-Za-z]+): ([\s\S]*)$/.exec(first.reason);
        if (m && isErrorCode(m[1])) return { code: m[1], message: `${first.logicalId}: ${m[2]}` };
        return {
          code: 'GeneralServiceException' as ErrorCode,
          message: `${first.logicalId}: ${first.reason}`,
        };
      }
    } catch {
      // the events are gone with the stack: its reason says enough
    }
    return {
      code: 'GeneralServiceException' as ErrorCode,
      message: view?.statusReason ?? 'the recipe failed',
    };
  };

  /** Still running after the handler's wait: how far it got (the only answer that lists the resources). */
  const running = async (progress: Progress, record: InstanceRecord): Promise<HandlerEvent> => {
    let resources: { status: string }[] = [];
    try {
      resources = (await stacks.describe(record.stack)).resources;
    } catch (e) {
      if (!(e instanceof TypeplaneError && e.code === 'NotFound')) throw e;
    }
    const total = resources.length;
    const done = resources.filter((r) => r.status.endsWith('_COMPLETE')).length;
    return {
      status: 'IN_PROGRESS',
      callbackContext: progress as unknown as Record<string, unknown>,
      callbackDelaySeconds: 0,
      message: `recipe ${record.recipe}@${record.version} (environment ${record.environment}): ${done} of ${total} resources done`,
    };
  };

  /** The model an instance reports: what was asked, with the recipe's outputs where they land. */
  const modelOf = async (
    type: ResourceType,
    record: InstanceRecord,
    version: RecipeVersion,
    desired: Model,
    run?: BufferedDeployment,
  ): Promise<Model> => {
    const model = structuredClone(desired);
    const outputs = await (run ? run.outputValues() : stacks.outputValues(record.stack));
    const loaded = loadRecipeTemplate(version.template);
    const doc = (loaded.template?.document.value ?? {}) as Record<string, unknown>;
    const { targets } = outputTargets(type, doc, readSpec(doc).spec);
    for (const target of targets) {
      const output = outputs.find((o) => o.name === target.output);
      if (!output) continue; // its Condition was false
      let value = output.value;
      if (target.part) {
        const section = (value as Record<string, Record<string, unknown>> | null)?.[target.part.section];
        value = section?.[target.part.key];
      } else if (output.secret && !underWriteOnly(type, target.path))
        throw new TypeplaneError(
          'InternalFailure',
          `output ${target.output} is a secret, and ${target.path.join('.')} is not write-only: the recipe must map it to a write-only property`,
        );
      if (value === undefined) continue;
      setPath(model, target.path, value);
    }
    if (resolverOf(type).resolves('/properties/status/recipe'))
      setPath(model, ['status', 'recipe'], {
        templateKind: version.templateKind,
        templatePath: version.templatePath,
        templateVersion: String(version.version),
      });
    return model;
  };

  /** After the stack's deployment ended well: the instance as it now is. */
  const succeed = async (
    type: ResourceType,
    record: InstanceRecord,
    version: RecipeVersion,
    desired: Model,
    token: string,
    run?: BufferedDeployment,
  ): Promise<HandlerEvent> => {
    const model = await modelOf(type, record, version, desired, run);
    const next: InstanceRecord = { ...record, version: version.version, model, phase: 'ready' };
    delete next.upgradeTo;
    await records.replaceInstance(next, token);
    return { status: 'SUCCESS', resourceModel: model };
  };

  const identified = async (request: HandlerRequest) => {
    const type = await runtime.typeOf(request.typeName);
    const identifier = identifierOf(type, request.desiredState);
    if (identifier === undefined)
      throw new TypeplaneError(
        'InvalidRequest',
        `the model has no primary identifier (${type.primaryIdentifier.join(', ')})`,
      );
    return { type, identifier };
  };

  const handle =
    (fn: (request: HandlerRequest) => Promise<HandlerEvent>) => async (request: HandlerRequest) => {
      try {
        return await fn(request);
      } catch (e) {
        if (e instanceof TypeplaneError) return failed(e.code, e.message);
        throw e;
      }
    };

  const create = async (request: HandlerRequest): Promise<HandlerEvent> => {
    const { type, identifier } = await identified(request);
    const token = request.clientRequestToken;
    const desired = request.desiredState;
    const progress = request.callbackContext as Progress | undefined;
    let held = await records.getInstance(type.typeName, identifier);
    /** The recipe version read for a new instance: not read again below. */
    let fresh: RecipeVersion | undefined;
    if (held && held.record.createdBy !== token)
      return failed('AlreadyExists', `${type.typeName} ${identifier} already exists`);
    if (progress?.failure) return cleanUp(type, held?.record, progress);
    if (!held) {
      const environment = environmentOf(desired, DEFAULT_ENVIRONMENT);
      const recipeName = recipeNameOf(desired);
      const head = await records.getHead(environment, type.typeName, recipeName);
      if (!head) {
        const env = await records.getEnvironment(environment);
        return failed(
          'InvalidRequest',
          env || environment === DEFAULT_ENVIRONMENT
            ? `environment ${environment} has no recipe ${recipeName} for ${type.typeName}: an admin registers one (typeplane recipe register ${type.typeName} <template> --environment ${environment}${recipeName === DEFAULT_RECIPE ? '' : ` --name ${recipeName}`})`
            : `environment ${environment} does not exist: an admin creates it (typeplane environment create ${environment}), or name another`,
        );
      }
      const version = await records.getVersion(environment, type.typeName, recipeName, head.latest);
      if (!version)
        return failed('InternalFailure', `recipe ${recipeName}@${head.latest} is missing from the store`);
      const generated: Record<string, string> = {};
      const loaded = loadRecipeTemplate(version.template);
      const doc = (loaded.template?.document.value ?? {}) as Record<string, unknown>;
      for (const name of readSpec(doc).spec.generated)
        generated[name] = randomBytes(24).toString('base64url');
      const record: InstanceRecord = {
        typeName: type.typeName,
        identifier,
        environment,
        recipe: recipeName,
        version: head.latest,
        stack: stackNameOf(type.typeName, identifier),
        generated,
        createdBy: token,
        phase: 'creating',
      };
      if (!(await records.insertInstance(record, token))) {
        held = await records.getInstance(type.typeName, identifier);
        if (!held || held.record.createdBy !== token)
          return failed('AlreadyExists', `${type.typeName} ${identifier} already exists`);
      } else {
        held = { record, writtenBy: token };
        fresh = version;
      }
    }
    const record = held.record;
    const version = fresh ?? (await versionOf(record));
    let current = progress;
    const deploymentId = progress?.deploymentId ?? deploymentIdOf(record.stack, token);
    let run = inline.get(deploymentId);
    try {
      // A new instance's stack deploys with its records held (the stacks' buffered deployment): run
      // again after a crash that lost them, it replays the operations it had begun.
      if (!run && !progress && (fresh || !(await stackExists(record.stack)))) {
        const bound = bindInstance(type, record, version, desired);
        run = await stacks.deployBuffered(record.stack, bound.text, bound.parameters, {
          deploymentId,
          authorize: grantsOf(version),
          caller: callerFor(version),
        });
        remember(run);
      }
      if (!run) current ??= await deploy(type, record, version, desired, token);
    } catch (e) {
      // Refused before its stack began (a value the recipe does not take): nothing was made, so the
      // name stays free for a create that fits.
      if (record.phase === 'creating' && !(await stackExists(record.stack)))
        await records.deleteInstance(type.typeName, record.identifier);
      throw e;
    }
    if (run) {
      const at: Progress = { deploymentId, startedAt: run.startedAt, version: version.version };
      if (!(await within(run.done, runtime.waitMs))) {
        // Still running: its records are written from now on, so that it is seen and resumed.
        if (!run.flushed) await run.flush();
        return running(at, record);
      }
      inline.delete(deploymentId);
      if (!run.flushed) {
        const ended = await run.state();
        const over = ended !== undefined && ended.deploymentId === undefined;
        if (over && DONE.has(ended.status)) {
          await run.flush();
          return succeed(type, record, version, desired, token, run);
        }
        if (!over || !FAILED_CREATE.has(ended.status))
          // Stopped before its end (this server stops): nothing of it was written. The next call runs
          // it again, with the same id, here or on the replica that takes the operation over.
          return {
            status: 'IN_PROGRESS',
            callbackDelaySeconds: 1,
            message: `recipe ${record.recipe}@${version.version} (environment ${record.environment}): stopped with this server, to be run again`,
          };
        // Failed (rare): its stack is written as it ended, then deleted as any failed create's is, so
        // that its events stay listed with the deleted stacks.
        const failure = await failureIn(() => run!.events(200), ended);
        await run.flush();
        return cleanUp(type, record, { ...at, failure });
      }
      current ??= at;
    }
    if (current === undefined)
      throw new TypeplaneError(
        'InternalFailure',
        `the recipe of ${type.typeName} ${identifier} did not start`,
      );
    const view = await stacks.waitForState(record.stack, current.deploymentId, runtime.waitMs);
    if (view && DONE.has(view.status) && view.deploymentId === undefined)
      return succeed(type, record, version, desired, token);
    if (
      view &&
      (FAILED_CREATE.has(view.status) || FAILED_UPDATE.has(view.status)) &&
      view.deploymentId === undefined
    ) {
      const failure = await failureOf(record.stack, current, view);
      return cleanUp(type, record, { ...current, failure });
    }
    return running(current, record);
  };

  /** A create failed: the stack (rolled back) goes too, then the record; the failure is reported. */
  const cleanUp = async (
    type: ResourceType,
    record: InstanceRecord | undefined,
    progress: Progress,
  ): Promise<HandlerEvent> => {
    const failure = progress.failure!;
    if (!record) return failed(failure.code, failure.message);
    let view: StackView | undefined;
    try {
      view = await stacks.describe(record.stack);
    } catch (e) {
      if (!(e instanceof TypeplaneError && e.code === 'NotFound')) throw e;
    }
    if (view) {
      let deploymentId = view.deploymentId;
      if (deploymentId === undefined) {
        const version = await versionOf(record);
        deploymentId = (await stacks.delete(record.stack, grantsOf(version), callerFor(version)))
          .deploymentId;
      }
      const after = await stacks.waitForState(record.stack, deploymentId, runtime.waitMs);
      if (after) {
        if (after.status === 'DELETE_FAILED' && after.deploymentId === undefined)
          return failed(
            failure.code,
            `${failure.message} (and its resources could not all be removed: ${after.statusReason ?? 'DELETE_FAILED'})`,
          );
        return {
          status: 'IN_PROGRESS',
          callbackContext: progress as unknown as Record<string, unknown>,
          callbackDelaySeconds: 0,
          message: 'the recipe failed: removing what it made',
        };
      }
    }
    await records.deleteInstance(type.typeName, record.identifier);
    return failed(failure.code, failure.message);
  };

  const update = async (request: HandlerRequest): Promise<HandlerEvent> => {
    const { type, identifier } = await identified(request);
    const token = request.clientRequestToken;
    const held = await records.getInstance(type.typeName, identifier);
    if (!held || held.record.phase === 'creating')
      return failed('NotFound', `${type.typeName} ${identifier} does not exist`);
    const record = held.record;
    // The stack runs the recipe the instance was made with: a model naming another environment or
    // recipe would say what it does not run.
    const environment = environmentOf(request.desiredState, DEFAULT_ENVIRONMENT);
    const recipeName = recipeNameOf(request.desiredState);
    if (environment !== record.environment || recipeName !== record.recipe)
      return failed(
        'NotUpdatable',
        `${type.typeName} ${identifier} runs recipe ${record.recipe} of environment ${record.environment}, and an instance keeps the environment and recipe it was made with: to move it to ${recipeName === record.recipe ? '' : `recipe ${recipeName} of `}environment ${environment}, delete it and create it there`,
      );
    // An update is when an instance moves to its recipe's latest version (a new version never changes
    // an instance by itself); a deleted recipe leaves it on the version it has.
    const resumed = request.callbackContext as Progress | undefined;
    const head = await records.getHead(record.environment, record.typeName, record.recipe);
    const version = await versionOf(
      record,
      resumed?.version ?? record.upgradeTo ?? head?.latest ?? record.version,
    );
    const progress = resumed ?? (await deploy(type, record, version, request.desiredState, token));
    const view = await stacks.waitForState(record.stack, progress.deploymentId, runtime.waitMs);
    if (view && DONE.has(view.status) && view.deploymentId === undefined)
      return succeed(type, record, version, request.desiredState, token);
    if (view && FAILED_UPDATE.has(view.status) && view.deploymentId === undefined) {
      const failure = await failureOf(record.stack, progress, view);
      return failed(failure.code, failure.message);
    }
    return running(progress, { ...record, version: version.version });
  };

  const remove = async (request: HandlerRequest): Promise<HandlerEvent> => {
    const { type, identifier } = await identified(request);
    const held = await records.getInstance(type.typeName, identifier);
    if (!held) return failed('NotFound', `${type.typeName} ${identifier} does not exist`);
    const record = held.record;
    const progress = request.callbackContext as Progress | undefined;
    let view: StackView | undefined;
    try {
      view = await stacks.describe(record.stack);
    } catch (e) {
      if (!(e instanceof TypeplaneError && e.code === 'NotFound')) throw e;
    }
    if (view) {
      let deploymentId = progress?.deploymentId ?? view.deploymentId;
      if (
        (view.deploymentId === undefined && view.status !== 'DELETE_FAILED') ||
        (view.status === 'DELETE_FAILED' && !progress)
      ) {
        if (record.phase !== 'deleting')
          await records.replaceInstance({ ...record, phase: 'deleting' }, request.clientRequestToken);
        const version = await versionOf(record);
        deploymentId = (await stacks.delete(record.stack, grantsOf(version), callerFor(version)))
          .deploymentId;
      }
      const after = await stacks.waitForState(record.stack, deploymentId!, runtime.waitMs);
      if (after) {
        if (after.status === 'DELETE_FAILED' && after.deploymentId === undefined)
          return failed(
            'GeneralServiceException',
            after.statusReason ?? "the recipe's resources could not all be deleted",
          );
        return {
          status: 'IN_PROGRESS',
          callbackContext: { deploymentId, startedAt: new Date().toISOString() },
          callbackDelaySeconds: 0,
          message: `deleting what recipe ${record.recipe}@${record.version} made`,
        };
      }
    }
    await records.deleteInstance(type.typeName, identifier);
    return { status: 'SUCCESS' };
  };

  const read = async (request: HandlerRequest): Promise<HandlerEvent> => {
    const { type, identifier } = await identified(request);
    const held = await records.getInstance(type.typeName, identifier);
    if (!held?.record.model || held.record.phase !== 'ready')
      return failed('NotFound', `${type.typeName} ${identifier} does not exist`);
    return { status: 'SUCCESS', resourceModel: stripWriteOnly(type, held.record.model) };
  };

  const list = async (request: HandlerRequest): Promise<HandlerEvent> => {
    const type = await runtime.typeOf(request.typeName);
    const page = await records.listInstances(
      type.typeName,
      Math.min(request.maxResults ?? 100, 100),
      request.nextToken,
    );
    return {
      status: 'SUCCESS',
      resourceModels: page.records
        .filter((r) => r.phase === 'ready' && r.model)
        .map((r) => stripWriteOnly(type, r.model!)),
      nextToken: page.nextToken ?? null,
    };
  };

  return {
    name: RECIPE_PROVIDER_NAME,
    create: handle(create),
    update: handle(update),
    delete: handle(remove),
    read: handle(read),
    list: handle(list),
  };
}

function setPath(model: Model, path: string[], value: unknown): void {
  let node = model as Record<string, unknown>;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

export { RESULT };

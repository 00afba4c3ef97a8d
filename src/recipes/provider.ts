/**
 * @module The provider every recipe-backed type is served by: its handlers keep the whole contract by
 * running the instance's recipe. Each instance has a stack of its own (named from the type and the
 * identifier). A new instance whose recipe needs nothing of a stack's records is made without it
 * (direct.ts): its resources made directly, its stack written when an update, an upgrade or a drift
 * check first needs it (adoptStack, adopt.ts). Otherwise a handler starts (or, re-invoked, resumes) the stack's
 * deployment, waits a little for it, and answers IN_PROGRESS until it ends. Either way a crash between
 * two calls loses nothing: run again with the same client token, every operation begun replays.
 */
import type { Caller } from '../engine/index.js';
import { isErrorCode, TypeplaneError, type ErrorCode } from '../errors.js';
import { withMembers } from '../members.js';
import type {
  ComposeParts,
  ComposeRequest,
  Composed,
  HandlerEvent,
  HandlerRequest,
  Provider,
} from '../handler/types.js';
import { cloneJson, identifierOf, resolverOf, stripWriteOnly, type Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import {
  parseTypeReference,
  stackIdOf,
  type BufferedDeployment,
  type DirectTemplate,
  type MadeResource,
  type StackState,
  type Stacks,
} from '../stacks/index.js';
import { adoptStack, deleteStackOf } from './adopt.js';
import { makeDirect, removeMade, type DirectEngine, type Made } from './direct.js';
import {
  bindInstance,
  callerFor,
  deploymentIdOf,
  describedOrNone,
  DONE,
  engineCallerFor,
  grantsOf,
  stackNameOf,
  versionOf,
} from './instance-stack.js';
import { environmentOf, underWriteOnly } from './context.js';
import { generatedSecrets, type InstanceRecord, type RecipeStore, type RecipeVersion } from './records.js';
import { outputTargets, RESULT, specOf, type OutputTarget } from './spec.js';
import { loadRecipeTemplate } from './parsed.js';

export const RECIPE_PROVIDER_NAME = 'recipes';
export const DEFAULT_ENVIRONMENT = 'default';
export const DEFAULT_RECIPE = 'default';
export const TEMPLATE_KIND = 'cloudformation';

export interface RecipeRuntime {
  stacks: Stacks;
  records: RecipeStore;
  /** What an instance made without a stack (direct.ts) is made and deleted through. */
  engine: DirectEngine;
  /** A keyed hash (the server's): an instance's generated secrets, the same when its create runs again. */
  mac(data: string): string;
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
  /** A new instance being made without a stack (direct.ts). */
  direct?: true;
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

const FAILED_CREATE = new Set(['ROLLBACK_COMPLETE', 'CREATE_FAILED', 'ROLLBACK_FAILED']);
const FAILED_UPDATE = new Set(['UPDATE_ROLLBACK_COMPLETE', 'UPDATE_ROLLBACK_FAILED', 'UPDATE_FAILED']);

const failed = (code: ErrorCode, message: string): HandlerEvent => ({
  status: 'FAILED',
  errorCode: code,
  message,
});

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

/** Where a recipe's outputs land in a type's model, by type and recipe document (both unchanging). */
const targetsKept = new WeakMap<ResourceType, WeakMap<object, OutputTarget[]>>();

function targetsOf(type: ResourceType, template: string): OutputTarget[] {
  const loaded = loadRecipeTemplate(template);
  const doc = (loaded.template?.document.value ?? {}) as Record<string, unknown>;
  let byDoc = targetsKept.get(type);
  if (!byDoc) targetsKept.set(type, (byDoc = new WeakMap()));
  let targets = byDoc.get(doc);
  if (!targets) byDoc.set(doc, (targets = outputTargets(type, doc, specOf(doc)).targets));
  return targets;
}

/** The type names of a recipe's resources, by recipe document (unchanging): a composed create asks each. */
const partTypesKept = new WeakMap<object, string[]>();

function partTypesOf(template: string): string[] {
  const loaded = loadRecipeTemplate(template).template;
  if (!loaded) return [];
  let types = partTypesKept.get(loaded);
  if (!types)
    partTypesKept.set(
      loaded,
      (types = [...loaded.resources.values()].map((r) => parseTypeReference(r.type).typeName)),
    );
  return types;
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

  const stackExists = async (name: string): Promise<boolean> =>
    (await describedOrNone(stacks, name)) !== undefined;

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
    const resources = (await describedOrNone(stacks, record.stack))?.resources ?? [];
    const total = resources.length;
    const done = resources.filter((r) => r.status.endsWith('_COMPLETE')).length;
    return {
      status: 'IN_PROGRESS',
      callbackContext: progress as unknown as Record<string, unknown>,
      callbackDelaySeconds: 0,
      message: `recipe ${record.recipe}@${record.version} (environment ${record.environment}): ${done} of ${total} resources done`,
    };
  };

  /** The model an instance reports, from its stack's outputs. */
  const modelOf = async (
    type: ResourceType,
    record: InstanceRecord,
    version: RecipeVersion,
    desired: Model,
    run?: BufferedDeployment,
  ): Promise<Model> =>
    modelFrom(type, version, desired, await (run ? run.outputValues() : stacks.outputValues(record.stack)));

  /** The model an instance reports: what was asked, with the recipe's outputs where they land. */
  const modelFrom = (
    type: ResourceType,
    version: RecipeVersion,
    desired: Model,
    outputs: { name: string; value: unknown; secret: boolean }[],
  ): Model => {
    // A model is plain JSON: copied as such (structuredClone's serialisation cost more per create).
    const model = cloneJson(desired);
    for (const target of targetsOf(type, version.template)) {
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

  /**
   * A new instance made without a stack, as its record keeps it: the model it reports (what was
   * asked, with the outputs where they land) and what was made, for its stack to adopt when written.
   */
  const madeRecord = (
    type: ResourceType,
    record: InstanceRecord,
    version: RecipeVersion,
    desired: Model,
    direct: {
      deploymentId: string;
      stackId: string;
      made: Made[];
      outputs: { name: string; value: unknown; secret: boolean }[];
    },
  ): { model: Model; made: InstanceRecord } => {
    const model = modelFrom(type, version, desired, direct.outputs);
    // Named, not `...rest` (an object rest copies through a slow runtime call), and no spread that
    // adds members (see src/members.ts): this runs on every create.
    const { deploymentId, stackId, made } = direct;
    return {
      model,
      made: withMembers(record, {
        model,
        phase: 'ready' as const,
        direct: { deploymentId, stackId, made, asked: desired },
      }),
    };
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
    await records.replaceInstance(type, next, token);
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

  /**
   * A new instance's bound template, evaluated for making it without a stack (stacks' `direct`), the
   * id its stack gets when written (`AWS::StackId`, unique to this create) and whom its resources are
   * made as; undefined when the template needs a stack's records.
   */
  const directOf = async (
    type: ResourceType,
    record: InstanceRecord,
    version: RecipeVersion,
    desired: Model,
    deploymentId: string,
    /**
     * For a composed create, which checks every resource as it makes it (and runs as an operation
     * when anything fails): the context bound as parameters, the text's analysis reused.
     */
    composing = false,
    /**
     * Whether the instance's stack exists, as the caller knows it (false for a composed create, whose
     * write expects none: Stacks.absent).
     */
    exists?: boolean,
  ): Promise<{ template: DirectTemplate; stackId: string; caller: Caller } | undefined> => {
    const bound = bindInstance(type, record, version, desired, composing);
    const stackId = stackIdOf(record.stack, deploymentId);
    // `exists` named, undefined or not (undefined: the stack is read), not spread in: src/members.ts.
    const template = await stacks.direct(record.stack, bound.text, bound.parameters, {
      seed: deploymentId,
      stackId,
      authorize: grantsOf(version),
      reuse: composing,
      exists,
    });
    return template && { template, stackId, caller: engineCallerFor(version, record.stack) };
  };

  /** Direct creates running (or just ended) in this process, by deployment id: a call waits a while for one. */
  const jobs = new Map<
    string,
    { answer: Promise<HandlerEvent>; progress: { done: number; total: number } }
  >();

  /**
   * A new instance made without a stack (direct.ts), recorded once its resources are made; undefined
   * when its bound template needs a stack's records. Answers IN_PROGRESS while it runs past the
   * handler's wait; the next call waits for it here, or (in another process, or after a crash) runs
   * it again, every operation it had begun replayed by its token.
   */
  const createDirect = async (
    type: ResourceType,
    record: InstanceRecord,
    version: RecipeVersion,
    desired: Model,
    token: string,
  ): Promise<HandlerEvent | undefined> => {
    const deploymentId = deploymentIdOf(record.stack, token);
    let job = jobs.get(deploymentId);
    if (!job) {
      const direct = await directOf(type, record, version, desired, deploymentId);
      if (!direct) return undefined;
      const { template, stackId, caller } = direct;
      const progress = { done: 0, total: 0 };
      const answer = (async (): Promise<HandlerEvent> => {
        const outcome = await makeDirect(runtime.typeOf, template, deploymentId, caller, progress);
        if (!outcome.ok) return failed(outcome.code, outcome.message);
        const { model, made } = madeRecord(type, record, version, desired, {
          deploymentId,
          stackId,
          made: outcome.made,
          outputs: outcome.outputs,
        });
        if (await records.insertInstance(type, made, token))
          return { status: 'SUCCESS', resourceModel: model };
        const now = await records.getInstance(type.typeName, record.identifier);
        if (now?.record.createdBy === token && now.record.model)
          return { status: 'SUCCESS', resourceModel: now.record.model };
        // The name was taken meanwhile (the engine lets one create of a name run at a time: this
        // is a record left behind): what was made goes again.
        await removeMade(template.engine, outcome.made, deploymentId, caller);
        return failed('AlreadyExists', `${type.typeName} ${record.identifier} already exists`);
      })();
      job = { answer, progress };
      jobs.set(deploymentId, job);
      // Ended: the call waiting for it takes it at once. One whose call had answered IN_PROGRESS is
      // kept for the next call a while (not every create holds a timer for a minute).
      const kept = job;
      void answer.then(
        () =>
          setImmediate(() => {
            if (jobs.get(deploymentId) === kept)
              setTimeout(() => jobs.delete(deploymentId), KEEP_ENDED_MS).unref();
          }),
        () => jobs.delete(deploymentId),
      );
    }
    if (
      !(await within(
        job.answer.then(() => undefined),
        runtime.waitMs,
      ))
    ) {
      const at: Progress = {
        deploymentId,
        startedAt: new Date().toISOString(),
        version: version.version,
        direct: true,
      };
      return {
        status: 'IN_PROGRESS',
        callbackContext: at as unknown as Record<string, unknown>,
        callbackDelaySeconds: 0,
        message: `recipe ${record.recipe}@${version.version} (environment ${record.environment}): ${job.progress.done} of ${job.progress.total} resources done`,
      };
    }
    jobs.delete(deploymentId);
    return job.answer;
  };

  /**
   * The recipe a new instance runs: its environment's recipe of the name it asks for, at `number`
   * or the latest; a failure when there is none.
   */
  const recipeFor = async (
    type: ResourceType,
    desired: Model,
    number?: number,
  ): Promise<HandlerEvent | { environment: string; recipeName: string; version: RecipeVersion }> => {
    const environment = environmentOf(desired, DEFAULT_ENVIRONMENT);
    const recipeName = recipeNameOf(desired);
    if (number === undefined) {
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
      number = head.latest;
    }
    const version = await records.getVersion(environment, type.typeName, recipeName, number);
    if (!version)
      return failed('InternalFailure', `recipe ${recipeName}@${number} is missing from the store`);
    return { environment, recipeName, version };
  };

  /** A new instance's record (phase creating), running `found`'s recipe version. */
  const newRecord = (
    type: ResourceType,
    identifier: string,
    token: string,
    { environment, recipeName, version }: { environment: string; recipeName: string; version: RecipeVersion },
    /** Its stack's name, when the caller has it already (a hash of the type and identifier). */
    stack = stackNameOf(type.typeName, identifier),
  ): InstanceRecord => {
    // Derived, not drawn: a create run again (after a crash) binds the same values, so its
    // resources' operations replay instead of being refused as another request.
    const loaded = loadRecipeTemplate(version.template);
    const doc = (loaded.template?.document.value ?? {}) as Record<string, unknown>;
    const generated = generatedSecrets(runtime.mac, type.typeName, identifier, token, specOf(doc).generated);
    return {
      typeName: type.typeName,
      identifier,
      environment,
      recipe: recipeName,
      version: version.version,
      stack,
      generated,
      createdBy: token,
      phase: 'creating',
    };
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
    // Made without a stack, and recorded: this create ran again after its end (a replica's restart).
    if (held?.record.direct && held.record.model)
      return { status: 'SUCCESS', resourceModel: held.record.model };
    if (progress?.failure) return cleanUp(type, held?.record, progress);
    if (!held) {
      // A direct create runs again with the version it began with (one registered meanwhile is the
      // next create's).
      const found = await recipeFor(type, desired, progress?.direct ? progress.version : undefined);
      if ('status' in found) return found;
      const { version } = found;
      const record = newRecord(type, identifier, token, found);
      if (!progress || progress.direct) {
        const answer = await createDirect(type, record, version, desired, token);
        if (answer !== undefined) return answer;
        // Its template needs a stack's records: the instance's stack is deployed, as below.
      }
      if (!(await records.insertInstance(type, record, token))) {
        held = await records.getInstance(type.typeName, identifier);
        if (!held || held.record.createdBy !== token)
          return failed('AlreadyExists', `${type.typeName} ${identifier} already exists`);
      } else {
        held = { record, writtenBy: token };
        fresh = version;
      }
    }
    const record = held.record;
    const version = fresh ?? (await versionOf(records, record));
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

  /**
   * A new instance decided whole (the engine's composed create): when its recipe needs no stack and
   * every resource it makes is record-backed, each is checked and computed as the direct create would
   * make it (the same values; no client tokens, as nothing of it is written but the whole), and the
   * instance's record listing them is written with them, in one transaction. Anything else is
   * undefined: the handlers make it.
   */
  const compose = async (request: ComposeRequest, parts: ComposeParts): Promise<Composed | undefined> => {
    try {
      return await composed(request, parts);
    } catch {
      // Refused or failed anywhere (a value the recipe does not take, a part's create refused): the
      // handlers run it, and report it as they report any failure.
      return undefined;
    }
  };

  const composed = async (request: ComposeRequest, parts: ComposeParts): Promise<Composed | undefined> => {
    const type = await runtime.typeOf(request.typeName);
    const identifier = identifierOf(type, request.desiredState);
    if (identifier === undefined) return undefined;
    const token = request.clientRequestToken;
    const desired = request.desiredState;
    // Nothing is read but what this process keeps: the recipe's head as last read (its versions
    // never change). That the head is still so, and that no stack of the instance's name is there,
    // are the whole's write's expectations, seen as it commits: either refuses it, and the handlers
    // make the instance (reading the head again).
    const kept = await records.keptHead(
      environmentOf(desired, DEFAULT_ENVIRONMENT),
      type.typeName,
      recipeNameOf(desired),
    );
    if (!kept) return undefined;
    const found = await recipeFor(type, desired, kept.head.latest);
    if ('status' in found) return undefined;
    const { version } = found;
    const stack = stackNameOf(type.typeName, identifier);
    // Told before any other work: a resource whose provider has effects is made by the handlers.
    for (const typeName of partTypesOf(version.template)) if (!parts.recordBacked(typeName)) return undefined;
    const record = newRecord(type, identifier, token, found, stack);
    const deploymentId = deploymentIdOf(record.stack, token);
    const direct = await directOf(type, record, version, desired, deploymentId, true, false);
    if (!direct) return undefined;
    const { template, stackId, caller } = direct;
    const models = new Map<string, MadeResource>();
    const made: Made[] = [];
    // In the template's order, each after what it depends on: a resource reads those made before it.
    for (const logicalId of template.order) {
      const resource = template.resource(logicalId, models);
      if (resource === undefined) continue; // its Condition is false
      // A value read from the parameter store as it is made: the stacks' engine resolves it.
      if (resource.resolves) return undefined;
      const part = await parts.make(resource.typeName, resource.properties, caller);
      if (!part) return undefined;
      made.push({ logicalId, typeName: resource.typeName, ...part });
      models.set(logicalId, part);
    }
    const instance = madeRecord(type, record, version, desired, {
      deploymentId,
      stackId,
      made,
      outputs: template.outputs(models),
    });
    // Written only if no record is there: one left behind (a deletion unfinished) refuses the whole,
    // and the handlers say what it is.
    return {
      resourceModel: instance.model,
      records: [records.instanceInsert(type, instance.made, token), kept.holds, stacks.absent(stack)],
    };
  };

  /** A create failed: the stack (rolled back) goes too, then the record; the failure is reported. */
  const cleanUp = async (
    type: ResourceType,
    record: InstanceRecord | undefined,
    progress: Progress,
  ): Promise<HandlerEvent> => {
    const failure = progress.failure!;
    if (!record) return failed(failure.code, failure.message);
    const view = await describedOrNone(stacks, record.stack);
    if (view) {
      let deploymentId = view.deploymentId;
      if (deploymentId === undefined) {
        const version = await versionOf(records, record);
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
    // Made without a stack: the stack is written first, and the update deployed to it.
    const record = await adoptStack(runtime, type, held.record);
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
      records,
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
    let record = held.record;
    /** Marked once, as being deleted: what an adoption meanwhile (adoptStack) and a retry go by. */
    const marked = async () => {
      if (record.phase === 'deleting') return;
      record = { ...record, phase: 'deleting' };
      await records.replaceInstance(type, record, request.clientRequestToken);
    };
    if (record.direct) {
      // Marked first: a drift check or an upgrade plan writing the stack meanwhile sees the deletion
      // once it has, and deletes that stack again (adoptStack).
      await marked();
      const refused = await removeDirect(type, record, request.clientRequestToken);
      if (refused) return refused;
      // What it made is gone. A drift check or an upgrade plan may have written its stack meanwhile:
      // that goes too, as below (its resources found gone count as deleted).
    }
    const progress = request.callbackContext as Progress | undefined;
    const view = await describedOrNone(stacks, record.stack);
    if (view) {
      let deploymentId = progress?.deploymentId ?? view.deploymentId;
      if (
        (view.deploymentId === undefined && view.status !== 'DELETE_FAILED') ||
        (view.status === 'DELETE_FAILED' && !progress)
      ) {
        await marked();
        deploymentId = await deleteStackOf(stacks, record, await versionOf(records, record));
      }
      const after =
        deploymentId === undefined
          ? await describedOrNone(stacks, record.stack)
          : await stacks.waitForState(record.stack, deploymentId, runtime.waitMs);
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

  /**
   * An instance made without a stack, deleted: what it made, in reverse order, with tokens derived
   * from the deletion's (run again, it replays). What could not be deleted stays listed, for the
   * next deletion to try again, and fails this one; undefined when everything is gone.
   */
  const removeDirect = async (
    type: ResourceType,
    record: InstanceRecord,
    token: string,
  ): Promise<HandlerEvent | undefined> => {
    const direct = record.direct!;
    const version = await versionOf(records, record);
    const left = await removeMade(
      runtime.engine,
      direct.made,
      `delete.${token}`,
      engineCallerFor(version, record.stack),
    );
    if (left.length === 0) return undefined;
    const remaining = new Set(left.map((l) => l.made.logicalId));
    await records.replaceInstance(
      type,
      {
        ...record,
        phase: 'deleting',
        direct: { ...direct, made: direct.made.filter((m) => remaining.has(m.logicalId)) },
      },
      token,
    );
    return failed(
      'GeneralServiceException',
      `the recipe's resources could not all be deleted: ${left.map((l) => l.why).join('; ')}`,
    );
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
    composes: { create: compose },
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

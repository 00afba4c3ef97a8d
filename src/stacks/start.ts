/**
 * @module The start stage: a deployment begun — from a template (deploy, which a client token may
 * replay) or a stored plan (applyPlan) — once its analysis is done and its exports are free: its
 * record written under this server's lease, the stack marked in progress, then handed to the runner.
 * Returns at once; the deployment itself runs in deployment.ts.
 */
import { randomUUID } from 'node:crypto';
import { TypeplaneError } from '../errors.js';
import { canonicalJson, scopedClientToken } from '../engine/index.js';
import type { Analysis } from './analyze.js';
import { rememberToken, replayed } from './client-tokens.js';
import type { StacksCore } from './core.js';
import { planNotFound, stacksNamed, typesIn, typesOf, unnamed, type Authorize } from './reach.js';
import type {
  DeploymentRecord,
  ResourceRecord,
  StackCaller,
  StackRecord,
  StackStatus,
  StackStore,
} from './records.js';
import { heldKey } from './records.js';
import type { Launch } from './resume.js';

/** Resources a caller made from a template itself (direct.ts), for the stack's first deployment to record. */
export interface Adoption {
  /** The stack's id, as the template was evaluated with. */
  stackId: string;
  /** What was made, by logical id: its identifier, and its model as made (what `Fn::GetAtt` read). */
  resources: Record<string, { identifier: string; model: Record<string, unknown> }>;
}

/** A stack's id (`AWS::StackId`): its name and a part unique to it, by default drawn at random. */
export function stackIdOf(name: string, unique: string = randomUUID()): string {
  return `typeplane:stack/${name}/${unique}`;
}

/** Where a nested stack sits: its parent's stackId, and its tree's root's. */
export interface NestedIn {
  parentId: string;
  rootId: string;
}
import { NEVER_CREATED, TERMINAL } from './status.js';
import { openParameters, sealParameters } from './stored-parameters.js';
import { analyzeForStack } from './validate.js';
import { tracedFrom } from './deployment.js';
import { describe, viewOf, type Started } from './views.js';
import { changesOf } from './plans.js';
import type { PlannedChange } from './plan.js';
import { callerOfStack, firstJudged, reviewPlan } from './review-plan.js';
import { DeniedByVerdicts } from '../verdict.js';
import { changedSincePlan } from './parameter-store/index.js';
import { resolveImports, type Importing, type ResourceToImport } from './import/index.js';

export async function deploy(
  core: StacksCore,
  launch: Launch,
  name: string,
  text: string,
  parameters: Record<string, unknown>,
  options: {
    noRollback?: boolean;
    clientToken?: string;
    authorize?: Authorize;
    caller?: StackCaller;
    /** Bring these existing resources in instead of creating them (import/). */
    resourcesToImport?: ResourceToImport[];
    /** A nested stack's parent and root (their stackIds): kept with the stack it makes. */
    nestedIn?: NestedIn;
    /** The deployment's id, when the caller derives it (a buffered deployment run again: buffered.ts). */
    deploymentId?: string;
    /** Record these resources, made already from this template (direct.ts), instead of creating them. */
    adopt?: Adoption;
  },
): Promise<Started> {
  const authorize = options.authorize ?? (() => {});
  // Access first: a client token replays only to a caller who may make the request now.
  const analysis = await analyzeForStack(core, name, text, parameters, authorize);
  authorize(typesOf(analysis));
  // Listed once: what the caller must reach, the types the stack is marked with, and its view.
  const held = await core.records.getResources(name);
  await unnamed(`stack ${name}`, async () => authorize(typesIn(held)));
  // Client tokens are each caller's own: another's token neither replays nor collides.
  const clientToken = scopedClientToken(options.clientToken, options.caller);
  const replay = await replayed(core.store, core.sealer, name, clientToken, {
    text,
    parameters,
    noRollback: options.noRollback === true,
    ...(options.resourcesToImport ? { resourcesToImport: options.resourcesToImport } : {}),
  });
  if (replay) {
    // The token's stack was deleted since (or deleted and made anew): its deployment is gone, and
    // replaying the request would make the stack again long after the client saw it deleted.
    const deleted = () =>
      new TypeplaneError(
        'ResourceConflict',
        `this clientToken deployed stack ${name}, which has since been deleted; send a new clientToken to deploy it again`,
      );
    const current = await core.records.getStack(name);
    if (!current || (replay.stackId !== undefined && current.record.stackId !== replay.stackId))
      throw deleted();
    // A deletion that ends between the two reads leaves nothing to describe: the same answer.
    const stack = await describe(core, name).catch((e: unknown) => {
      throw e instanceof TypeplaneError && e.code === 'NotFound' ? deleted() : e;
    });
    return { stack, deploymentId: replay.deploymentId, startedAt: replay.startedAt };
  }
  return begin(core, launch, name, analysis, text, parameters, held, {
    ...options,
    ...(clientToken !== undefined ? { clientToken } : {}),
  });
}

export async function applyPlan(
  core: StacksCore,
  launch: Launch,
  name: string,
  planId: string,
  options: { noRollback?: boolean; authorize?: Authorize; caller?: StackCaller },
): Promise<Started> {
  const plan = await core.records.getPlan(name, planId);
  if (!plan || plan.stack !== name) throw planNotFound(name, planId);
  const current = await core.records.getStack(name);
  if ((current?.record.version ?? 0) !== plan.baseVersion)
    throw new TypeplaneError(
      'ResourceConflict',
      `stack ${name} changed since plan ${planId} was made (version ${plan.baseVersion}, now ${current?.record.version ?? 'deleted'}); make a new plan`,
    );
  const parameters = openParameters(core.records, name, plan.parameters);
  const authorize = options.authorize ?? (() => {});
  // The caller named the plan only: a refusal names none of the types it or the stack holds.
  const held = await core.records.getResources(name);
  const analysis = await unnamed(`stack ${name}`, async () => {
    const analyzed = await analyzeForStack(core, name, plan.template, parameters, authorize);
    authorize([...typesOf(analyzed), ...typesIn(held)]);
    return analyzed;
  });
  // What SSM parameter types read is read again: a plan applies only the values it showed.
  const changed = changedSincePlan(plan.resolvedDigests, analysis, (data) => core.sealer.mac(data));
  if (changed.length > 0)
    throw new TypeplaneError(
      'ResourceConflict',
      `the SSM parameters that ${changed.join(', ')} name${changed.length === 1 ? 's' : ''} changed since plan ${planId} was made; make a new plan`,
    );
  return begin(core, launch, name, analysis, plan.template, parameters, held, {
    ...options,
    baseVersion: plan.baseVersion,
    planId,
    planned: plan.changes as PlannedChange[],
    ...(plan.resourcesToImport ? { resourcesToImport: plan.resourcesToImport as ResourceToImport[] } : {}),
  });
}

async function begin(
  core: StacksCore,
  launch: Launch,
  name: string,
  analysis: Analysis,
  text: string,
  parameters: Record<string, unknown>,
  /** The stack's resource records, listed when the request was authorized. */
  held: Map<string, ResourceRecord>,
  options: {
    noRollback?: boolean;
    clientToken?: string;
    baseVersion?: number;
    planId?: string;
    caller?: StackCaller;
    authorize?: Authorize;
    resourcesToImport?: ResourceToImport[];
    /** A nested stack's parent and root (their stackIds): kept with the stack it makes. */
    nestedIn?: NestedIn;
    /** The stored plan's changes, with the verdicts it was given, when a plan is applied. */
    planned?: readonly PlannedChange[];
    deploymentId?: string;
    adopt?: Adoption;
  },
): Promise<Started> {
  const { records } = core;
  const existing = await records.getStack(name);
  // An adoption writes a stack that is not there yet: one written meanwhile (by another replica's
  // adoption) is not deployed over as an update.
  if (options.adopt && existing)
    throw new TypeplaneError(
      'ResourceConflict',
      `stack ${name} was written meanwhile; an adoption writes only a stack that does not exist`,
    );
  await checkExports(core, name, existing?.record, analysis, options.authorize ?? (() => {}));
  const imports =
    options.resourcesToImport && (await importsOf(core, name, analysis, existing?.record, held, options));
  // An import changes nothing but what it imports (its review is importsOf's); an adoption changes
  // nothing at all (what it records was made, and judged, already).
  if (!imports && !options.adopt)
    await refuseDenied(core, name, analysis, existing?.record, held, options.caller, options.planned);
  const id = options.deploymentId ?? randomUUID();
  const update = existing !== undefined && !NEVER_CREATED.has(existing.record.status);
  const deployment: DeploymentRecord = {
    id,
    stack: name,
    kind: 'deploy',
    phase: 'forward',
    noRollback: options.noRollback === true,
    template: text,
    parameters: sealParameters(records, name, parameters, analysis.secretParameters),
    update,
    ...(options.planId ? { planId: options.planId } : {}),
    ...(imports ? { imports } : {}),
    ...(options.adopt ? { adopted: options.adopt.resources } : {}),
    ...(options.caller ? { caller: options.caller } : {}),
    ...tracedFrom(),
    owner: core.owner,
    leaseUntil: new Date(Date.now() + core.leaseMs).toISOString(),
    startedAt: new Date().toISOString(),
  };
  const mark = () =>
    markStarted(
      records,
      name,
      id,
      update ? 'UPDATE_IN_PROGRESS' : 'CREATE_IN_PROGRESS',
      [...typesOf(analysis), ...typesIn(held)],
      options.baseVersion,
      options.nestedIn,
      options.adopt?.stackId,
    );
  let stamp: string;
  let started: { record: StackRecord; inserted: boolean };
  if (imports) {
    // An import claims its resources between the two: the stack is not marked for a claim refused.
    stamp = await records.insertDeployment(deployment);
    await claimImports(core, name, id, analysis, imports);
    started = await mark().catch(async (e: unknown) => {
      await records.deleteDeployment(id);
      throw e;
    });
  } else {
    // The deployment's record and the stack's mark in one commit; the record goes again if the stack
    // refused the mark (another deployment runs).
    const [inserted, marked] = await Promise.allSettled([records.insertDeployment(deployment), mark()]);
    if (inserted.status === 'rejected') {
      if (marked.status === 'fulfilled') await unmark(records, name, id, marked.value, existing?.record);
      throw inserted.reason;
    }
    stamp = inserted.value;
    if (marked.status === 'rejected') {
      await records.deleteDeployment(id);
      throw marked.reason;
    }
    started = marked.value;
  }
  // The client token and the stack's first event in one commit.
  await Promise.all([
    options.clientToken &&
      rememberToken(
        core.store,
        core.sealer,
        name,
        options.clientToken,
        {
          deploymentId: id,
          startedAt: deployment.startedAt,
          stackId: started.record.stackId,
        },
        {
          text,
          parameters,
          noRollback: options.noRollback === true,
          ...(options.resourcesToImport ? { resourcesToImport: options.resourcesToImport } : {}),
        },
      ),
    records.addEvent(name, {
      logicalId: name,
      type: 'Typeplane::Stack',
      identifier: started.record.stackId,
      status: update ? 'UPDATE_IN_PROGRESS' : 'CREATE_IN_PROGRESS',
    }),
  ]);
  // A stack this deployment made has the records listed before it (none, unless left by a deletion
  // that dropped them before its record was gone): its deployment need not list them again.
  launch(deployment, stamp, { analysis, ...(started.inserted ? { resources: new Map(held) } : {}) });
  // The stack as its deployment began: the record just written, and the resources it held.
  return { stack: viewOf(started.record, held), deploymentId: id, startedAt: deployment.startedAt };
}

/** Undo {@link markStarted} when the deployment it marked could not be written: the stack as it was. */
async function unmark(
  records: StackStore,
  name: string,
  id: string,
  marked: { record: StackRecord; inserted: boolean },
  before: StackRecord | undefined,
): Promise<void> {
  if (marked.inserted || !before) return records.deleteStack(name);
  await records.updateStack(name, (s) => (s.deployment === id ? { ...before, version: s.version + 1 } : s));
}

async function markStarted(
  records: StackStore,
  name: string,
  id: string,
  status: StackStatus,
  types: string[],
  baseVersion?: number,
  nestedIn?: NestedIn,
  stackId?: string,
): Promise<{ record: StackRecord; inserted: boolean }> {
  const now = new Date().toISOString();
  const fresh: StackRecord = {
    name,
    stackId: stackId ?? stackIdOf(name),
    status,
    createdAt: now,
    updatedAt: now,
    version: 1,
    outputs: [],
    exports: [],
    imports: [],
    types: [...new Set(types)],
    deployment: id,
    ...nestedIn,
  };
  const inserted = await records.insertStack(fresh);
  if (inserted) {
    if (baseVersion !== undefined && baseVersion !== 0) {
      await records.deleteStack(name);
      throw new TypeplaneError(
        'ResourceConflict',
        `stack ${name} was deleted since the plan was made; make a new plan`,
      );
    }
    // Decided as an update of what the stack held (its status says so), which a deletion has since
    // removed: deployed as a create instead, it would rest on resources that are gone.
    if (status === 'UPDATE_IN_PROGRESS') {
      await records.deleteStack(name);
      throw deletedMeanwhile(name);
    }
    return { record: fresh, inserted: true };
  }
  const record = await records
    .updateStack(name, (s) => {
      if (s.deployment !== undefined || !TERMINAL.test(s.status))
        throw new TypeplaneError(
          'ResourceConflict',
          `stack ${name} is ${s.status}${s.deployment ? ` (deployment ${s.deployment})` : ''}; wait for it to finish`,
        );
      if (baseVersion !== undefined && s.version !== baseVersion)
        throw new TypeplaneError(
          'ResourceConflict',
          `stack ${name} changed since the plan was made; make a new plan`,
        );
      const next: StackRecord = {
        ...s,
        status,
        deployment: id,
        version: s.version + 1,
        types: [...new Set([...(s.types ?? []), ...types])],
      };
      delete next.statusReason;
      return next;
    })
    .catch((e: unknown) => {
      // There when the insert was refused, gone by the update: a deletion ended in between.
      if (e instanceof TypeplaneError && e.code === 'NotFound') throw deletedMeanwhile(name);
      throw e;
    });
  return { record, inserted: false };
}

/** The stack was deleted between the deployment's reading it and marking it: sent again, it makes it anew. */
function deletedMeanwhile(name: string): TypeplaneError {
  return new TypeplaneError(
    'ResourceConflict',
    `stack ${name} was deleted while this deployment began; deploy it again`,
  );
}

/**
 * The resources an import brings in, checked (import/) as its plan checks them, now: the identifier of
 * each by logical id. Refused when the deployment would change anything else, or when admission
 * policies or hooks deny taking charge of one (reviewed as a create of it as read; each is reviewed
 * again when its step imports it, as a create is when it is made).
 */
async function importsOf(
  core: StacksCore,
  name: string,
  analysis: Analysis,
  stack: StackRecord | undefined,
  held: Map<string, ResourceRecord>,
  options: {
    resourcesToImport?: ResourceToImport[];
    authorize?: Authorize;
    caller?: StackCaller;
    planned?: readonly PlannedChange[];
  },
): Promise<Record<string, string>> {
  const importing = await resolveImports(
    core,
    name,
    analysis,
    options.resourcesToImport!,
    held,
    options.authorize ?? (() => {}),
  );
  const records = stack && !NEVER_CREATED.has(stack.status) ? held : new Map<string, ResourceRecord>();
  const changes = await changesOf(core, name, analysis, stack, records, importing);
  await refuseDeniedChanges(core, name, changes, records, options.caller, options.planned, importing);
  return Object.fromEntries([...importing].map(([logicalId, i]) => [logicalId, i.identifier]));
}

/**
 * Claims each resource an import brings in for its deployment (records.claimImport), so two imports
 * of one resource at once are not both begun: the second is refused with 409, its deployment record
 * dropped and its claims released. A claim ends with its deployment (then the stack holds the resource).
 */
async function claimImports(
  core: StacksCore,
  name: string,
  deployment: string,
  analysis: Analysis,
  imports: Record<string, string>,
): Promise<void> {
  const claimed: string[] = [];
  for (const [logicalId, identifier] of Object.entries(imports)) {
    const typeName = analysis.resources.get(logicalId)!.compiled.type.typeName;
    const key = heldKey(typeName, identifier);
    const holder = await core.records.claimImport(key, name, deployment);
    if (holder === undefined) {
      claimed.push(key);
      continue;
    }
    await core.records.releaseImports(claimed, deployment);
    await core.records.deleteDeployment(deployment);
    throw new TypeplaneError(
      'ResourceConflict',
      `${typeName} ${identifier} is being imported into stack ${holder} by a deployment in progress; a resource belongs to one stack: wait for that deployment to end (the resource is then in stack ${holder}, unless it rolled back)`,
    );
  }
}

/** Export names must be free (or ours); an export another stack imports cannot go away. */
async function checkExports(
  core: StacksCore,
  name: string,
  current: StackRecord | undefined,
  analysis: Analysis,
  authorize: Authorize,
): Promise<void> {
  const names = new Set<string>();
  for (const output of analysis.template.outputs.values())
    if (typeof output.exportName === 'string') names.add(output.exportName);
  for (const exportName of names) {
    const holder = await core.records.getExport(exportName);
    if (holder && holder.stack !== name)
      throw new TypeplaneError(
        'AlreadyExists',
        `export ${exportName} is already exported by ${await stacksNamed(core.records, [holder.stack], authorize)}; export names are unique`,
      );
  }
  for (const exportName of current?.exports ?? []) {
    if (names.has(exportName)) continue;
    const importers = await core.records.importers(exportName);
    if (importers.length > 0)
      throw new TypeplaneError(
        'ResourceConflict',
        `export ${exportName} of stack ${name} is imported by ${await stacksNamed(core.records, importers, authorize)}; remove the import there first`,
      );
  }
}

/**
 * A deployment whose plan admission policies or hooks deny fails before it writes or creates anything
 * (403, each verdict naming its resource's logicalId). Changes whose values are known only after apply
 * are reviewed when the engine makes them; a template whose values cannot be worked out now is left
 * to fail as it would. A stored plan applied whose changes are still those it planned is not
 * reviewed again: its verdicts stand, and its hooks are not called a second time (as executing a
 * change set does not run its CHANGE_SET hooks again); each change is judged when it is made.
 */
async function refuseDenied(
  core: StacksCore,
  name: string,
  analysis: Analysis,
  stack: StackRecord | undefined,
  held: Map<string, ResourceRecord>,
  caller: StackCaller | undefined,
  planned: readonly PlannedChange[] | undefined,
): Promise<void> {
  const records = stack && !NEVER_CREATED.has(stack.status) ? held : new Map<string, ResourceRecord>();
  // Nothing judges a change of any type the stack makes or holds (and no stored plan's verdicts
  // stand): no plan to work out, the usual case.
  if (!planned && (await firstJudged(core, [...typesOf(analysis), ...typesIn(records)])) === undefined)
    return;
  let changes;
  try {
    changes = await changesOf(core, name, analysis, stack, records);
  } catch {
    return;
  }
  await refuseDeniedChanges(core, name, changes, records, caller, planned);
}

/** Refuses `changes` when their review (or their stored plan's, when they are still its) denies one. */
async function refuseDeniedChanges(
  core: StacksCore,
  name: string,
  changes: PlannedChange[],
  records: ReadonlyMap<string, ResourceRecord>,
  caller: StackCaller | undefined,
  planned: readonly PlannedChange[] | undefined,
  importing?: ReadonlyMap<string, Importing>,
): Promise<void> {
  const verdicts =
    planned && sameChanges(changes, planned)
      ? planned.flatMap((c) => (c.verdicts ?? []).map((v) => ({ ...v, logicalId: c.logicalId })))
      : await reviewPlan(core, changes, records, callerOfStack(caller, name), importing);
  if (verdicts.some((v) => v.action === 'Deny'))
    throw new DeniedByVerdicts(verdicts.filter((v) => v.action !== 'Audit'));
}

/** Whether a plan's changes are those made now, what a review set on them aside. */
function sameChanges(now: readonly PlannedChange[], planned: readonly PlannedChange[]): boolean {
  const bare = (changes: readonly PlannedChange[]) =>
    canonicalJson(changes.map(({ verdicts: _v, notJudged: _n, ...change }) => change));
  return bare(now) === bare(planned);
}

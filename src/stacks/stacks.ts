/**
 * @module Stacks: many resources deployed from one template as a unit — validated, planned (a plan is
 * data, stored, applied by id), deployed in dependency order, rolled back, deleted, checked for drift.
 * Built on the engine's public operations; every state change is in the store, and deployments a
 * crashed server (or a lost replica) left behind are resumed under a lease.
 */
import { randomUUID } from 'node:crypto';
import { TypeplaneError } from '../errors.js';
import { canonicalJson, scopedClientToken } from '../engine/index.js';
import type { Registry } from '../registry/registry.js';
import type { Sealer } from '../secrets/index.js';
import type { Store } from '../store/types.js';
import { invalidCursor } from '../store/cursor.js';
import type { Diagnostic, ResourceType } from '../schema/index.js';
import { hasErrors } from '../schema/index.js';
import { jsonEqual, touchesWriteOnly } from '../model/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { analyzeTemplate, type Analysis } from './analyze.js';
import {
  Deployment,
  openParameters,
  sealParameters,
  type DeploymentContext,
  type StackEngine,
} from './deployment.js';
import { DEFAULT_PSEUDO, type PseudoParameters } from './intrinsics.js';
import { MASK } from './parameters.js';
import { computePlan, type PlannedChange } from './plan.js';
import { capDiagnostics, invalidTemplate } from './rules.js';
import {
  StackStore,
  type DeletedStack,
  type DeploymentRecord,
  type PlanRecord,
  type ResourceRecord,
  type StackEvent,
  type StackCaller,
  type StackRecord,
  type StackStatus,
} from './records.js';
import { mask } from './secrets.js';
import { loadTemplateYielding } from './template.js';
import { importedNames, importedValues, secretImports } from './imports.js';
import { registryTypes, scopedTypes } from './types.js';

export interface StacksOptions {
  engine: StackEngine;
  registry: Registry;
  store: Store;
  sealer: Sealer;
  pseudo?: Partial<PseudoParameters>;
  /** How long a server holds a deployment without renewing (a crashed server's deployment resumes after this). */
  leaseMs?: number;
  pollIntervalMs?: number;
  /** Most engine operations one deployment runs at once. */
  concurrency?: number;
  log?: DeploymentContext['log'];
  /** How long a deleted stack stays listed with its events (default {@link DELETED_STACK_RETENTION_MS}). */
  deletedRetentionMs?: number;
}

/** Deleted stacks are kept 90 days by default, as CloudFormation keeps them. */
export const DELETED_STACK_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/** Throws AccessDenied unless the caller may reach every one of `typeNames`. */
type Authorize = (typeNames: string[]) => void;

/** Stack names: as CloudFormation's. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;
const TERMINAL = /(_COMPLETE|_FAILED)$/;
const NEVER_CREATED: ReadonlySet<StackStatus> = new Set([
  'ROLLBACK_COMPLETE',
  'CREATE_FAILED',
  'ROLLBACK_FAILED',
]);
const TOKENS = 'typeplane:stack-tokens';
/** What a listing's `nextToken` is sealed for: opaque, it names no stack (nor one out of reach). */
const LIST_CURSOR = 'stack-list-cursor';
/** How often a wait reads a stack's stamp, for the writes of another replica (its own wake it at once). */
const WAIT_FALLBACK_MS = 500;
/** An event id (`timeKey`), or its time part alone: events after that instant. */
const EVENT_KEY = /^\d{1,15}(-[0-9a-f]{8})?$/;

export interface StackView {
  stackName: string;
  stackId: string;
  status: StackStatus;
  statusReason?: string;
  description?: string;
  createdAt: string;
  updatedAt: string;
  version: number;
  deploymentId?: string;
  parameters: Record<string, unknown>;
  outputs: { name: string; value: unknown; description?: string; exportName?: string }[];
  resources: { logicalId: string; type: string; identifier?: string; status: string; updatedAt: string }[];
}

/** A deployment (or deletion) just begun: the stack as it stands, and when the server began it. */
export interface Started {
  stack: StackView;
  deploymentId: string;
  /** Server time; the deployment's events come after it (`events?after=`). */
  startedAt: string;
}

export interface DriftDifference {
  path: string;
  expected?: unknown;
  actual?: unknown;
  kind: 'ADD' | 'REMOVE' | 'NOT_EQUAL';
}

export interface ResourceDrift {
  logicalId: string;
  type: string;
  identifier?: string;
  status: 'IN_SYNC' | 'MODIFIED' | 'DELETED';
  differences: DriftDifference[];
}

export class Stacks {
  readonly records: StackStore;
  private readonly ctx: DeploymentContext;
  private readonly owner = `stacks-${randomUUID()}`;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly deletedRetentionMs: number;
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(private readonly options: StacksOptions) {
    this.records = new StackStore(options.store, options.sealer);
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.deletedRetentionMs = options.deletedRetentionMs ?? DELETED_STACK_RETENTION_MS;
    this.ctx = {
      engine: options.engine,
      records: this.records,
      types: registryTypes(options.registry),
      pseudo: { ...DEFAULT_PSEUDO, ...options.pseudo },
      concurrency: options.concurrency ?? 32,
      log: options.log ?? { info() {}, warn() {} },
    };
  }

  /** Resume deployments left behind, and keep looking for them (another replica's, after it is lost). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const poll = () => {
      this.resumeDue().catch((e: unknown) =>
        this.ctx.log.warn({ err: String(e) }, 'resuming stack deployments failed'),
      );
      this.timer = setTimeout(poll, this.pollIntervalMs);
      this.timer.unref();
    };
    poll();
  }

  /** Stop resuming; running deployments stop issuing operations and stay resumable. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.running.values()]);
  }

  // ---- Validate and plan ----

  /** What `Fn::GetAtt` would find empty: warned of at validation and plan, not failed at deploy. */
  private readonly readOnlyNeverSet = (type: ResourceType) => this.ctx.engine.readOnlyNeverSet(type);

  /**
   * Check a template. Given `parameters` (even none), they are checked as plan and deploy will check
   * them, a missing one an error; without, each parameter that has no value is a warning (TP4025).
   */
  async validate(
    text: string,
    parameters: Record<string, unknown> | undefined = undefined,
    authorize: Authorize = () => {},
  ): Promise<{ valid: boolean; diagnostics: Diagnostic[]; types: string[] }> {
    const loaded = await loadTemplateYielding(text);
    if (!loaded.template) return { valid: false, diagnostics: capDiagnostics(loaded.diagnostics), types: [] };
    const result = await analyzeTemplate(loaded.template, {
      types: scopedTypes(this.ctx.types, authorize),
      parameters: parameters ?? {},
      requireValues: parameters !== undefined,
      pseudo: this.ctx.pseudo,
      readOnlyNeverSet: this.readOnlyNeverSet,
    });
    const diagnostics = capDiagnostics([...loaded.diagnostics, ...result.diagnostics]);
    return {
      valid: !hasErrors(diagnostics),
      diagnostics,
      types: result.analysis ? typesOf(result.analysis) : [],
    };
  }

  /** Analyse a template for a stack: every problem at once, or the analysis. */
  private async analyze(
    name: string,
    text: string,
    parameters: Record<string, unknown>,
    authorize: Authorize,
  ): Promise<Analysis> {
    assertStackName(name);
    if (typeof text !== 'string' || text.trim() === '')
      throw new TypeplaneError('InvalidRequest', 'template must be the template text (JSON or YAML)');
    const loaded = await loadTemplateYielding(text);
    if (!loaded.template || hasErrors(loaded.diagnostics)) throw invalidTemplate(loaded.diagnostics);
    // An imported value is another stack's: the caller must reach that stack's every type to read it.
    for (const exportName of importedNames(loaded.template)) {
      const holder = await this.records.getExport(exportName);
      if (holder)
        await unnamed(`the stack exporting ${exportName}`, async () =>
          authorize(await this.recordedTypes(holder.stack)),
        );
    }
    const imports = await importedValues(this.records, loaded.template);
    const result = await analyzeTemplate(loaded.template, {
      types: scopedTypes(this.ctx.types, authorize),
      parameters,
      requireValues: true,
      stackName: name,
      pseudo: this.ctx.pseudo,
      importValue: (n) => imports.get(n)?.value,
      secretImports: secretImports(imports),
      readOnlyNeverSet: this.readOnlyNeverSet,
    });
    if (!result.analysis) throw invalidTemplate(result.diagnostics);
    return result.analysis;
  }

  async plan(
    name: string,
    text: string,
    parameters: Record<string, unknown>,
    authorize: (typeNames: string[]) => void = () => {},
  ): Promise<PlanRecord> {
    const analysis = await this.analyze(name, text, parameters, authorize);
    const current = await this.records.getStack(name);
    authorize(typesOf(analysis));
    if (current) await unnamed(`stack ${name}`, async () => authorize(await this.recordedTypes(name)));
    const records =
      current && !NEVER_CREATED.has(current.record.status)
        ? await this.records.getResources(name)
        : new Map();
    const stackId = current?.record.stackId ?? 'known after apply';
    const imports = await importedValues(this.records, analysis.template);
    const changes = computePlan(analysis, records, {
      stackName: name,
      stackId,
      pseudo: this.ctx.pseudo,
      importValue: (n) => imports.get(n)?.value,
    });
    const plan: PlanRecord = {
      planId: randomUUID(),
      stack: name,
      baseVersion: current?.record.version ?? 0,
      template: text,
      parameters: sealParameters(this.records, name, parameters, analysis.secretParameters),
      changes,
      warnings: analysis.warnings,
      createdAt: new Date().toISOString(),
    };
    await this.records.putPlan(plan);
    return plan;
  }

  async getPlan(
    name: string,
    planId: string,
    authorize: Authorize = () => {},
  ): Promise<{
    planId: string;
    stackName: string;
    createdAt: string;
    changes: PlannedChange[];
    /** The template's warnings (an answer carries them as validate does). */
    diagnostics: Diagnostic[];
    current: boolean;
  }> {
    const plan = await this.records.getPlan(name, planId);
    if (!plan || plan.stack !== name) throw planNotFound(name, planId);
    // The caller named the plan only: a refusal names none of its types.
    await unnamed(`plan ${planId}`, () =>
      authorize([...new Set((plan.changes as PlannedChange[]).map((c) => c.type))]),
    );
    const stack = await this.records.getStack(name);
    return {
      planId,
      stackName: name,
      createdAt: plan.createdAt,
      changes: plan.changes as PlannedChange[],
      diagnostics: (plan.warnings ?? []) as Diagnostic[],
      current: (stack?.record.version ?? 0) === plan.baseVersion,
    };
  }

  // ---- Deploy ----

  /** Start deploying a template to a stack (created when absent); returns at once. */
  async deploy(
    name: string,
    text: string,
    parameters: Record<string, unknown>,
    options: {
      noRollback?: boolean;
      clientToken?: string;
      authorize?: (typeNames: string[]) => void;
      caller?: StackCaller;
    } = {},
  ): Promise<Started> {
    const authorize = options.authorize ?? (() => {});
    // Access first: a client token replays only to a caller who may make the request now.
    const analysis = await this.analyze(name, text, parameters, authorize);
    authorize(typesOf(analysis));
    await unnamed(`stack ${name}`, async () => authorize(await this.recordedTypes(name)));
    // Client tokens are each caller's own: another's token neither replays nor collides.
    const clientToken = scopedClientToken(options.clientToken, options.caller);
    const replay = await this.replayed(name, clientToken, {
      text,
      parameters,
      noRollback: options.noRollback === true,
    });
    if (replay) {
      // The token's stack was deleted since (or deleted and made anew): its deployment is gone, and
      // replaying the request would make the stack again long after the client saw it deleted.
      const current = await this.records.getStack(name);
      if (!current || (replay.stackId !== undefined && current.record.stackId !== replay.stackId))
        throw new TypeplaneError(
          'ResourceConflict',
          `this clientToken deployed stack ${name}, which has since been deleted; send a new clientToken to deploy it again`,
        );
      return {
        stack: await this.describe(name),
        deploymentId: replay.deploymentId,
        startedAt: replay.startedAt,
      };
    }
    return this.begin(name, analysis, text, parameters, {
      ...options,
      ...(clientToken !== undefined ? { clientToken } : {}),
    });
  }

  /** Apply a stored plan: refused when the stack changed since it was made. */
  async applyPlan(
    name: string,
    planId: string,
    options: { noRollback?: boolean; authorize?: (typeNames: string[]) => void; caller?: StackCaller } = {},
  ): Promise<Started> {
    const plan = await this.records.getPlan(name, planId);
    if (!plan || plan.stack !== name) throw planNotFound(name, planId);
    const current = await this.records.getStack(name);
    if ((current?.record.version ?? 0) !== plan.baseVersion)
      throw new TypeplaneError(
        'ResourceConflict',
        `stack ${name} changed since plan ${planId} was made (version ${plan.baseVersion}, now ${current?.record.version ?? 'deleted'}); make a new plan`,
      );
    const parameters = openParameters(this.records, name, plan.parameters);
    const authorize = options.authorize ?? (() => {});
    // The caller named the plan only: a refusal names none of the types it or the stack holds.
    const analysis = await unnamed(`stack ${name}`, async () => {
      const analyzed = await this.analyze(name, plan.template, parameters, authorize);
      authorize([...typesOf(analyzed), ...(await this.recordedTypes(name))]);
      return analyzed;
    });
    return this.begin(name, analysis, plan.template, parameters, {
      ...options,
      baseVersion: plan.baseVersion,
      planId,
    });
  }

  private async begin(
    name: string,
    analysis: Analysis,
    text: string,
    parameters: Record<string, unknown>,
    options: {
      noRollback?: boolean;
      clientToken?: string;
      baseVersion?: number;
      planId?: string;
      caller?: StackCaller;
      authorize?: Authorize;
    },
  ): Promise<Started> {
    await this.checkExports(name, analysis, options.authorize ?? (() => {}));
    const id = randomUUID();
    const existing = await this.records.getStack(name);
    const update = existing !== undefined && !NEVER_CREATED.has(existing.record.status);
    const deployment: DeploymentRecord = {
      id,
      stack: name,
      kind: 'deploy',
      phase: 'forward',
      noRollback: options.noRollback === true,
      template: text,
      parameters: sealParameters(this.records, name, parameters, analysis.secretParameters),
      update,
      ...(options.planId ? { planId: options.planId } : {}),
      ...(options.caller ? { caller: options.caller } : {}),
      owner: this.owner,
      leaseUntil: new Date(Date.now() + this.leaseMs).toISOString(),
      startedAt: new Date().toISOString(),
    };
    const stamp = await this.records.insertDeployment(deployment);
    try {
      await this.markStarted(
        name,
        id,
        update ? 'UPDATE_IN_PROGRESS' : 'CREATE_IN_PROGRESS',
        [...typesOf(analysis), ...(await this.recordedTypes(name))],
        options.baseVersion,
      );
    } catch (e) {
      await this.records.deleteDeployment(id);
      throw e;
    }
    if (options.clientToken)
      await this.rememberToken(
        name,
        options.clientToken,
        {
          deploymentId: id,
          startedAt: deployment.startedAt,
          stackId: (await this.records.getStack(name))?.record.stackId,
        },
        {
          text,
          parameters,
          noRollback: options.noRollback === true,
        },
      );
    await this.records.addEvent(name, {
      logicalId: name,
      type: 'Typeplane::Stack',
      identifier: (await this.records.getStack(name))!.record.stackId,
      status: update ? 'UPDATE_IN_PROGRESS' : 'CREATE_IN_PROGRESS',
    });
    this.run(deployment, stamp);
    return { stack: await this.describe(name), deploymentId: id, startedAt: deployment.startedAt };
  }

  private async markStarted(
    name: string,
    id: string,
    status: StackStatus,
    types: string[],
    baseVersion?: number,
  ): Promise<void> {
    const now = new Date().toISOString();
    const inserted = await this.records.insertStack({
      name,
      stackId: `typeplane:stack/${name}/${randomUUID()}`,
      status,
      createdAt: now,
      updatedAt: now,
      version: 1,
      outputs: [],
      exports: [],
      imports: [],
      types: [...new Set(types)],
      deployment: id,
    });
    if (inserted) {
      if (baseVersion !== undefined && baseVersion !== 0) {
        await this.records.deleteStack(name);
        throw new TypeplaneError(
          'ResourceConflict',
          `stack ${name} was deleted since the plan was made; make a new plan`,
        );
      }
      return;
    }
    await this.records.updateStack(name, (s) => {
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
    });
  }

  /**
   * Other stacks as a refusal names them: those the caller reaches every type of by name, the others
   * only counted (export names are shared by every tenant; which stacks hold them is not).
   */
  private async stacksNamed(names: string[], authorize: Authorize): Promise<string> {
    const shown: string[] = [];
    for (const other of names)
      try {
        authorize(await this.recordedTypes(other));
        shown.push(other);
      } catch (e) {
        if (!(e instanceof TypeplaneError && e.code === 'AccessDenied')) throw e;
      }
    const hidden = names.length - shown.length;
    const parts = [
      ...(shown.length > 0 ? [`stack ${shown.join(', ')}`] : []),
      ...(hidden > 0
        ? [hidden === 1 ? 'a stack out of your reach' : `${hidden} stacks out of your reach`]
        : []),
    ];
    return parts.join(' and ');
  }

  /** Export names must be free (or ours); an export another stack imports cannot go away. */
  private async checkExports(name: string, analysis: Analysis, authorize: Authorize): Promise<void> {
    const names = new Set<string>();
    for (const output of analysis.template.outputs.values())
      if (typeof output.exportName === 'string') names.add(output.exportName);
    for (const exportName of names) {
      const holder = await this.records.getExport(exportName);
      if (holder && holder.stack !== name)
        throw new TypeplaneError(
          'AlreadyExists',
          `export ${exportName} is already exported by ${await this.stacksNamed([holder.stack], authorize)}; export names are unique`,
        );
    }
    const current = await this.records.getStack(name);
    for (const exportName of current?.record.exports ?? []) {
      if (names.has(exportName)) continue;
      const importers = await this.records.importers(exportName);
      if (importers.length > 0)
        throw new TypeplaneError(
          'ResourceConflict',
          `export ${exportName} of stack ${name} is imported by ${await this.stacksNamed(importers, authorize)}; remove the import there first`,
        );
    }
  }

  // ---- Delete ----

  async delete(
    name: string,
    authorize: (typeNames: string[]) => void = () => {},
    caller?: StackCaller,
  ): Promise<Started> {
    assertStackName(name);
    const current = await this.records.getStack(name);
    if (!current) throw stackNotFound(name);
    await unnamed(`stack ${name}`, async () => authorize(await this.recordedTypes(name)));
    // Each deletion forgets the deleted stacks past the retention, as listing them does.
    this.purgeDeleted().catch((e: unknown) =>
      this.ctx.log.warn({ err: String(e) }, 'forgetting deleted stacks past their retention failed'),
    );
    for (const exportName of current.record.exports) {
      const importers = (await this.records.importers(exportName)).filter((s) => s !== name);
      if (importers.length > 0)
        throw new TypeplaneError(
          'ResourceConflict',
          `stack ${name} cannot be deleted: its export ${exportName} is imported by ${await this.stacksNamed(importers, authorize)}; remove the import there first`,
        );
    }
    const id = randomUUID();
    const deployment: DeploymentRecord = {
      id,
      stack: name,
      kind: 'delete',
      phase: 'delete',
      noRollback: true,
      update: true,
      ...(caller ? { caller } : {}),
      owner: this.owner,
      leaseUntil: new Date(Date.now() + this.leaseMs).toISOString(),
      startedAt: new Date().toISOString(),
    };
    const stamp = await this.records.insertDeployment(deployment);
    try {
      await this.records.updateStack(name, (s) => {
        if (s.deployment !== undefined || !TERMINAL.test(s.status))
          throw new TypeplaneError('ResourceConflict', `stack ${name} is ${s.status}; wait for it to finish`);
        return { ...s, status: 'DELETE_IN_PROGRESS', deployment: id, version: s.version + 1 };
      });
    } catch (e) {
      await this.records.deleteDeployment(id);
      throw e;
    }
    await this.records.addEvent(name, {
      logicalId: name,
      type: 'Typeplane::Stack',
      identifier: current.record.stackId,
      status: 'DELETE_IN_PROGRESS',
    });
    this.run(deployment, stamp);
    return { stack: await this.describe(name), deploymentId: id, startedAt: deployment.startedAt };
  }

  // ---- Reading ----

  async describe(name: string): Promise<StackView> {
    const current = await this.records.getStack(name);
    if (!current) throw stackNotFound(name);
    const s = current.record;
    const resources = await this.records.getResources(name);
    return {
      stackName: s.name,
      stackId: s.stackId,
      status: s.status,
      ...(s.statusReason !== undefined ? { statusReason: s.statusReason } : {}),
      ...(s.description !== undefined ? { description: s.description } : {}),
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      version: s.version,
      ...(s.deployment !== undefined ? { deploymentId: s.deployment } : {}),
      parameters: Object.fromEntries(
        Object.entries(s.parameters ?? {}).map(([k, v]) => ['sealed' in v ? [k, MASK] : [k, v.value]][0]!),
      ),
      outputs: this.shownOutputs(s),
      resources: [...resources.values()].map((r) => ({
        logicalId: r.logicalId,
        type: r.type,
        ...(r.identifier !== undefined ? { identifier: r.identifier } : {}),
        status: r.status,
        updatedAt: r.updatedAt,
      })),
    };
  }

  private shownOutputs(s: StackRecord): StackView['outputs'] {
    return s.outputs.map((o) => ({
      name: o.name,
      value: 'sealed' in o.value ? MASK : o.value.value,
      ...(o.description !== undefined ? { description: o.description } : {}),
      ...(o.exportName !== undefined ? { exportName: o.exportName } : {}),
    }));
  }

  /**
   * A page of stacks, those whose every used type `visible` accepts (a page may then hold fewer than
   * `limit`). The `nextToken` is sealed: it names no stack, read or left out.
   */
  async list(
    options: {
      limit?: number;
      nextToken?: string;
      visible?: (typeName: string) => boolean;
      /** The deleted stacks instead, oldest deletion first. */
      deleted?: boolean;
    } = {},
  ): Promise<{
    stacks: {
      stackName: string;
      stackId?: string;
      status: StackStatus | 'DELETE_COMPLETE';
      updatedAt: string;
      deletedAt?: string;
      description?: string;
    }[];
    nextToken: string | null;
  }> {
    if (options.deleted) return this.listDeleted(options);
    const page = await this.records.listStacks(
      Math.min(Math.max(options.limit ?? 100, 1), 1000),
      options.nextToken === undefined ? undefined : this.openCursor(options.nextToken),
    );
    const stacks = [];
    for (const s of page.items) {
      if (options.visible && !(await this.usedTypes(s)).every(options.visible)) continue;
      stacks.push({
        stackName: s.name,
        status: s.status,
        updatedAt: s.updatedAt,
        ...(s.description !== undefined ? { description: s.description } : {}),
      });
    }
    return {
      stacks,
      nextToken: page.nextToken ? this.options.sealer.seal(page.nextToken, LIST_CURSOR) : null,
    };
  }

  private async listDeleted(options: {
    limit?: number;
    nextToken?: string;
    visible?: (typeName: string) => boolean;
  }): Promise<{ stacks: ReturnType<typeof deletedView>[]; nextToken: string | null }> {
    await this.purgeDeleted();
    const page = await this.records.listDeleted(
      Math.min(Math.max(options.limit ?? 100, 1), 1000),
      options.nextToken === undefined ? undefined : this.openCursor(options.nextToken),
    );
    const visible = options.visible;
    return {
      stacks: page.items.filter((d) => !visible || d.types.every(visible)).map(deletedView),
      nextToken: page.nextToken ? this.options.sealer.seal(page.nextToken, LIST_CURSOR) : null,
    };
  }

  /** Forget the deleted stacks older than the retention (cheap when there are none: one read). */
  async purgeDeleted(): Promise<number> {
    return this.records.purgeDeleted(new Date(Date.now() - this.deletedRetentionMs).toISOString());
  }

  /**
   * The deleted stack `stackId` of `name`, or the last deleted of that name; undefined when none is
   * kept, or the caller reaches none of its types (out of reach answers as missing).
   */
  private async deletedStack(
    name: string,
    stackId: string | undefined,
    visible: (typeName: string) => boolean,
  ): Promise<DeletedStack | undefined> {
    const kept = new Date(Date.now() - this.deletedRetentionMs).toISOString();
    const found = (await this.records.deletedNamed(name))
      .filter((d) => d.deletedAt >= kept && (stackId === undefined || d.stackId === stackId))
      .at(-1);
    if (!found || (found.types.length > 0 && !found.types.some(visible))) return undefined;
    return found;
  }

  private openCursor(token: string): string {
    try {
      return this.options.sealer.open(token, LIST_CURSOR);
    } catch {
      throw invalidCursor();
    }
  }

  /**
   * Unless the caller (seeing the types `visible` accepts) reaches one of the types stack `name` has
   * used, throws as for a missing stack, or a missing plan `planId` of it: a stack out of reach is
   * not told from a missing one. A missing stack passes (its own answer is NotFound).
   */
  async assertReached(name: string, visible: (typeName: string) => boolean, planId?: string): Promise<void> {
    const types = await this.touchedTypes(name);
    if (types.length === 0 || types.some(visible)) return;
    throw planId === undefined ? stackNotFound(name) : planNotFound(name, planId);
  }

  /**
   * A stack's events: the stack of that name, or once it is deleted (or given `stackId`, a deleted
   * one's) the events it was kept with, its final DELETE_COMPLETE included.
   */
  async events(
    name: string,
    options: { limit?: number; nextToken?: string; after?: string; stackId?: string } = {},
    visible: (typeName: string) => boolean = () => true,
  ): Promise<{ events: StackEvent[]; nextToken: string | null }> {
    const live = await this.records.getStack(name);
    const deleted =
      live && (options.stackId === undefined || live.record.stackId === options.stackId)
        ? undefined
        : ((await this.deletedStack(name, options.stackId, visible)) ?? throwing(stackNotFound(name)));
    if (options.after !== undefined && !EVENT_KEY.test(options.after))
      throw new TypeplaneError(
        'InvalidRequest',
        `after must be an event id (digits, optionally '-' and 8 hex digits), not '${options.after.slice(0, 40)}'`,
      );
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
    // A bare time is padded as event ids are, so it sorts before every event of that millisecond.
    const after = options.after?.includes('-') === false ? options.after.padStart(15, '0') : options.after;
    const page = deleted
      ? await this.records.listDeletedEvents(deleted.stackId, limit, options.nextToken, after)
      : await this.records.listEvents(name, limit, options.nextToken, after);
    // A stack event's reason may quote a resource out of the caller's reach: shown only to who sees all.
    const whole = (deleted ? deleted.types : await this.touchedTypes(name)).every(visible);
    return {
      events: page.items
        .filter((e) => e.type === 'Typeplane::Stack' || visible(e.type))
        .map((e) => {
          if (whole || e.type !== 'Typeplane::Stack' || e.reason === undefined) return e;
          const { reason: _hidden, ...rest } = e;
          return rest;
        }),
      nextToken: page.nextToken ?? null,
    };
  }

  async outputs(
    name: string,
    authorize: (typeNames: string[]) => void = () => {},
  ): Promise<StackView['outputs']> {
    const current = await this.records.getStack(name);
    if (!current) throw stackNotFound(name);
    await unnamed(`stack ${name}`, async () => authorize(await this.touchedTypes(name)));
    return this.shownOutputs(current.record);
  }

  /**
   * The stack's outputs as they are, secrets opened, each marked when it is one: for what consumes a
   * stack on the server's side (recipes fill an instance's properties from them), never for an answer.
   */
  async outputValues(name: string): Promise<{ name: string; value: unknown; secret: boolean }[]> {
    const current = await this.records.getStack(name);
    if (!current) throw stackNotFound(name);
    return current.record.outputs.map((o) => ({
      name: o.name,
      value: this.records.open(o.value, `stack-output:${name}/${o.name}`),
      secret: 'sealed' in o.value,
    }));
  }

  /** Read every resource through its provider and compare with what the stack last applied. */
  async drift(
    name: string,
    authorize: (typeNames: string[]) => void = () => {},
  ): Promise<{ stackName: string; status: 'IN_SYNC' | 'DRIFTED'; resources: ResourceDrift[] }> {
    const current = await this.records.getStack(name);
    if (!current) throw stackNotFound(name);
    const records = await this.records.getResources(name);
    await unnamed(`stack ${name}`, () => authorize([...new Set([...records.values()].map((r) => r.type))]));
    const secrets = await this.secretsOf(current.record);
    const resources: ResourceDrift[] = [];
    for (const rec of records.values()) {
      if (rec.identifier === undefined) continue;
      const type = (await this.ctx.types.get(rec.type))?.type;
      const base = { logicalId: rec.logicalId, type: rec.type, identifier: rec.identifier };
      let actual: Record<string, unknown>;
      try {
        actual = (await this.ctx.engine.read(rec.type, rec.identifier)).properties;
      } catch (e) {
        if (e instanceof TypeplaneError && e.code === 'NotFound') {
          resources.push({ ...base, status: 'DELETED', differences: [] });
          continue;
        }
        throw e;
      }
      const differences = compare(
        rec.properties,
        actual,
        '',
        (path) => type !== undefined && touchesWriteOnly(type, path),
      ).map((d) => ({
        ...d,
        ...('expected' in d ? { expected: mask(d.expected, secrets) } : {}),
        ...('actual' in d ? { actual: mask(d.actual, secrets) } : {}),
      }));
      // Properties the stack never set (read-only ones, defaults) are not drift; only those it set are compared.
      resources.push({ ...base, status: differences.length > 0 ? 'MODIFIED' : 'IN_SYNC', differences });
    }
    return {
      stackName: name,
      status: resources.every((r) => r.status === 'IN_SYNC') ? 'IN_SYNC' : 'DRIFTED',
      resources,
    };
  }

  /** A stack's secret texts: its NoEcho values and the values of the secret exports it imports. */
  private async secretsOf(s: StackRecord): Promise<string[]> {
    const out: string[] = [];
    for (const [name, v] of Object.entries(s.parameters ?? {}))
      if ('sealed' in v) {
        const value = this.records.open(v, `stack-parameter:${s.name}/${name}`);
        for (const item of Array.isArray(value) ? value : [value])
          if (String(item) !== '') out.push(String(item));
      }
    for (const name of s.imports) {
      const held = await this.records.getExport(name);
      if (held && 'sealed' in held.value)
        out.push(String(this.records.open(held.value, `stack-export:${name}`)));
    }
    return out;
  }

  /** The types a stack's resources have now (a token must reach them to change or delete the stack). */
  private async recordedTypes(name: string): Promise<string[]> {
    return [
      ...new Set([...(await this.records.getResources(name)).values()].map((r: ResourceRecord) => r.type)),
    ];
  }

  /**
   * The types a stack record says its deployments have used: each deployment adds its template's
   * before any of its resources exists, so they cover every resource's (a record written before they
   * were kept has its resources' instead).
   */
  private async usedTypes(s: StackRecord): Promise<string[]> {
    return s.types ?? this.recordedTypes(s.name);
  }

  /**
   * Every type the stack's deployments have used, whether or not a resource of it remains (a rolled
   * back one leaves none): a caller sees the stack's reasons only when it reaches all of them.
   */
  async touchedTypes(name: string): Promise<string[]> {
    const current = await this.records.getStack(name);
    return [...new Set([...(current?.record.types ?? []), ...(await this.recordedTypes(name))])];
  }

  /**
   * Wait until the stack's deployment `id` has ended (tests, the CLI's --wait via HTTP). A wait costs
   * nothing while nothing changes: it wakes on this process's writes of the stack record, and reads
   * the record's stamp alone every {@link WAIT_FALLBACK_MS} for another replica's; the template is
   * never opened until the end.
   */
  async waitFor(name: string, id: string, timeoutMs: number): Promise<StackView | undefined> {
    const until = Date.now() + timeoutMs;
    let mark = await this.records.stackMark(name);
    for (;;) {
      if (!mark) return undefined;
      const left = until - Date.now();
      if (mark.deployment !== id || left <= 0) return this.describe(name);
      mark = await this.records.nextStackMark(name, mark, Math.min(left, WAIT_FALLBACK_MS));
    }
  }

  // ---- Client tokens ----

  private async replayed(
    name: string,
    token: string | undefined,
    request: unknown,
  ): Promise<{ deploymentId: string; startedAt: string; stackId?: string } | undefined> {
    if (token === undefined) return undefined;
    const held = await this.options.store.kvGet(TOKENS, `${name}/${token}`);
    if (!held) return undefined;
    if (held.value.hash !== this.fingerprint(request))
      throw new TypeplaneError(
        'InvalidRequest',
        'this clientToken was already used for a different request; use a new token',
      );
    return {
      deploymentId: held.value.deploymentId as string,
      startedAt: String(held.value.startedAt),
      ...(typeof held.value.stackId === 'string' ? { stackId: held.value.stackId } : {}),
    };
  }

  /**
   * What a client token's request is compared as. Keyed with the server's key: the request holds
   * NoEcho values, which a plain hash in the store would let anyone with a copy of it confirm guesses of.
   */
  private fingerprint(request: unknown): string {
    return this.options.sealer.mac(canonicalJson(['stack-deployment', request]));
  }

  private async rememberToken(
    name: string,
    token: string,
    started: { deploymentId: string; startedAt: string; stackId: string | undefined },
    request: unknown,
  ): Promise<void> {
    await this.options.store.kvInsert(TOKENS, `${name}/${token}`, {
      value: { ...started, hash: this.fingerprint(request) },
      writtenBy: 'stacks',
    });
  }

  // ---- Running and resuming ----

  private run(record: DeploymentRecord, stamp: string): void {
    if (this.running.has(record.id)) return;
    let current = stamp;
    let lost = false;
    let chain: Promise<unknown> = Promise.resolve();
    /** Lease writes one at a time: each compares against the stamp the previous one left. */
    const write = (next: DeploymentRecord): Promise<boolean> => {
      const attempt = chain.then(async () => {
        if (lost) return false;
        const written = await this.records.swapDeployment(
          { ...next, owner: this.owner, leaseUntil: new Date(Date.now() + this.leaseMs).toISOString() },
          current,
        );
        if (written === undefined) lost = true;
        else current = written;
        return written !== undefined;
      });
      chain = attempt.catch(() => false);
      return attempt;
    };
    let latest = record;
    const persist = (next: DeploymentRecord) => {
      latest = next;
      return write(next);
    };
    const renew = setInterval(
      () => void write(latest).catch(() => undefined),
      Math.max(50, this.leaseMs / 3),
    );
    renew.unref();
    const deployment = new Deployment(this.ctx, record, persist, () => lost || this.stopped);
    const done = deployment
      .run()
      .catch((e: unknown) =>
        this.ctx.log.warn(
          { stack: record.stack, deployment: record.id, err: deployment.masked(String(e)) },
          'stack deployment stopped',
        ),
      )
      .finally(() => {
        clearInterval(renew);
        this.running.delete(record.id);
      });
    this.running.set(record.id, done);
  }

  private async resumeDue(): Promise<void> {
    if (this.stopped) return;
    const now = Date.now();
    for (const { record, writtenBy } of await this.records.listDeployments()) {
      if (this.running.has(record.id) || Date.parse(record.leaseUntil) > now) continue;
      const claimed = {
        ...record,
        owner: this.owner,
        leaseUntil: new Date(now + this.leaseMs).toISOString(),
      };
      const stamp = await this.records.swapDeployment(claimed, writtenBy);
      if (stamp === undefined) continue; // another server took it
      this.ctx.log.info(
        { stack: record.stack, deployment: record.id, phase: record.phase },
        'resuming stack deployment',
      );
      this.run(claimed, stamp);
    }
  }
}

function assertStackName(name: string): void {
  if (typeof name !== 'string' || !STACK_NAME.test(name))
    throw new TypeplaneError(
      'InvalidRequest',
      `stack name '${String(name).slice(0, 140)}' must start with a letter and hold at most 128 letters, digits and hyphens`,
    );
}

function throwing(e: Error): never {
  throw e;
}

/** A deleted stack as the listing shows it. */
function deletedView(d: DeletedStack) {
  return {
    stackName: d.name,
    stackId: d.stackId,
    status: d.status,
    updatedAt: d.deletedAt,
    deletedAt: d.deletedAt,
    ...(d.description !== undefined ? { description: d.description } : {}),
  };
}

function stackNotFound(name: string): TypeplaneError {
  return new TypeplaneError('NotFound', `stack ${name} does not exist`);
}

function planNotFound(name: string, planId: string): TypeplaneError {
  return new TypeplaneError('NotFound', `stack ${name} has no plan ${planId}`);
}

/**
 * An access check of types the caller did not name (those a stack holds or has used, a plan's): a
 * refusal names none of them, nor which is out of reach.
 */
async function unnamed<T>(what: string, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (e) {
    if (e instanceof TypeplaneError && e.code === 'AccessDenied')
      throw new TypeplaneError(
        'AccessDenied',
        `this token is scoped to other types and cannot reach every type of ${what}`,
      );
    throw e;
  }
}

function typesOf(analysis: Analysis): string[] {
  return [...new Set([...analysis.resources.values()].map((r) => r.compiled.type.typeName))];
}

/** Differences between what the stack set (`expected`) and what the provider reports, leaf by leaf. */
function compare(
  expected: unknown,
  actual: unknown,
  path: string,
  skip: (path: string) => boolean,
): DriftDifference[] {
  if (path !== '' && skip(path)) return [];
  const isMap = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isMap(expected) && isMap(actual)) {
    const out: DriftDifference[] = [];
    for (const [k, v] of Object.entries(expected)) {
      const at = `${path}/${escapePointerToken(k)}`;
      if (skip(at)) continue;
      if (!Object.hasOwn(actual, k)) out.push({ path: at, expected: v, kind: 'REMOVE' });
      else out.push(...compare(v, actual[k], at, skip));
    }
    // Members added inside a property the stack set are drift; top-level ones the stack never set are not.
    if (path !== '')
      for (const [k, v] of Object.entries(actual))
        if (!Object.hasOwn(expected, k) && !skip(`${path}/${escapePointerToken(k)}`))
          out.push({ path: `${path}/${escapePointerToken(k)}`, actual: v, kind: 'ADD' });
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length !== actual.length) {
    if (actual.length > expected.length) return [{ path, expected, actual, kind: 'ADD' }];
    return [{ path, expected, actual, kind: 'REMOVE' }];
  }
  return jsonEqual(expected, actual) ? [] : [{ path, expected, actual, kind: 'NOT_EQUAL' }];
}

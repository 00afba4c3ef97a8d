/**
 * @module Stacks: many resources deployed from one template as a unit — validated, planned (a plan is
 * data, stored, applied by id), deployed in dependency order, rolled back, deleted, checked for drift.
 * Built on the engine's public operations; every state change is in the store, and deployments a
 * crashed server (or a lost replica) left behind are resumed under a lease.
 *
 * This is the facade: each method hands its work to the stage that does it — validate.ts, plans.ts,
 * start.ts (a deployment begun), delete.ts (a deletion begun), resume.ts (deployments run and resumed
 * under a lease; deployment.ts and stages/ run one), views.ts, listing.ts, events.ts, drift.ts —
 * with access checks in reach.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Engine } from '../engine/index.js';
import type { Registry } from '../registry/registry.js';
import type { Sealer } from '../secrets/index.js';
import type { KvWrite, Store } from '../store/types.js';
import type { Diagnostic } from '../schema/index.js';
import type { StacksCore } from './core.js';
import { deployBuffered, type BufferedDeployment } from './buffered.js';
import { startDelete } from './delete.js';
import { drift, type ResourceDrift } from './drift.js';
import { events } from './events.js';
import { DEFAULT_PSEUDO, type PseudoParameters } from './intrinsics.js';
import { list, purgeDeleted, type ListOptions, type StackListing } from './listing.js';
import { getPlan, makePlan, type PlanView } from './plans.js';
import { assertReached, touchedTypes, type Authorize } from './reach.js';
import { StackStore, type PlanRecord, type StackCaller, type StackEvent } from './records.js';
import { DeploymentRunner } from './resume.js';
import type { DeploymentContext, StackEngine } from './stages/state.js';
import type { StacksObserver } from './observer.js';
import { applyPlan, deploy, type Adoption, type NestedIn } from './start.js';
import { directTemplate, type DirectTemplate } from './direct.js';
import type { ResourceToImport } from './import/index.js';
import { generateTemplate, type GeneratedTemplate } from './generate/index.js';
import { registryTypes } from './types.js';
import { CustomResources, withCustomResources, withCustomTypes } from './custom-resources/index.js';
import { withNestedStackType, withNestedStacks, type NestedStackHost } from './nested/index.js';
import { validate } from './validate.js';
import { resolvingEngine, serverParameterStore } from './parameter-store/index.js';
import {
  describe,
  outputValues,
  outputs,
  waitFor,
  waitForState,
  type StackState,
  type StackView,
  type Started,
} from './views.js';

export interface StacksOptions {
  /** With list: a secret a dynamic reference names by its Name is found by a filtered list. */
  engine: StackEngine & Pick<Engine, 'list'>;
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
  /** Told of ended deployments and drift checks (metrics). */
  observer?: StacksObserver;
  /** Told of each change of a deployment a review gave verdicts (the audit trail records them). */
  onReviewed?: DeploymentContext['reviewed'];
  /** How long a deleted stack stays listed with its events (default {@link DELETED_STACK_RETENTION_MS}). */
  deletedRetentionMs?: number;
  /** Serves custom resources (`Custom::*`); without, a template using one is refused as no allowed handler. */
  customResources?: CustomResources;
}

/** Deleted stacks are kept 90 days by default, as CloudFormation keeps them. */
export const DELETED_STACK_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

export class Stacks {
  readonly records: StackStore;
  private readonly core: StacksCore;
  private readonly runner: DeploymentRunner;

  constructor(options: StacksOptions) {
    this.records = new StackStore(options.store, options.sealer);
    const custom = options.customResources ?? new CustomResources(options.store);
    const parameterStore = serverParameterStore({
      engine: options.engine,
      types: registryTypes(options.registry),
      store: options.store,
      sealer: options.sealer,
    });
    this.core = {
      records: this.records,
      ctx: {
        engine: resolvingEngine(
          withNestedStacks(withCustomResources(options.engine, custom), () => this.nested),
          parameterStore,
        ),
        parameterStore,
        records: this.records,
        types: withNestedStackType(withCustomTypes(registryTypes(options.registry), custom)),
        pseudo: { ...DEFAULT_PSEUDO, ...options.pseudo },
        concurrency: options.concurrency ?? 32,
        log: options.log ?? { info() {}, warn() {} },
        ...(options.observer ? { observer: options.observer } : {}),
        ...(options.onReviewed ? { reviewed: options.onReviewed } : {}),
      },
      store: options.store,
      sealer: options.sealer,
      owner: `stacks-${randomUUID()}`,
      leaseMs: options.leaseMs ?? 30_000,
      deletedRetentionMs: options.deletedRetentionMs ?? DELETED_STACK_RETENTION_MS,
    };
    this.runner = new DeploymentRunner(this.core, options.pollIntervalMs ?? 1_000);
  }

  /** What a nested stack is deployed, waited for and deleted through: this facade. */
  private readonly nested: NestedStackHost = {
    deploy: (name, text, parameters, options) => this.deploy(name, text, parameters, options),
    delete: (name, authorize, caller) => this.delete(name, authorize, caller),
    waitForState: (name, id, timeoutMs) => this.waitForState(name, id, timeoutMs),
    outputValues: (name) => this.outputValues(name),
  };

  /** Resume deployments left behind, and keep looking for them (another replica's, after it is lost). */
  start(): void {
    this.runner.start();
  }

  /** Stop resuming; running deployments stop issuing operations and stay resumable. */
  async stop(): Promise<void> {
    await this.runner.stop();
  }

  // ---- Validate and plan ----

  /**
   * Check a template. Given `parameters` (even none), they are checked as plan and deploy will check
   * them, a missing one an error; without, each parameter that has no value is a warning (TP4025).
   */
  async validate(
    text: string,
    parameters: Record<string, unknown> | undefined = undefined,
    authorize: Authorize = () => {},
  ): Promise<{ valid: boolean; diagnostics: Diagnostic[]; types: string[] }> {
    return validate(this.core, text, parameters, authorize);
  }

  async plan(
    name: string,
    text: string,
    parameters: Record<string, unknown>,
    authorize: (typeNames: string[]) => void = () => {},
    caller?: StackCaller,
    /** An import's plan: these existing resources brought in, nothing else changed (import/). */
    resourcesToImport?: ResourceToImport[],
  ): Promise<PlanRecord> {
    return makePlan(this.core, name, text, parameters, authorize, caller, resourcesToImport);
  }

  async getPlan(name: string, planId: string, authorize: Authorize = () => {}): Promise<PlanView> {
    return getPlan(this.core, name, planId, authorize);
  }

  // ---- Deploy and delete ----

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
      /** Bring these existing resources in instead of creating them; nothing else may change (import/). */
      resourcesToImport?: ResourceToImport[];
      /** A nested stack's parent and root (nested/): kept with the stack it makes. */
      nestedIn?: NestedIn;
    } = {},
  ): Promise<Started> {
    return deploy(this.core, this.runner.run, name, text, parameters, options);
  }

  /**
   * Start deploying a template to a new stack with its records held in memory until the caller
   * flushes or drops them (see buffered.ts); `deploymentId` is the caller's, the same when run again.
   */
  async deployBuffered(
    name: string,
    text: string,
    parameters: Record<string, unknown>,
    options: {
      deploymentId: string;
      authorize?: (typeNames: string[]) => void;
      caller?: StackCaller;
      /** Resources made already from this template (see {@link direct}): recorded, not created. */
      adopt?: Adoption;
      noRollback?: boolean;
    },
  ): Promise<BufferedDeployment> {
    return deployBuffered(this.core, this.runner, name, text, parameters, options);
  }

  /**
   * A template for a new stack, evaluated without the stack's records (direct.ts): its caller makes
   * the resources and has the stack written later, by a buffered deployment adopting them. Undefined
   * when the template needs the stack's records (then it is deployed as usual).
   */
  async direct(
    name: string,
    text: string,
    parameters: Record<string, unknown>,
    /**
     * `seed`: the adopting deployment's id (physical names); `stackId`: the stack's, to be; `reuse`:
     * the text's analysis may be one made before, bound to these values (see direct.ts).
     */
    options: {
      seed: string;
      stackId: string;
      authorize?: (typeNames: string[]) => void;
      reuse?: boolean;
      /** Whether the stack exists, as the caller knows it (false: it expects none as it writes, Stacks.absent). */
      exists?: boolean;
    },
  ): Promise<DirectTemplate | undefined> {
    return directTemplate(this.core, name, text, parameters, options);
  }

  /**
   * What a transaction of another writer (the store's completeAll or kvCommit) expects when it must
   * find no stack named `name` (deleted ones kept for their events are not there): seen as it
   * commits, rather than read before.
   */
  absent(name: string): KvWrite {
    return this.records.absent(name);
  }

  /** Apply a stored plan: refused when the stack changed since it was made. */
  async applyPlan(
    name: string,
    planId: string,
    options: { noRollback?: boolean; authorize?: (typeNames: string[]) => void; caller?: StackCaller } = {},
  ): Promise<Started> {
    return applyPlan(this.core, this.runner.run, name, planId, options);
  }

  async delete(
    name: string,
    authorize: (typeNames: string[]) => void = () => {},
    caller?: StackCaller,
  ): Promise<Started> {
    return startDelete(this.core, this.runner.run, name, authorize, caller);
  }

  // ---- Reading ----

  /** A template of the resources outside stacks of the types `globs` match and `visible` accepts: see generate/. */
  async generate(
    globs: readonly string[],
    visible: (typeName: string) => boolean,
  ): Promise<GeneratedTemplate> {
    return generateTemplate(this.core, globs, visible);
  }

  /** Whether stack `name` is a nested stack (its parent deploys and deletes it; nested/). */
  async isNested(name: string): Promise<boolean> {
    return (await this.records.getStack(name))?.record.parentId !== undefined;
  }

  async describe(name: string): Promise<StackView> {
    return describe(this.core, name);
  }

  /**
   * A page of stacks, those whose every used type `visible` accepts (a page may then hold fewer than
   * `limit`). The `nextToken` is sealed: it names no stack, read or left out.
   */
  async list(options: ListOptions = {}): Promise<StackListing> {
    return list(this.core, options);
  }

  /** Forget the deleted stacks older than the retention (cheap when there are none: one read). */
  async purgeDeleted(): Promise<number> {
    return purgeDeleted(this.core);
  }

  /**
   * Unless the caller (seeing the types `visible` accepts) reaches one of the types stack `name` has
   * used, throws as for a missing stack, or a missing plan `planId` of it: a stack out of reach is
   * not told from a missing one. A missing stack passes (its own answer is NotFound).
   */
  async assertReached(name: string, visible: (typeName: string) => boolean, planId?: string): Promise<void> {
    return assertReached(this.records, name, visible, planId);
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
    return events(this.core, name, options, visible);
  }

  async outputs(
    name: string,
    authorize: (typeNames: string[]) => void = () => {},
  ): Promise<StackView['outputs']> {
    return outputs(this.core, name, authorize);
  }

  /**
   * The stack's outputs as they are, secrets opened, each marked when it is one: for what consumes a
   * stack on the server's side (recipes fill an instance's properties from them), never for an answer.
   */
  async outputValues(name: string): Promise<{ name: string; value: unknown; secret: boolean }[]> {
    return outputValues(this.core, name);
  }

  /** Read every resource through its provider and compare with what the stack last applied. */
  async drift(
    name: string,
    authorize: (typeNames: string[]) => void = () => {},
  ): Promise<{ stackName: string; status: 'IN_SYNC' | 'DRIFTED'; resources: ResourceDrift[] }> {
    return drift(this.core, name, authorize);
  }

  /**
   * Every type the stack's deployments have used, whether or not a resource of it remains (a rolled
   * back one leaves none): a caller sees the stack's reasons only when it reaches all of them.
   */
  async touchedTypes(name: string): Promise<string[]> {
    return touchedTypes(this.records, name);
  }

  /**
   * Wait until the stack's deployment `id` has ended (tests, the CLI's --wait via HTTP). A wait costs
   * nothing while nothing changes: it wakes on this process's writes of the stack record, and reads
   * the record's stamp alone every 500 ms for another replica's; the template is never opened until the end.
   */
  async waitFor(name: string, id: string, timeoutMs: number): Promise<StackView | undefined> {
    return waitFor(this.core, name, id, timeoutMs);
  }

  /** As {@link waitFor}, answering the stack's status alone (no resource listed): for a recipe's handler. */
  async waitForState(name: string, id: string, timeoutMs: number): Promise<StackState | undefined> {
    return waitForState(this.core, name, id, timeoutMs);
  }
}

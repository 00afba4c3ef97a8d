/**
 * @module A deployment whose records are held in memory (buffered-kv.ts) while it runs: a new stack
 * that a caller waits for (a recipe instance's) writes its stack, resources and events once, as they
 * ended, in one commit; its deployment record, written and deleted meanwhile, never reaches the
 * store. A crash before the flush loses only records: the
 * deployment's id is the caller's, so run again it issues the same client tokens, and every engine
 * operation it had begun replays instead of running twice. Once flushed (the caller's wait ran out),
 * it writes through under its lease like any other deployment, and is resumed like one.
 */
import type { StacksCore } from './core.js';
import { BufferedKv } from './buffered-kv.js';
import { events } from './events.js';
import { StackStore, type StackCaller, type StackEvent } from './records.js';
import type { DeploymentRunner } from './resume.js';
import { deploy, type Adoption } from './start.js';
import { outputValues, waitForState, type StackState } from './views.js';
import type { Authorize } from './reach.js';

export interface BufferedDeployment {
  readonly deploymentId: string;
  readonly startedAt: string;
  /** Settles when the deployment has ended (its records held, unless flushed meanwhile). */
  readonly done: Promise<void>;
  /** Whether its records were written (flushed), and are now written as they change. */
  readonly flushed: boolean;
  /** The stack's status as its records now say (held or written). */
  state(): Promise<StackState | undefined>;
  outputValues(): Promise<{ name: string; value: unknown; secret: boolean }[]>;
  /** The stack's events, oldest first. */
  events(limit: number): Promise<StackEvent[]>;
  /** Write what is held, in one commit; from then on, writes go to the store as they are made. */
  flush(): Promise<void>;
}

export async function deployBuffered(
  core: StacksCore,
  runner: DeploymentRunner,
  name: string,
  text: string,
  parameters: Record<string, unknown>,
  options: {
    deploymentId: string;
    authorize?: Authorize;
    caller?: StackCaller;
    adopt?: Adoption;
    noRollback?: boolean;
  },
): Promise<BufferedDeployment> {
  const kv = new BufferedKv(core.store);
  const records = new StackStore(kv, core.sealer);
  const held: StacksCore = { ...core, records, ctx: { ...core.ctx, records } };
  let done: Promise<void> | undefined;
  const started = await deploy(
    held,
    (record, stamp, begun) => {
      done = runner.launch(held, record, stamp, begun);
    },
    name,
    text,
    parameters,
    {
      deploymentId: options.deploymentId,
      ...(options.authorize ? { authorize: options.authorize } : {}),
      ...(options.caller ? { caller: options.caller } : {}),
      ...(options.adopt ? { adopt: options.adopt } : {}),
      ...(options.noRollback ? { noRollback: true } : {}),
    },
  );
  return {
    deploymentId: started.deploymentId,
    startedAt: started.startedAt,
    done: done ?? Promise.resolve(),
    get flushed() {
      return kv.writesThrough;
    },
    state: () => waitForState(held, name, started.deploymentId, 0),
    outputValues: () => outputValues(held, name),
    events: async (limit) => (await events(held, name, { limit }, () => true)).events,
    flush: () => kv.flush(),
  };
}

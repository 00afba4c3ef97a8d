/**
 * @module What the stages of {@link Stacks} share: the store and its stack records, the context a
 * deployment runs in, and this server's name and lease. Each stage (validate, plans, start, delete,
 * resume, views, listing, events, drift) is a set of functions over it; `Stacks` is their facade.
 */
import type { Sealer } from '../secrets/index.js';
import type { Store } from '../store/types.js';
import type { StackStore } from './records.js';
import type { DeploymentContext } from './stages/state.js';

export interface StacksCore {
  readonly records: StackStore;
  readonly ctx: DeploymentContext;
  readonly store: Store;
  readonly sealer: Sealer;
  /** This server, as the deployments it holds name it. */
  readonly owner: string;
  /** How long a server holds a deployment without renewing (a crashed server's deployment resumes after this). */
  readonly leaseMs: number;
  /** How long a deleted stack stays listed with its events. */
  readonly deletedRetentionMs: number;
}

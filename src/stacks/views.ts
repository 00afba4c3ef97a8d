/**
 * @module Reading one stack: its view (status, parameters and outputs with secrets masked,
 * resources), its outputs, and a wait for a deployment of it to end.
 */
import type { StacksCore } from './core.js';
import { MASK } from './parameters.js';
import { stackNotFound, touchedTypes, unnamed, type Authorize } from './reach.js';
import type { ResourceRecord, StackRecord, StackStatus } from './records.js';

/** How often a wait reads a stack's stamp, for the writes of another replica (its own wake it at once). */
const WAIT_FALLBACK_MS = 500;

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
  /** A nested stack's parent and root stacks (their stackIds). */
  parentId?: string;
  rootId?: string;
  parameters: Record<string, unknown>;
  outputs: { name: string; value: unknown; description?: string; exportName?: string }[];
  resources: {
    logicalId: string;
    type: string;
    identifier?: string;
    status: string;
    updatedAt: string;
    /** The logical ids it depends on (the edges of the stack's graph, as the console draws it). */
    dependsOn: string[];
  }[];
}

/** A deployment (or deletion) just begun: the stack as it stands, and when the server began it. */
export interface Started {
  stack: StackView;
  deploymentId: string;
  /** Server time; the deployment's events come after it (`events?after=`). */
  startedAt: string;
}

export async function describe(core: StacksCore, name: string): Promise<StackView> {
  const current = await core.records.getStack(name);
  if (!current) throw stackNotFound(name);
  return viewOf(current.record, await core.records.getResources(name));
}

/** The view of stack record `s` holding `resources`. */
export function viewOf(s: StackRecord, resources: Map<string, ResourceRecord>): StackView {
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
    ...(s.parentId !== undefined ? { parentId: s.parentId, rootId: s.rootId ?? s.parentId } : {}),
    parameters: Object.fromEntries(
      Object.entries(s.parameters ?? {}).map(([k, v]) => ['sealed' in v ? [k, MASK] : [k, v.value]][0]!),
    ),
    outputs: shownOutputs(s),
    resources: [...resources.values()].map((r) => ({
      logicalId: r.logicalId,
      type: r.type,
      ...(r.identifier !== undefined ? { identifier: r.identifier } : {}),
      status: r.status,
      updatedAt: r.updatedAt,
      dependsOn: [...(r.dependsOn ?? [])],
    })),
  };
}

function shownOutputs(s: StackRecord): StackView['outputs'] {
  return s.outputs.map((o) => ({
    name: o.name,
    value: 'sealed' in o.value ? MASK : o.value.value,
    ...(o.description !== undefined ? { description: o.description } : {}),
    ...(o.exportName !== undefined ? { exportName: o.exportName } : {}),
  }));
}

export async function outputs(
  core: StacksCore,
  name: string,
  authorize: Authorize,
): Promise<StackView['outputs']> {
  const current = await core.records.getStack(name);
  if (!current) throw stackNotFound(name);
  await unnamed(`stack ${name}`, async () => authorize(await touchedTypes(core.records, name)));
  return shownOutputs(current.record);
}

/**
 * The stack's outputs as they are, secrets opened, each marked when it is one: for what consumes a
 * stack on the server's side (recipes fill an instance's properties from them), never for an answer.
 */
export async function outputValues(
  core: StacksCore,
  name: string,
): Promise<{ name: string; value: unknown; secret: boolean }[]> {
  const current = await core.records.getStack(name);
  if (!current) throw stackNotFound(name);
  return current.record.outputs.map((o) => ({
    name: o.name,
    value: core.records.open(o.value, `stack-output:${name}/${o.name}`),
    secret: 'sealed' in o.value,
  }));
}

/**
 * Wait until the stack's deployment `id` has ended (tests, the CLI's --wait via HTTP). A wait costs
 * nothing while nothing changes: it wakes on this process's writes of the stack record, and reads
 * the record's stamp alone every {@link WAIT_FALLBACK_MS} for another replica's; the template is
 * never opened until the end.
 */
export async function waitFor(
  core: StacksCore,
  name: string,
  id: string,
  timeoutMs: number,
): Promise<StackView | undefined> {
  return (await waitForEnd(core, name, id, timeoutMs)) ? describe(core, name) : undefined;
}

/** What a stack's deployment ended with (or, past the wait, where it is): no resource is listed. */
export interface StackState {
  status: StackStatus;
  statusReason?: string;
  deploymentId?: string;
}

/** As {@link waitFor}, for a caller that needs the stack's status alone (a recipe's handler). */
export async function waitForState(
  core: StacksCore,
  name: string,
  id: string,
  timeoutMs: number,
): Promise<StackState | undefined> {
  if (!(await waitForEnd(core, name, id, timeoutMs))) return undefined;
  const s = (await core.records.getStack(name))?.record;
  return (
    s && {
      status: s.status,
      ...(s.statusReason !== undefined ? { statusReason: s.statusReason } : {}),
      ...(s.deployment !== undefined ? { deploymentId: s.deployment } : {}),
    }
  );
}

/** Whether the stack still exists once deployment `id` ended or `timeoutMs` passed. */
async function waitForEnd(core: StacksCore, name: string, id: string, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  let mark = await core.records.stackMark(name);
  for (;;) {
    if (!mark) return false;
    const left = until - Date.now();
    if (mark.deployment !== id || left <= 0) return true;
    mark = await core.records.nextStackMark(name, mark, Math.min(left, WAIT_FALLBACK_MS));
  }
}

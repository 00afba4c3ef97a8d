/**
 * @module A plan's changes put to the server's reviewer (admission policies, hooks) before anything
 * runs, as the engine will put them when they are made: each change whose properties are known now
 * gets its verdicts — an add as a CREATE, a modify as an UPDATE of the recorded properties, a remove
 * as a DELETE, an import as a CREATE of the resource as read (Typeplane takes charge of it as if it
 * made it) — and one whose values are known only after apply is reviewed when it is made. A plan
 * shows them; a deployment whose plan is denied fails before it creates or imports anything.
 */
import { callerOf } from '../auth/index.js';
import type { Caller } from '../engine/index.js';
import type { Verdict } from '../verdict.js';
import { hasUnknown, plain } from './changes.js';
import type { StacksCore } from './core.js';
import { KNOWN_AFTER_APPLY } from './intrinsics.js';
import { MASK } from './parameters.js';
import type { Importing } from './import/index.js';
import type { PlannedChange } from './plan.js';
import type { ResourceRecord, StackCaller } from './records.js';

/**
 * The first of `types` a type's rules, an admission policy or a hook could judge a change of (a
 * create, an update or a delete); undefined when nothing judges any. A type that cannot be read now
 * counts as judged: the plan's review will say what it is.
 */
export function firstJudged(
  core: StacksCore,
  types: Iterable<string>,
): string | undefined | Promise<string | undefined> {
  return judgedFrom(core, [...new Set(types)], 0);
}

/** {@link firstJudged} from `types[from]` on: at once while each answer is (the usual case). */
function judgedFrom(
  core: StacksCore,
  types: readonly string[],
  from: number,
): string | undefined | Promise<string | undefined> {
  for (let i = from; i < types.length; i++) {
    const type = types[i]!;
    let judged: boolean | Promise<boolean>;
    try {
      judged = core.ctx.engine.judgesAny(type);
    } catch {
      return type;
    }
    if (judged === true) return type;
    if (judged !== false)
      return judged.then(
        (yes) => (yes ? type : judgedFrom(core, types, i + 1)),
        () => type,
      );
  }
  return undefined;
}

/** A verdict on one of a plan's resources: which one it is about. */
export type PlanVerdict = Verdict & { logicalId: string };

/** Sets each reviewable change's `verdicts` (only when there are some); returns all of them. */
export async function reviewPlan(
  core: StacksCore,
  changes: PlannedChange[],
  records: ReadonlyMap<string, ResourceRecord>,
  caller: Caller | undefined,
  importing?: ReadonlyMap<string, Importing>,
): Promise<PlanVerdict[]> {
  const all: PlanVerdict[] = [];
  for (const change of changes) {
    const record = records.get(change.logicalId);
    const request = reviewed(change, record, importing?.get(change.logicalId));
    if (!request) {
      const notJudged = notJudgedNow(change, record);
      if (notJudged) change.notJudged = notJudged;
      continue;
    }
    const verdicts = await core.ctx.engine.preview(change.type, {
      ...request,
      ...(change.identifier !== undefined ? { identifier: change.identifier } : {}),
      ...(caller ? { caller } : {}),
    });
    // Audit verdicts are told to no one: the plan's request records them (its audit record).
    const told = verdicts.filter((v) => v.action !== 'Audit');
    if (told.length === 0) continue;
    change.verdicts = told;
    all.push(...told.map((v) => ({ ...v, logicalId: change.logicalId })));
  }
  return all;
}

/**
 * Why a change the reviewer will judge when it is made is not judged now: the values a rule, policy
 * or hook would read are not all known (each pointer into the properties: known only after apply,
 * or holding a secret the plan masks). Judging the rest alone would say what the change's real
 * values may contradict, so the plan says what it did not judge instead (as Terraform shows
 * "known after apply"). Undefined for a change the plan judged, or that no review is asked of.
 */
function notJudgedNow(
  change: PlannedChange,
  record: ResourceRecord | undefined,
): PlannedChange['notJudged'] | undefined {
  const unknown: string[] = [];
  const masked: string[] = [];
  const walk = (value: unknown, at: string): void => {
    if (typeof value === 'string') {
      if (value.includes(KNOWN_AFTER_APPLY)) unknown.push(at);
      else if (value.includes(MASK)) masked.push(at);
    } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${at}/${i}`));
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value))
        walk(v, `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  };
  const plainValue = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null)) as unknown;
  switch (change.action) {
    case 'Add':
    case 'Replace':
      walk(plainValue(change.properties), '');
      break;
    case 'Modify':
      if (!record) return undefined;
      for (const op of change.patch ?? []) walk(plainValue(op.value), op.path);
      break;
    default:
      return undefined;
  }
  if (unknown.length === 0 && masked.length === 0) return undefined;
  const said = [
    ...(unknown.length > 0 ? [`${unknown.join(', ')} known only after apply`] : []),
    ...(masked.length > 0 ? [`${masked.join(', ')} holding a secret the plan masks`] : []),
  ];
  return {
    message: `rules, admission policies and hooks judge this change when it is made, not in this plan: ${said.join('; ')}`,
    ...(unknown.length > 0 ? { unknown } : {}),
    ...(masked.length > 0 ? { masked } : {}),
  };
}

type Reviewed = {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  object?: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
};

/**
 * Whether the plan shows the value as it will be: not known only after apply, and no secret masked in
 * it (a rule or policy would judge the mask, not the value).
 */
function known(value: unknown): boolean {
  return !hasUnknown(value) && !JSON.stringify(value).includes(JSON.stringify(MASK));
}

function reviewed(
  change: PlannedChange,
  record: ResourceRecord | undefined,
  importing: Importing | undefined,
): Reviewed | undefined {
  switch (change.action) {
    case 'Import':
      return importing && { operation: 'CREATE', object: importing.model };
    case 'Add':
    case 'Replace':
      return change.properties && known(change.properties)
        ? { operation: 'CREATE', object: change.properties }
        : undefined;
    case 'Modify': {
      if (!record || !change.patch || !known(change.patch)) return undefined;
      return {
        operation: 'UPDATE',
        object: patched(record.properties, change.patch),
        oldObject: record.properties,
      };
    }
    case 'Remove':
      return record && !change.retain ? { operation: 'DELETE', oldObject: record.properties } : undefined;
    default:
      return undefined;
  }
}

/** The properties after a plan's patch (add, replace and remove of object members and list items). */
function patched(
  properties: Record<string, unknown>,
  patch: NonNullable<PlannedChange['patch']>,
): Record<string, unknown> {
  const out = structuredClone(properties);
  for (const op of patch) {
    const tokens = op.path
      .split('/')
      .slice(1)
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = tokens.pop();
    let at: unknown = out;
    for (const t of tokens) at = (at as Record<string, unknown> | undefined)?.[t];
    if (last === undefined || typeof at !== 'object' || at === null) continue;
    if (Array.isArray(at)) {
      const index = last === '-' ? at.length : Number(last);
      if (op.op === 'remove') at.splice(index, 1);
      else if (op.op === 'add') at.splice(index, 0, plain(op.value));
      else at[index] = plain(op.value);
    } else if (op.op === 'remove') delete (at as Record<string, unknown>)[last];
    else (at as Record<string, unknown>)[last] = plain(op.value);
  }
  return out;
}

/** Who a stack's changes are reviewed as: the deployment's caller, with the stack's name. */
export function callerOfStack(caller: StackCaller | undefined, stack: string): Caller | undefined {
  if (!caller) return undefined;
  const reviews = toldOf.get(caller);
  return { ...callerOf({ tokenId: caller.id, ...caller, stack }), ...(reviews ? { reviews } : {}) };
}

/** Who is told of the reviews of a caller's plans; kept apart so it is never stored with a deployment. */
const toldOf = new WeakMap<StackCaller, NonNullable<Caller['reviews']>>();

/**
 * The caller, with `reviews` told each change a review of its plan (or of a deploy's plan) gave
 * verdicts: a request's audit record. The deployment's own steps tell the deployment's trail instead.
 */
export function reviewsTo(caller: StackCaller, reviews: NonNullable<Caller['reviews']>): StackCaller {
  toldOf.set(caller, reviews);
  return caller;
}

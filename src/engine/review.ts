/**
 * @module Review: before an operation begins, the change is put to the server's reviewer (admission
 * policies and hooks, in src/policy), the same way on every path that reaches the engine — `/v1`,
 * Cloud Control, stacks and recipes. A `Deny` verdict refuses the change before anything is written;
 * the others come back to be told (`Warn`) or recorded (`Audit`). The engine imports nothing of who
 * reviews.
 */
import { withMembers } from '../members.js';
import type { Model } from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import { DeniedByVerdicts, isHookPass, type Verdict } from '../verdict.js';
import type { Caller } from './caller.js';
import { ClientTokenReused, requestHash, validateClientToken, type RequestKind } from './client-token.js';
import type { EngineContext } from './context.js';
import { toEvent } from './progress-event.js';
import type { ProgressEvent } from './types.js';

export interface ReviewRequest {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  /** The type and the version the change was checked against. */
  compiled: CompiledType;
  /** The primary identifier, when known before the handler runs. */
  identifier?: string;
  /**
   * The desired state (CREATE, UPDATE), write-only values included: the reviewer decides what a
   * policy or hook may see of them.
   */
  object?: Model;
  /** The state before (UPDATE, DELETE), write-only values included. */
  oldObject?: Model;
  caller?: Caller;
  /**
   * Asked at plan time (a stack's plan, before anything runs): nothing will change now, and a
   * reviewer that needs the change to be real (a hook with side effects) may say nothing.
   */
  dryRun?: boolean;
}

/** What tells whether a change will be reviewed: its operation, type and path (the caller). */
export type ReviewedBy = Pick<ReviewRequest, 'operation' | 'compiled'> & {
  caller: Caller | undefined;
  /** A change only planned (a preview): what judges plans too. */
  dryRun?: boolean;
};

export interface Reviewer {
  /** Every verdict on the change, `Deny` ones included (the engine refuses on those). */
  review(request: ReviewRequest): Promise<readonly Verdict[]>;
  /**
   * Whether anything would judge a change of this type and operation (a policy or hook bound to
   * it): only then is a client token's earlier operation looked for before the review (see
   * {@link replayOf}) and the change reviewed. Without it, always. Answered without a promise where
   * it can be (nothing bound, what is bound known): most changes are judged by nothing.
   */
  concerns?(change: ReviewedBy): boolean | Promise<boolean>;
}

/** Whether the reviewer would judge such a change: false without one, at once where it can say. */
export function concerned(ctx: EngineContext, change: ReviewedBy): boolean | Promise<boolean> {
  const reviewer = ctx.reviewer;
  if (!reviewer) return false;
  return reviewer.concerns ? reviewer.concerns(change) : true;
}

/**
 * The verdicts a change may proceed with; throws DeniedByVerdicts when one denies it. Without a
 * reviewer, none. When nothing would judge the change (most changes), answered without a promise.
 */
export function reviewChange(
  ctx: EngineContext,
  request: ReviewRequest,
): readonly Verdict[] | Promise<readonly Verdict[]> {
  const judged = concerned(ctx, {
    operation: request.operation,
    compiled: request.compiled,
    caller: request.caller,
  });
  return judged === false ? NONE : reviewed(ctx, request, judged);
}

async function reviewed(
  ctx: EngineContext,
  request: ReviewRequest,
  judged: true | Promise<boolean>,
): Promise<readonly Verdict[]> {
  if (judged !== true && !(await judged)) return NONE;
  const verdicts = await ctx.reviewer!.review(request);
  if (verdicts.length === 0) return NONE;
  request.caller?.reviews?.(told(request, verdicts));
  // Audit verdicts are for the trail only (collectingVerdicts), never in the caller's answer.
  if (verdicts.some((v) => v.action === 'Deny'))
    throw new DeniedByVerdicts(
      verdicts.filter((v) => v.action !== 'Audit'),
      verdicts.filter(isHookPass),
    );
  return verdicts;
}

/**
 * The operation a client token began, when this request repeats it: a retried create, update, PUT or
 * delete answers what it began without being reviewed again (a hook is called once per change, and a
 * policy registered since does not judge a change already made); a different request with the token
 * is refused (ClientTokenReused), as beginning it would be. Looked for only when a client token is
 * given and the reviewer would judge the change; otherwise beginning the operation finds the replay.
 */
export function replayOf(
  ctx: EngineContext,
  change: ReviewedBy,
  clientToken: string | undefined,
  hashed: { as: RequestKind; of: unknown },
): Promise<ProgressEvent | undefined> | undefined {
  if (clientToken === undefined) return undefined;
  // Nothing judges such a change (most): undefined at once, without a promise.
  const judged = concerned(ctx, change);
  return judged === false ? undefined : earlierBegun(ctx, change, clientToken, hashed, judged);
}

async function earlierBegun(
  ctx: EngineContext,
  change: ReviewedBy,
  clientToken: string,
  hashed: { as: RequestKind; of: unknown },
  judged: true | Promise<boolean>,
): Promise<ProgressEvent | undefined> {
  if (judged !== true && !(await judged)) return undefined;
  const token = validateClientToken(clientToken);
  const earlier = token === undefined ? undefined : await ctx.store.getOperationByClientToken(token);
  if (!earlier) return undefined;
  const type = change.compiled.type;
  if (earlier.requestHash !== requestHash(ctx.sealer, type.typeName, hashed.as, hashed.of))
    throw new ClientTokenReused(earlier.operation.requestToken);
  return toEvent(ctx, earlier.operation, type);
}

/**
 * What the reviewer would say of a change not made now (a stack's plan): every verdict, Deny ones
 * included, with `dryRun` set. None without a reviewer.
 */
export async function previewChange(
  ctx: EngineContext,
  request: Omit<ReviewRequest, 'dryRun'>,
): Promise<readonly Verdict[]> {
  if (!ctx.reviewer) return NONE;
  const verdicts = await ctx.reviewer.review(withMembers(request, { dryRun: true }));
  // A plan's request records them as a change's request does (Audit ones are told to no one else).
  if (verdicts.length > 0) request.caller?.reviews?.(told(request, verdicts));
  return verdicts;
}

/** A change a review gave verdicts, as a collector is told of it. */
export interface ReviewedChange {
  operation: ReviewRequest['operation'];
  typeName: string;
  /** Known before the change began (not a create's). */
  identifier?: string;
  /** Every verdict, Audit ones included. */
  verdicts: readonly Verdict[];
}

function told(request: Omit<ReviewRequest, 'dryRun'>, verdicts: readonly Verdict[]): ReviewedChange {
  const change: ReviewedChange = {
    operation: request.operation,
    typeName: request.compiled.type.typeName,
    verdicts,
  };
  if (request.identifier !== undefined) change.identifier = request.identifier;
  return change;
}

/**
 * The caller, with `into` told every verdict the reviews of its changes give, Audit ones included,
 * whether they succeed or not: what a front door's audit record says of them. Carried by the caller
 * rather than an async context: an AsyncLocalStorage's hooks would tax every promise of every request.
 */
export function collectingVerdicts(caller: Caller, into: Verdict[]): Caller {
  return withMembers(caller, { reviews: (change: ReviewedChange) => into.push(...change.verdicts) });
}

let starting: ((change: ReviewedChange) => void) | undefined;

/**
 * Runs `work` (an engine call made for a stack's step), telling `into` each reviewed change with its
 * verdicts: for work no request's record covers (a stack's deployment records each of its changes).
 * The callers made while `work` starts, before its first await, carry the collector (see
 * {@link reviewsWhileStarting}): a step's engine call names its caller as it is made. An inner
 * collector wins over an outer one.
 */
export function collectReviews<T>(into: ReviewedChange[], work: () => Promise<T>): Promise<T> {
  const outer = starting;
  starting = (change) => into.push(change);
  try {
    return work();
  } finally {
    starting = outer;
  }
}

/** The collector of the collectReviews whose work is starting now, as a caller's `reviews`. */
export function reviewsWhileStarting(): Pick<Caller, 'reviews'> {
  return starting ? { reviews: starting } : {};
}

const NONE: readonly Verdict[] = Object.freeze([]);

/**
 * The warnings among `verdicts`, as the operation is begun with them: kept with its record, so its
 * events carry them wherever they are read (another replica, a replay of its client token).
 */
export function warned(verdicts: readonly Verdict[]): { warnings?: Verdict[] } {
  // Hooks' passes are kept with them (Cloud Control's HooksProgressEvent lists them), told apart.
  const warnings = verdicts.filter((v) => v.action === 'Warn' || isHookPass(v));
  return warnings.length === 0 ? {} : { warnings };
}

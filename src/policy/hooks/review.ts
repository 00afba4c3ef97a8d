/**
 * @module Hooks as a part of the server's reviewer: before a change begins, every enabled hook whose
 * handler targets the resource's type is invoked, a few at a time, and each answer becomes a verdict
 * (`source: 'hook'`, `name`: the hook's type name). SUCCESS is recorded (Audit); FAILED refuses the
 * change in FAIL mode (Deny) and lets it proceed with a warning in WARN mode (Warn); a hook that
 * times out, errors or is served by nobody follows its failure mode too.
 *
 * A hook sees write-only values only when its configuration grants them (`IncludeWriteOnlyValues`),
 * and its message never carries one back: every write-only value of the change, and every setting
 * of its own marked write-only, is masked in it.
 */
import { randomUUID } from 'node:crypto';
import type { ReviewedBy, ReviewRequest } from '../../engine/index.js';
import type { HandlerLogger, HookCaller, HookServer } from '../../handler/index.js';
import { identifierOf, stripWriteOnly, type Model } from '../../model/index.js';
import type { Verdict, VerdictAction } from '../../verdict.js';
import type { ReviewPart } from '../reviewer.js';
import { invokeHook, type InvocationOutcome } from './invoke.js';
import type { ActiveHook, HookRegistrations } from './registrations.js';
import { changeSecrets, mask, settingSecrets } from './secrets.js';
import { ACTION_OF, hookApplies, pathOf } from './targets.js';

/** The most hooks invoked at once for one change. */
export const HOOK_CONCURRENCY = 8;
/** The most characters of a hook's message a verdict carries. */
export const MAX_HOOK_MESSAGE = 1024;

export interface HookReviewOptions {
  registrations: HookRegistrations;
  /** What serves each hook type name on this server. */
  servers: ReadonlyMap<string, HookServer>;
  logger: HandlerLogger;
}

/** Hooks as a review part (see {@link ReviewPart}). */
export function hookReview(options: HookReviewOptions): ReviewPart {
  return {
    async review(request) {
      const active = await options.registrations.active();
      if (active.length === 0) return [];
      const typeName = request.compiled.type.typeName;
      const path = pathOf(request);
      const applicable = active.filter((a) =>
        hookApplies(a.hook, a.settings, request.operation, typeName, path),
      );
      if (applicable.length === 0) return [];
      const token = randomUUID();
      const verdicts = await bounded(applicable, HOOK_CONCURRENCY, (a) => judge(a, request, token, options));
      return verdicts.filter((v): v is Verdict => v !== undefined);
    },
    concerns(change) {
      const fresh = options.registrations.fresh();
      return fresh
        ? anyApplies(fresh, change)
        : options.registrations.active().then((active) => anyApplies(active, change));
    },
  };
}

/** Whether any of the `active` hooks applies to `change`. */
function anyApplies(active: readonly ActiveHook[], change: ReviewedBy): boolean {
  if (active.length === 0) return false;
  const path = pathOf(change);
  const typeName = change.compiled.type.typeName;
  return active.some((a) => hookApplies(a.hook, a.settings, change.operation, typeName, path));
}

async function judge(
  { hook, settings }: ActiveHook,
  request: ReviewRequest,
  token: string,
  options: HookReviewOptions,
): Promise<Verdict | undefined> {
  const action = ACTION_OF[request.operation];
  const type = request.compiled.type;
  const server = options.servers.get(hook.typeName);
  const handler = server?.[action];
  const verdict = (outcome: VerdictAction | 'failure', message: string, reason: string): Verdict => ({
    source: 'hook',
    name: hook.typeName,
    action: outcome === 'failure' ? (settings.failureMode === 'FAIL' ? 'Deny' : 'Warn') : outcome,
    message: bound(
      mask(message, [
        ...changeSecrets(type, request),
        ...settingSecrets(hook.typeConfiguration, settings.properties),
      ]),
    ),
    reason,
  });
  if (!server || !handler)
    return verdict(
      'failure',
      server
        ? `hook server ${server.name} has no ${action} handler for ${hook.typeName}`
        : `no hook server on this Typeplane serves ${hook.typeName}; add it to the configuration's 'hooks' list`,
      'HookNotServed',
    );
  const target = request.operation === 'DELETE' ? request.oldObject : request.object;
  const shown = (model: Model) =>
    settings.includeWriteOnlyValues || type.writeOnlyProperties.length === 0
      ? model
      : stripWriteOnly(type, model);
  const logicalId = request.identifier ?? (target ? identifierOf(type, target) : undefined);
  const caller = callerOf(request);
  const outcome: InvocationOutcome = await invokeHook(
    handler,
    {
      hookTypeName: hook.typeName,
      action,
      target: {
        typeName: type.typeName,
        ...(logicalId !== undefined ? { logicalId } : {}),
        properties: shown(target ?? {}),
        ...(request.operation === 'UPDATE' && request.oldObject
          ? { previousProperties: shown(request.oldObject) }
          : {}),
      },
      ...(Object.keys(settings.properties).length > 0 ? { hookConfiguration: settings.properties } : {}),
      ...(caller ? { caller } : {}),
      clientRequestToken: token,
    },
    settings.timeoutMs,
    options.logger,
  );
  switch (outcome.kind) {
    case 'timeout':
      return verdict(
        'failure',
        `hook ${hook.typeName} did not answer ${action} within ${settings.timeoutMs / 1000} s`,
        'HookTimeout',
      );
    case 'error':
      return verdict('failure', `hook ${hook.typeName} failed: ${outcome.message}`, 'HookFailed');
    case 'answer': {
      const { event } = outcome;
      if (event.status === 'SUCCESS')
        return verdict('Audit', event.message ?? `hook ${hook.typeName} passed the change`, 'Compliant');
      if (event.errorCode === 'UnsupportedTarget') return undefined;
      const code = event.errorCode ?? 'NonCompliant';
      return verdict(
        'failure',
        event.message ??
          (code === 'NonCompliant'
            ? `hook ${hook.typeName} found the change non-compliant`
            : `hook ${hook.typeName} failed (${code})`),
        code,
      );
    }
  }
}

function callerOf(request: ReviewRequest): HookCaller | undefined {
  const c = request.caller;
  if (!c) return undefined;
  return {
    tokenId: c.id,
    ...(c.role !== undefined ? { role: c.role } : {}),
    ...(c.description !== undefined ? { description: c.description } : {}),
    ...(c.stack !== undefined ? { stack: c.stack } : {}),
  };
}

function bound(message: string): string {
  return message.length <= MAX_HOOK_MESSAGE ? message : `${message.slice(0, MAX_HOOK_MESSAGE - 1)}…`;
}

/** `fn` over `items`, at most `limit` at once, results in the items' order. */
async function bounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

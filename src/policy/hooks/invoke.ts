/**
 * @module One hook invocation, bounded: the handler is called, and called again after each
 * IN_PROGRESS answer (with its callback context), until it answers SUCCESS or FAILED or its time
 * (the configuration's `TimeoutInSeconds`, callbacks included) is up. A handler that throws, answers
 * something that is not a HookEvent or ignores its signal past the deadline is a failure, never an
 * unhandled error: the hook's failure mode decides what it means.
 */
import type { HandlerLogger, HookEvent, HookHandler, HookRequest } from '../../handler/index.js';

export type InvocationOutcome =
  { kind: 'answer'; event: HookEvent } | { kind: 'timeout' } | { kind: 'error'; message: string };

/** The most invocations of one handler for one change (the first and its callbacks). */
export const MAX_HOOK_CALLS = 20;

export async function invokeHook(
  handler: HookHandler,
  request: Omit<HookRequest, 'signal' | 'callbackContext' | 'logger'>,
  timeoutMs: number,
  logger: HandlerLogger,
): Promise<InvocationOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('the hook ran out of time'));
      resolve('timeout');
    }, timeoutMs);
  });
  const deadline = Date.now() + timeoutMs;
  try {
    let callbackContext: Record<string, unknown> | undefined;
    for (let call = 1; ; call++) {
      const answer = await Promise.race([
        Promise.resolve()
          .then(() =>
            handler({
              ...request,
              ...(callbackContext ? { callbackContext } : {}),
              logger,
              signal: controller.signal,
            }),
          )
          .then(
            (event) => ({ event }),
            (error: unknown) => ({ error }),
          ),
        expired,
      ]);
      if (answer === 'timeout') return { kind: 'timeout' };
      if ('error' in answer)
        return {
          kind: 'error',
          message: `its handler threw: ${answer.error instanceof Error ? answer.error.message : String(answer.error)}`,
        };
      const problem = eventProblem(answer.event);
      if (problem) return { kind: 'error', message: `it answered ${problem}` };
      const event = answer.event;
      if (event.status !== 'IN_PROGRESS') return { kind: 'answer', event };
      if (call >= MAX_HOOK_CALLS)
        return { kind: 'error', message: `it answered IN_PROGRESS ${MAX_HOOK_CALLS} times` };
      callbackContext = event.callbackContext ?? {};
      const wait = Math.min(Math.max(0, (event.callbackDelaySeconds ?? 0) * 1000), deadline - Date.now());
      const waited = await Promise.race([
        new Promise<'waited'>((resolve) => setTimeout(resolve, wait, 'waited')),
        expired,
      ]);
      if (waited === 'timeout') return { kind: 'timeout' };
    }
  } finally {
    clearTimeout(timer);
  }
}

function eventProblem(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return 'something that is not a HookEvent';
  const e = event as Partial<HookEvent>;
  if (e.status !== 'SUCCESS' && e.status !== 'FAILED' && e.status !== 'IN_PROGRESS')
    return 'a status other than SUCCESS, FAILED or IN_PROGRESS';
  if (e.message !== undefined && typeof e.message !== 'string') return 'a message that is not a string';
  if (e.status === 'FAILED' && typeof e.errorCode !== 'string') return 'FAILED without an errorCode';
  return undefined;
}

/**
 * @module The signal a handler call is given: aborted when the worker's own signal is (a shutdown, a
 * cancel), when the operation's deadline passes, or when the call outlasts its limit. One controller
 * and one timer (for whichever limit comes first): `AbortSignal.any` of two `AbortSignal.timeout`s
 * cost a create some twenty microseconds (their timers, and the weak references `any` keeps).
 */

export interface CallSignal {
  readonly signal: AbortSignal;
  /** Which limit ended the call, if one did. */
  readonly expired: 'deadline' | 'callLimit' | undefined;
  /** The call is over: its timer and its listener go. */
  done(): void;
}

export function callSignal(parent: AbortSignal, deadlineMs: number, callLimitMs: number): CallSignal {
  const controller = new AbortController();
  let expired: CallSignal['expired'];
  const first = deadlineMs <= callLimitMs ? 'deadline' : 'callLimit';
  const timer = setTimeout(
    () => {
      expired = first;
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    },
    Math.max(1, Math.min(deadlineMs, callLimitMs)),
  );
  // As AbortSignal.timeout's: a call in progress does not keep the process alive by its limit alone.
  timer.unref();
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    done() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}

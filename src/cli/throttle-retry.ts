/**
 * @module How the CLI's client waits before sending a throttled call again (`429 Throttling`, see
 * docs/fairness.md): as long as the server's `Retry-After` says, and at least an exponential backoff
 * with jitter (0.5 s, 1 s, 2 s, … at most 20 s), so that many clients throttled together do not come
 * back together. Such a refusal came before any work, so any call may be sent again.
 */

/** Throttled calls are sent again this many times at most. */
export const THROTTLE_RETRIES = 5;
const MAX_WAIT_S = 20;

/** Whether an answer is a throttling refusal the call may be sent again after. */
export function isThrottled(status: number, body: unknown): boolean {
  return (
    status === 429 &&
    typeof body === 'object' &&
    body !== null &&
    (body as { errorCode?: unknown }).errorCode === 'Throttling'
  );
}

/** Seconds to wait before retry `attempt` (1 for the first), given the answer's Retry-After header. */
export function retryDelaySeconds(retryAfter: string | string[] | undefined, attempt: number): number {
  const said = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  const backoff = Math.min(MAX_WAIT_S, 0.5 * 2 ** (attempt - 1)) * (1 + Math.random() * 0.2);
  return Math.min(MAX_WAIT_S, Math.max(Number.isFinite(said) && said > 0 ? said : 0, backoff));
}

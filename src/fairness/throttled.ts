/**
 * @module The refusal of a request over its flow's share: answered `429 Throttling` with `Retry-After`
 * on `/v1`, `ThrottlingException` on Cloud Control (whose SDKs then back off and retry).
 */

/** Why a flow's request was refused: its token's rate, its queue full, or its wait too long. */
export type ThrottleReason = 'rate' | 'queue-full' | 'queue-timeout';

export class Throttled extends Error {
  constructor(
    readonly reason: ThrottleReason,
    /** Whole seconds to wait before retrying (at least 1): the `Retry-After` header's value. */
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super(message);
    this.name = 'Throttled';
  }
}

/**
 * @module Usage errors: a flag or argument the command cannot use. They exit 2 and name the flag,
 * before anything is sent anywhere.
 */

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The exit codes every command shares (a command's help adds its own). */
export const EXIT = {
  ok: 0,
  /** The operation (or check) failed, or the server refused the request. */
  failed: 1,
  usage: 2,
  /** `--wait` ran out with the operation still PENDING or IN_PROGRESS. */
  stillRunning: 3,
  /** `stack drift`: the stack drifted (a resource was modified or deleted), as `terraform plan -detailed-exitcode` tells a change. */
  drifted: 4,
  /** Interrupted (Ctrl-C). */
  interrupted: 130,
} as const;

/** A whole number from `min` to `max` given to `flag`. */
export function wholeNumberFlag(flag: string, value: string, min: number, max: number): number {
  const n = /^\d{1,10}$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, not '${value}'`);
  return n;
}

/** The JSON text given to `flag`. */
export function jsonFlag(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${flag} is not valid JSON: ${(e as Error).message}`);
  }
}

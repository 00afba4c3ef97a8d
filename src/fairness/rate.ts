/**
 * @module Per-token limits as a platform team writes them: a rate (`100/s`, `6000/m`, `100`) and a
 * burst (requests taken at once after a quiet spell). Pure functions.
 */
import { TypeplaneError } from '../errors.js';

/** The most requests per second a token may be given; higher is no limit worth keeping. */
export const MAX_RATE = 1_000_000;
export const MAX_BURST = 1_000_000;

const RATE = /^(\d+(?:\.\d+)?)(?:\/(s|m|h))?$/;
const PER_SECOND = { s: 1, m: 60, h: 3600 } as const;

/** A token's limits: requests per second, and how many may come at once (the bucket's size). */
export interface RateLimit {
  rate: number;
  burst: number;
}

/** `100/s`, `6000/m`, `50000/h` or `100` (per second), as requests per second; throws InvalidRequest. */
export function parseRate(text: string, where = 'rate'): number {
  const match = RATE.exec(text.trim());
  const perSecond = match ? Number(match[1]) / PER_SECOND[(match[2] ?? 's') as keyof typeof PER_SECOND] : NaN;
  if (!(perSecond > 0) || perSecond > MAX_RATE)
    throw new TypeplaneError(
      'InvalidRequest',
      `${where} must be requests per second, minute or hour above 0 and at most ${MAX_RATE}/s, such as 100/s, 6000/m or 100; not '${text.slice(0, 40)}'`,
      [{ pointer: `/${where}`, message: 'not a rate' }],
    );
  return perSecond;
}

/** A burst: a whole number from 1 to {@link MAX_BURST}; throws InvalidRequest. */
export function checkBurst(value: unknown, where = 'burst'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_BURST)
    throw new TypeplaneError(
      'InvalidRequest',
      `${where} must be a whole number of requests from 1 to ${MAX_BURST}, such as 200`,
      [{ pointer: `/${where}`, message: 'not a whole number from 1' }],
    );
  return value;
}

/** A rate given alone takes twice itself as its burst (at least 1): two seconds' worth at once. */
export function defaultBurst(rate: number): number {
  return Math.min(MAX_BURST, Math.max(1, Math.ceil(rate * 2)));
}

/** A rate as written back: `100/s`, or per minute when below one a second (`30/m`). */
export function formatRate(perSecond: number): string {
  if (perSecond >= 1) return `${Number(perSecond.toFixed(3))}/s`;
  return `${Number((perSecond * 60).toFixed(3))}/m`;
}

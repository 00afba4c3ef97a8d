/**
 * @module Query parameters read strictly: what `Number()` would also accept (`0x10`, `1e2`, ` 10 `,
 * `+5`) is refused, so a value means one thing to every client and proxy.
 */
import { TypeplaneError } from '../errors.js';

const WHOLE = /^(0|[1-9][0-9]{0,8})$/;
const SECONDS = /^(0|[1-9][0-9]{0,8})(\.[0-9]{1,3})?$/;

/** `?maxResults=`: absent, or a whole number in decimal digits (the engine checks its range). */
export function maxResultsParam(value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !WHOLE.test(value))
    throw new TypeplaneError(
      'InvalidRequest',
      `maxResults must be a whole number in decimal digits, not '${shown(value)}'`,
      [{ pointer: '/query/maxResults', message: 'must be decimal digits, like 50' }],
    );
  return Number(value);
}

/** `?wait=`: absent, or seconds in decimal digits (up to three decimals) from 0 to `max`. */
export function waitParam(value: unknown, max: number): number {
  if (value === undefined || value === '') return 0;
  const n = typeof value === 'string' && SECONDS.test(value) ? Number(value) : NaN;
  if (!(n <= max))
    throw new TypeplaneError(
      'InvalidRequest',
      `wait must be a number of seconds from 0 to ${max} in decimal digits, not '${shown(value)}'`,
      [{ pointer: '/query/wait', message: `must be decimal seconds from 0 to ${max}, like 30` }],
    );
  return n;
}

/** A short, printable form of what the client sent, for the error message. */
function shown(value: unknown): string {
  if (typeof value !== 'string') return 'given more than once';
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 40 ? `${printable.slice(0, 40)}…` : printable;
}

/** `?version=` where a type is named: a registered version number. */
export function versionParam(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,8}$/.test(value))
    throw new TypeplaneError(
      'InvalidRequest',
      `version must be a version number of the type, like 2 (GET /v1/types/{typeName} lists them), not ${JSON.stringify(value)}`,
    );
  return value;
}

/**
 * @module Request ids: every log line and answer carries one (`x-request-id`).
 */

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The client's `x-request-id` when it is 1 to 128 letters, digits, `.`, `_`, `:` or `-` (UUIDs, trace
 * ids); otherwise undefined, and the server makes its own. It goes into every log line and answer,
 * so it can carry no line break, control character or megabyte of text.
 */
export function clientRequestId(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : undefined;
}

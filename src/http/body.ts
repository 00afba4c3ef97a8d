/**
 * @module Request bodies: JSON parsed within bounds. Before `JSON.parse` runs, one linear pass refuses
 * nesting deeper than {@link MAX_BODY_DEPTH}, so no later step (validation, copying, hashing,
 * storing) can run out of stack on a hostile body; `__proto__` and `constructor.prototype` keys are
 * refused rather than silently dropped, so no model can reach a prototype.
 */
import secureJson from 'secure-json-parse';
import { TypeplaneError } from '../errors.js';
import { jsonDepthOffset, jsonTextMayHoldUnkeepable, valueProblems } from '../schema/index.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * A request body's bytes as text. Malformed UTF-8 is refused: decoding it would put U+FFFD in place
 * of the bytes sent, so what is kept would silently differ from what was sent.
 *
 * @throws TypeplaneError `InvalidRequest`.
 */
export function bodyText(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new TypeplaneError(
      'InvalidRequest',
      'request body is not valid UTF-8 text; send JSON encoded as UTF-8',
    );
  }
}

/**
 * The deepest nesting of objects and arrays a JSON body may have. A resource model sits two levels
 * below the body (`{ desiredState }`, a patch value four), and type documents are bounded at 64 levels.
 */
export const MAX_BODY_DEPTH = 100;

/**
 * Whether JSON text may hold anything refused here, from its characters alone: a value no store keeps
 * (see `jsonTextMayHoldUnkeepable`), or a `constructor` key, written as it is or with any `\u` escape.
 * Text without any is parsed as it is.
 */
function suspect(text: string): boolean {
  return text.includes('\\u') || text.includes('constructor') || jsonTextMayHoldUnkeepable(text);
}

/**
 * A JSON request body as a value.
 *
 * @throws TypeplaneError `InvalidRequest` for an empty body, malformed UTF-8 or JSON, nesting deeper
 * than {@link MAX_BODY_DEPTH}, a key that would reach a prototype, a lone surrogate in a string or a
 * number too large for JSON (see `valueProblems`).
 */
export function parseJsonBody(body: string | Buffer): unknown {
  const text = typeof body === 'string' ? body : bodyText(body);
  if (text.trim() === '')
    throw new TypeplaneError('InvalidRequest', 'request body is empty; send a JSON object');
  // Depth d needs d opening brackets: a short body cannot be too deep.
  const deep = text.length > MAX_BODY_DEPTH ? jsonDepthOffset(text, MAX_BODY_DEPTH) : -1;
  if (deep >= 0) {
    throw new TypeplaneError(
      'InvalidRequest',
      `request body is nested more than ${MAX_BODY_DEPTH} levels deep (at character ${deep}); flatten the value`,
      [{ message: `must be nested at most ${MAX_BODY_DEPTH} levels deep`, offset: deep }],
    );
  }
  // Most bodies hold nothing the checks below could refuse: parsed as they are, in one pass.
  if (!suspect(text))
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Malformed: answered below, with the same message.
    }
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (e) {
    const message = (e as Error).message;
    if (/forbidden prototype property/.test(message)) {
      throw new TypeplaneError(
        'InvalidRequest',
        'request body has a "__proto__" key or a "constructor" key holding "prototype"; these names are not allowed anywhere in a body',
      );
    }
    throw new TypeplaneError('InvalidRequest', `request body is not valid JSON: ${message}`);
  }
  const problems = valueProblems(value, 10);
  if (problems.length > 0)
    throw new TypeplaneError(
      'InvalidRequest',
      `request body holds values that cannot be stored as sent: ${problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`,
      problems.map(({ pointer, message }) => ({ pointer, message })),
    );
  return value;
}

/**
 * @module Request bodies: JSON parsed within bounds. Before `JSON.parse` runs, one linear pass refuses
 * nesting deeper than {@link MAX_BODY_DEPTH}, so no later step (validation, copying, hashing,
 * storing) can run out of stack on a hostile body; `__proto__` and `constructor.prototype` keys are
 * refused rather than silently dropped, so no model can reach a prototype.
 */
import secureJson from 'secure-json-parse';
import { TypeplaneError } from '../errors.js';
import { jsonDepthOffset } from '../schema/index.js';

/**
 * The deepest nesting of objects and arrays a JSON body may have. A resource model sits two levels
 * below the body (`{ desiredState }`, a patch value four), and type documents are bounded at 64 levels.
 */
export const MAX_BODY_DEPTH = 100;

/**
 * A JSON request body as a value.
 *
 * @throws TypeplaneError `InvalidRequest` for an empty body, malformed JSON, nesting deeper than
 * {@link MAX_BODY_DEPTH} or a key that would reach a prototype.
 */
export function parseJsonBody(text: string): unknown {
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
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
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
}

/**
 * @module Requests that name no version are checked against the type's default version. When a
 * registration makes another version the default between that check and the operation's begin, the
 * store refuses the begin (nothing is written) and the request is checked again, against the new
 * default: no write checked against a replaced version lands after its replacement.
 */
import { DefaultVersionMoved } from '../store/types.js';
import type { EngineContext } from './context.js';

/** Checks again after the default moved; a type re-registered faster than that is a 409 to retry. */
const ATTEMPTS = 3;

export async function againstDefaultVersion<T>(ctx: EngineContext, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof DefaultVersionMoved) || attempt >= ATTEMPTS) throw error;
      ctx.registry.forget(error.typeName);
    }
  }
}

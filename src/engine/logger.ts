/**
 * @module Adapts a pino logger to the engine's small logging interface (message first, fields second).
 */
import type { Logger } from 'pino';
import type { EngineLogger } from './engine.js';

export function engineLogger(logger: Logger): EngineLogger {
  return {
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
    child: (bindings) => engineLogger(logger.child(bindings)),
  };
}

/**
 * @module The engine's small logging interface (message first, fields second), and its pino adapter.
 */
import type { Logger } from 'pino';
import type { HandlerLogger } from '../handler/index.js';

export interface EngineLogger extends HandlerLogger {
  child(bindings: Record<string, unknown>): EngineLogger;
}

export function engineLogger(logger: Logger): EngineLogger {
  return {
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
    child: (bindings) => engineLogger(logger.child(bindings)),
  };
}

/** A child logger made only when something is logged (most handler calls log nothing). */
export function lazyChild(parent: EngineLogger, bindings: Record<string, unknown>): EngineLogger {
  let child: EngineLogger | undefined;
  const get = () => (child ??= parent.child(bindings));
  return {
    debug: (message, fields) => get().debug(message, fields),
    info: (message, fields) => get().info(message, fields),
    warn: (message, fields) => get().warn(message, fields),
    error: (message, fields) => get().error(message, fields),
    child: (more) => get().child(more),
  };
}

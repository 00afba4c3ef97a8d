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

/** `log` with `mask` applied to every message and every string field (one level deep, as logged). */
export function maskedLogger(log: EngineLogger, mask: (text: string) => string): EngineLogger {
  const fields = (f: Record<string, unknown> | undefined) =>
    f && Object.fromEntries(Object.entries(f).map(([k, v]) => [k, typeof v === 'string' ? mask(v) : v]));
  return {
    debug: (message, f) => log.debug(mask(message), fields(f)),
    info: (message, f) => log.info(mask(message), fields(f)),
    warn: (message, f) => log.warn(mask(message), fields(f)),
    error: (message, f) => log.error(mask(message), fields(f)),
    child: (bindings) => maskedLogger(log.child(bindings), mask),
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

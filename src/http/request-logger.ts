/**
 * @module Each request's logger, made when the request first logs. At the levels a server runs at,
 * most requests log nothing (the framework's own lines are at info), and a child logger made for
 * every request was a measurable part of what a read costs.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** The request's logger: the framework's child of `parent` with `bindings`, made on first use. */
class RequestLogger {
  private made: FastifyBaseLogger | undefined = undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
  ) {}

  private logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings));
  }

  private log(level: Level, args: unknown[]): void {
    // A level the server does not log is skipped without making the child (once made, it decides).
    if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.logger()[level] as (...args: unknown[]) => void)(...args);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.log('error', args);
  }

  warn(...args: unknown[]): void {
    this.log('warn', args);
  }

  info(...args: unknown[]): void {
    this.log('info', args);
  }

  debug(...args: unknown[]): void {
    this.log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.log('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/**
 * The framework's child logger factory (`childLoggerFactory`): a request logger that becomes
 * `parent.child(bindings)` when it first logs. A route with a level or serializers of its own (none
 * has) gets its child at once.
 */
export function requestLogger(
  parent: Logger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined)
    return parent.child(bindings, options);
  return new RequestLogger(parent, bindings) as unknown as FastifyBaseLogger;
}

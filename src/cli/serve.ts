/**
 * @module `typeplane serve`: the API server on the embedded store.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { HookEntry, ProviderEntry, TypeplaneConfig } from '../providers/load.js';
import type { StateProviderSettings } from '../providers/index.js';
import { AUDIT_LEVELS, type AuditLevel } from '../audit/event.js';
import type { AuditSettings } from '../audit/open.js';
import { DEFAULT_HOST, DEFAULT_PORT } from '../service-defaults.js';
import { BLOCKED_PORTS } from './blocked-ports.js';
import { UsageError, wholeNumberFlag } from './usage.js';
import { FILES, readLocalBytes } from './local-files.js';
import { parseMetricsAddress } from './metrics-address.js';

interface ServeOptions {
  host: string;
  port?: string;
  dataDir: string;
  databaseUrl?: string;
  databaseSchema?: string;
  types?: string[];
  logLevel: string;
  lease: string;
  deletedStackRetention: string;
  shutdownTimeout: string;
  shutdownDelay: string;
  requestTimeout: string;
  maxConnections?: string;
  watchLimit?: string;
  watchLimitPerToken?: string;
  handlers?: string;
  handlersPerType?: string;
  handlersPerToken?: string;
  fairness: string;
  fairnessSeats?: string;
  fairnessSystemSeats?: string;
  fairnessQueueLength?: string;
  provider?: string[];
  config?: string;
  secretKeyFile?: string;
  tlsCert?: string;
  tlsKey?: string;
  allowPlainHttp?: boolean;
  requireContractReport?: boolean;
  /** Commander's negation of --no-metrics: false when given. */
  metrics: boolean;
  metricsAddress?: string;
  region?: string;
  accountId?: string;
  partition?: string;
  urlSuffix?: string;
  auditLog?: string;
  auditStore?: boolean;
  auditRetention: string;
  auditLevel: string;
  auditLogMaxSize: string;
  auditLogMaxFiles: string;
}

/** What stack templates see as AWS::Region, AWS::AccountId, AWS::Partition, AWS::URLSuffix. */
const PSEUDO_OPTIONS = [
  ['region', '--region', /^[a-z0-9-]{1,64}$/, 'letters, digits and hyphens (us-east-1)'],
  ['accountId', '--account-id', /^\d{12}$/, 'twelve digits (123456789012)'],
  ['partition', '--partition', /^[a-z-]{1,32}$/, 'lowercase letters and hyphens (aws)'],
  ['urlSuffix', '--url-suffix', /^[a-z0-9.-]{1,253}$/, 'a domain name (amazonaws.com)'],
] as const;

/** A usage error: exit code 2. */
function usage(command: Command, message: string): never {
  return command.error(`error: ${message}`, { exitCode: 2, code: 'typeplane.usage' });
}

/** A whole number given to `flag` (usage.ts's reader), or this command's usage exit. */
function wholeNumber(command: Command, flag: string, raw: string, min: number, max: number): number {
  try {
    return wholeNumberFlag(flag, raw, min, max);
  } catch (e) {
    if (e instanceof UsageError) usage(command, e.message);
    throw e;
  }
}

/** An option holding a number of seconds, above 0 (`min` 0) or from `min`, and at most an hour. */
const DURATION_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A retention as a whole number of minutes, hours or days (`90d`, `12h`, `30m`), in ms; at most 10 years. */
function retention(command: Command, flag: string, raw: string): number {
  const match = /^(\d{1,6})([mhd])$/.exec(raw.trim());
  const ms = match ? Number(match[1]) * DURATION_UNITS[match[2]!]! : NaN;
  if (!(ms > 0 && ms <= 3650 * DURATION_UNITS.d!))
    usage(
      command,
      `${flag} must be a whole number of minutes, hours or days above 0 and at most 3650d, like 90d, 12h or 30m; not '${raw.slice(0, 40)}'`,
    );
  return ms;
}

function seconds(command: Command, flag: string, raw: string, min: number): number {
  const n = raw.trim() === '' ? NaN : Number(raw);
  if (!(min === 0 ? n > 0 : n >= min) || !(n <= 3600))
    usage(
      command,
      `${flag} must be a number of seconds ${min === 0 ? 'above 0 and at most' : `from ${min} to`} 3600, not '${raw}'`,
    );
  return n;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'serve the resource API over HTTP, with state in an embedded SQLite file (or PostgreSQL, with --database-url)',
    )
    .option('--host <host>', 'address to listen on', DEFAULT_HOST)
    .option('--port <port>', `port (0 picks a free one; env TYPEPLANE_PORT; default ${DEFAULT_PORT})`)
    .option('--data-dir <dir>', 'folder for the state (typeplane.db) and the secret key file', '.typeplane')
    .option(
      '--database-url <url>',
      'keep the state in PostgreSQL instead (postgres://user@host:5432/db; env TYPEPLANE_DATABASE_URL); several servers may share one database',
    )
    .option(
      '--database-schema <name>',
      'the PostgreSQL schema for the tables, created if absent (env TYPEPLANE_DATABASE_SCHEMA; default typeplane)',
    )
    .option('--types <paths...>', 'resource schemas / manifests (files or folders) to register at start')
    .option(
      '--provider <modules...>',
      'provider modules written with typeplane/provider (their schemas are registered)',
    )
    .option(
      '--config <file>',
      'a typeplane.config.yaml/json: types and providers (built-in, modules, URLs) with their settings',
    )
    .option('--tls-cert <file>', 'serve HTTPS with this certificate (PEM; with --tls-key)')
    .option('--tls-key <file>', 'the private key of --tls-cert (PEM)')
    .option(
      '--require-contract-report',
      "operate only on types whose provider passed 'typeplane test' (its -o json report attached: POST /v1/types/{typeName}/contract-report)",
    )
    .option(
      '--no-metrics',
      'collect no metrics and serve no GET /metrics (it is served by default to admin and monitor tokens)',
    )
    .option(
      '--metrics-address <[host:]port>',
      'also serve GET /metrics without a token on a listener of its own; a bare port binds 127.0.0.1, and another host (0.0.0.0, a LAN address) exposes the metrics to whoever reaches it, so name one only on a network you trust',
    )
    .option(
      '--allow-plain-http',
      'allow plain HTTP on a non-loopback --host (tokens cross the network in clear text; for a TLS-terminating proxy in front)',
    )
    .option(
      '--secret-key-file <file>',
      'the key sealing write-only values at rest, created (mode 0600) if absent; ignored when env TYPEPLANE_SECRET_KEY is set (default <data-dir>/secret.key)',
    )
    .option('--region <name>', 'AWS::Region in stack templates (default us-east-1)')
    .option('--account-id <id>', 'AWS::AccountId in stack templates (default 123456789012)')
    .option('--partition <name>', 'AWS::Partition in stack templates (default aws)')
    .option('--url-suffix <suffix>', 'AWS::URLSuffix in stack templates (default amazonaws.com)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent', 'info')
    .option(
      '--audit-log <path>',
      "record every change and refusal as chained JSON lines in this file ('-' for stdout); no audit trail without it or --audit-store (see 'typeplane audit verify')",
    )
    .option(
      '--audit-store',
      'also keep every record in the store (every replica in one chain), served to admins on GET /v1/audit',
    )
    .option(
      '--audit-retention <duration>',
      'how long the store keeps audit records (with --audit-store): minutes, hours or days (30m, 12h, 90d)',
      '30d',
    )
    .option(
      '--audit-level <level>',
      'Metadata (who, what, when, where, outcome) or Request (and the request body, secrets removed)',
      'Metadata',
    )
    .option('--audit-log-max-size <MiB>', 'rotate the audit log before it grows past this many MiB', '100')
    .option('--audit-log-max-files <n>', 'rotated audit logs kept (<path>.1 newest)', '5')
    .option(
      '--lease <seconds>',
      "how long a worker holds an operation without renewing; a crashed server's operations resume after this",
      '30',
    )
    .option(
      '--deleted-stack-retention <duration>',
      'how long a deleted stack stays listed (stack list --deleted) with its events: minutes, hours or days (30m, 12h, 90d)',
      '90d',
    )
    .option(
      '--shutdown-timeout <seconds>',
      'on SIGTERM/SIGINT, exit after this long even when requests or handlers have not finished (their operations resume on the next start); a second signal exits at once',
      '30',
    )
    .option(
      '--shutdown-delay <seconds>',
      'on SIGTERM/SIGINT, first answer /readyz with 503 for this long while still serving everything, so that load balancers stop sending requests before the listener closes',
      '0',
    )
    .option(
      '--request-timeout <seconds>',
      'a request, body included, must arrive within this long (its headers within 20 s, or this if shorter); slower ones are answered 408 and their connection closed',
      '60',
    )
    .option(
      '--max-connections <n>',
      'client connections open at once; more are closed as they arrive (default 10000, fewer where the open-file limit is lower)',
    )
    .option(
      '--watch-limit <n>',
      'watches (?watch=true) open at once on this server; more are refused with 429 (default 10000)',
    )
    .option(
      '--watch-limit-per-token <n>',
      'watches one token may hold open at once; more are refused with 429 (default 64)',
    )
    .option('--handlers <n>', 'handler invocations running at once in this server (default 64)')
    .option(
      '--handlers-per-token <n>',
      "of those, the most for one token's operations, its stacks' and recipes' included (default three quarters): a token that floods the worker leaves the other tokens a quarter of the slots",
    )
    .option(
      '--fairness <on|off>',
      'fair queuing of requests by token (docs/fairness.md): a token over its share waits or gets 429, the others keep theirs; off serves first come, first served',
      'on',
    )
    .option(
      '--fairness-seats <n>',
      'requests of writer and reader tokens running at once, shared fairly among tokens, a quarter kept for tokens with nothing running or waiting (default 8 on SQLite, 16 on PostgreSQL)',
    )
    .option(
      '--fairness-system-seats <n>',
      'requests of admin and monitor tokens running at once, apart from the others (default 8 on SQLite, 16 on PostgreSQL)',
    )
    .option(
      '--fairness-queue-length <n>',
      'requests one token may have waiting for a seat; more get 429 with Retry-After (default 300)',
    )
    .option(
      '--handlers-per-type <n>',
      'of those, the most for one type (default three quarters): a type whose handlers hang, or whose writer floods it, leaves the other types a quarter of the slots',
    )
    .addHelpText(
      'after',
      `
Every API route but /healthz needs a token. The first start on empty data prints an admin token
(once); env TYPEPLANE_ADMIN_TOKEN instead makes the given token an admin token and prints nothing.

Examples:
  $ typeplane serve --types examples/postgresDatabases.yaml examples/queues.yaml
  $ typeplane serve --port 0 --data-dir /tmp/tp --provider ./greeting-provider.ts
  $ typeplane serve --config typeplane.config.yaml --log-level warn`,
    )
    .action(async (options: ServeOptions, command: Command) => {
      const rawPort = options.port ?? process.env.TYPEPLANE_PORT ?? String(DEFAULT_PORT);
      // Digits only: Number() would read '' as 0 (a random port), '1e3' as 1000 and '0x10' as 16.
      const port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : NaN;
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        usage(command, `port must be a whole number from 0 to 65535, not '${rawPort}'`);
      const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
      if (!levels.includes(options.logLevel)) {
        usage(command, `--log-level must be one of ${levels.join(', ')}`);
      }
      const lease = seconds(command, '--lease', options.lease, 0);
      const deletedStackRetentionMs = retention(
        command,
        '--deleted-stack-retention',
        options.deletedStackRetention,
      );
      const pseudo: Record<string, string> = {};
      for (const [key, flag, pattern, form] of PSEUDO_OPTIONS) {
        const value = options[key];
        if (value === undefined) continue;
        if (!pattern.test(value)) usage(command, `${flag} must be ${form}, not '${value.slice(0, 80)}'`);
        pseudo[key] = value;
      }
      const audit = auditSettings(command, options);
      const metricsAddress =
        options.metricsAddress === undefined ? undefined : parseMetricsAddress(options.metricsAddress);
      if (typeof metricsAddress === 'string') usage(command, metricsAddress);
      if (metricsAddress && !options.metrics)
        usage(command, '--metrics-address needs the metrics: drop --no-metrics');
      const shutdownTimeout = seconds(command, '--shutdown-timeout', options.shutdownTimeout, 0);
      const shutdownDelay =
        options.shutdownDelay.trim() === '0'
          ? 0
          : seconds(command, '--shutdown-delay', options.shutdownDelay, 0);
      const requestTimeout = seconds(command, '--request-timeout', options.requestTimeout, 1);
      const maxConnections =
        options.maxConnections === undefined
          ? undefined
          : wholeNumber(command, '--max-connections', options.maxConnections, 1, 1_000_000);
      const operationConcurrency = {
        ...(options.handlers !== undefined
          ? { total: wholeNumber(command, '--handlers', options.handlers, 1, 10_000) }
          : {}),
        ...(options.handlersPerType !== undefined
          ? { perType: wholeNumber(command, '--handlers-per-type', options.handlersPerType, 1, 10_000) }
          : {}),
        ...(options.handlersPerToken !== undefined
          ? { perToken: wholeNumber(command, '--handlers-per-token', options.handlersPerToken, 1, 10_000) }
          : {}),
      };
      if (options.fairness !== 'on' && options.fairness !== 'off')
        usage(command, `--fairness must be on or off, not '${options.fairness.slice(0, 20)}'`);
      const limit = (flag: string, raw: string | undefined, min: number) =>
        raw === undefined ? undefined : wholeNumber(command, flag, raw, min, 100_000);
      const seats = limit('--fairness-seats', options.fairnessSeats, 1);
      const systemSeats = limit('--fairness-system-seats', options.fairnessSystemSeats, 1);
      const queueLength = limit('--fairness-queue-length', options.fairnessQueueLength, 0);
      const fairness =
        options.fairness === 'off'
          ? (false as const)
          : {
              ...(seats !== undefined ? { seats } : {}),
              ...(systemSeats !== undefined ? { systemSeats } : {}),
              ...(queueLength !== undefined ? { queueLength } : {}),
            };
      if ((options.tlsCert === undefined) !== (options.tlsKey === undefined))
        usage(command, 'give both --tls-cert and --tls-key, or neither');
      let tls: { cert: Buffer; key: Buffer } | undefined;
      if (options.tlsCert !== undefined && options.tlsKey !== undefined)
        try {
          tls = {
            cert: readLocalBytes(options.tlsCert, FILES.pem),
            key: readLocalBytes(options.tlsKey, FILES.pem),
          };
        } catch (e) {
          usage(command, (e as Error).message);
        }
      // An empty TYPEPLANE_ADMIN_TOKEN counts as unset.
      const adminToken = process.env.TYPEPLANE_ADMIN_TOKEN || undefined;
      // The server loads only when it is to run: `typeplane --help` does not pay for it.
      const [
        { loadHookServers, loadProviders, readConfig },
        { pino },
        { LOG_REDACTIONS, startService },
        { logTraceIds, startTracing, tracingChoice },
      ] = await Promise.all([
        import('../providers/load.js'),
        import('pino'),
        import('../service.js'),
        import('../telemetry/index.js'),
      ]);
      const entries: ProviderEntry[] = [];
      const types = [...(options.types ?? [])];
      let baseDir = process.cwd();
      const hookEntries: HookEntry[] = [];
      let stateProvider: StateProviderSettings | undefined;
      let customResources: TypeplaneConfig['customResources'];
      if (options.config) {
        const { config, baseDir: configDir } = await readConfig(options.config);
        baseDir = configDir;
        stateProvider = config.stateProvider;
        customResources = config.customResources;
        entries.push(...(config.providers ?? []));
        hookEntries.push(...(config.hooks ?? []));
        types.push(...(config.types ?? []).map((t) => resolve(configDir, t)));
      }
      const providerDefinitions = [
        ...(await loadProviders(entries, baseDir)),
        ...(await loadProviders(
          (options.provider ?? []).map((module) => ({ module })),
          process.cwd(),
        )),
      ];
      const hookServers = await loadHookServers(hookEntries, baseDir);
      // Logs go to stderr so stdout carries only what a script reads (the listening line).
      // Inside a trace, a log line carries its trace and span ids.
      const logger = pino(
        {
          level: options.logLevel,
          redact: LOG_REDACTIONS,
          ...(tracingChoice(process.env).on ? { mixin: logTraceIds } : {}),
        },
        pino.destination(2),
      );
      const tracing = await startTracing(process.env, { warn: (message) => logger.warn(message) });
      // Empty environment variables count as unset.
      const databaseUrl = options.databaseUrl ?? (process.env.TYPEPLANE_DATABASE_URL || undefined);
      const databaseSchema = options.databaseSchema ?? (process.env.TYPEPLANE_DATABASE_SCHEMA || undefined);
      if (databaseSchema !== undefined && databaseUrl === undefined)
        usage(command, '--database-schema needs --database-url (or TYPEPLANE_DATABASE_URL)');
      if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl))
        usage(command, '--database-url must be a PostgreSQL URL, like postgres://user@host:5432/database');
      const service = await listening(options.host, port, () =>
        startService({
          dataDir: resolve(options.dataDir),
          ...(databaseUrl !== undefined
            ? {
                database: {
                  url: databaseUrl,
                  ...(databaseSchema !== undefined ? { schema: databaseSchema } : {}),
                },
              }
            : {}),
          host: options.host,
          port,
          ...(types.length > 0 ? { types } : {}),
          providerDefinitions,
          ...(hookServers.length > 0 ? { hookServers } : {}),
          ...(stateProvider ? { stateProvider } : {}),
          ...(customResources ? { customResources } : {}),
          logger,
          leaseMs: lease * 1000,
          shutdownDelayMs: Math.round(shutdownDelay * 1000),
          deletedStackRetentionMs,
          operationConcurrency,
          fairness,
          watch: {
            ...(options.watchLimit !== undefined
              ? { total: wholeNumber(command, '--watch-limit', options.watchLimit, 1, 1_000_000) }
              : {}),
            ...(options.watchLimitPerToken !== undefined
              ? {
                  perToken: wholeNumber(
                    command,
                    '--watch-limit-per-token',
                    options.watchLimitPerToken,
                    1,
                    1_000_000,
                  ),
                }
              : {}),
          },
          connectionLimits: {
            requestMs: Math.round(requestTimeout * 1000),
            ...(maxConnections !== undefined ? { maxConnections } : {}),
          },
          ...(Object.keys(pseudo).length > 0 ? { stackPseudoParameters: pseudo } : {}),
          // An empty TYPEPLANE_SECRET_KEY counts as unset.
          ...(process.env.TYPEPLANE_SECRET_KEY ? { secretKey: process.env.TYPEPLANE_SECRET_KEY } : {}),
          ...(options.secretKeyFile ? { secretKeyFile: resolve(options.secretKeyFile) } : {}),
          ...(adminToken ? { adminToken } : {}),
          ...(tls ? { tls } : {}),
          ...(options.allowPlainHttp ? { allowPlainHttp: true } : {}),
          ...(options.metrics ? {} : { metrics: false }),
          ...(metricsAddress ? { metricsAddress } : {}),
          ...(options.requireContractReport ? { requirePassingContract: true } : {}),
          ...(audit ? { audit } : {}),
          ...(tracing ? { tracing: true } : {}),
        }),
      );
      // Shown once, on stdout only (never in the logs): only its hash is stored.
      if (service.firstAdminToken) process.stdout.write(`admin token: ${service.firstAdminToken}\n`);
      process.stdout.write(`listening on ${service.url}\n`);
      const bound = Number(new URL(service.url).port);
      if (BLOCKED_PORTS.has(bound))
        process.stderr.write(
          `warning: port ${bound} is one fetch refuses to connect to (browsers and Node's fetch among them; the typeplane CLI is not); pick another with --port\n`,
        );
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) {
          logger.warn({ signal }, 'second signal: exiting now');
          process.exit(1);
        }
        stopping = true;
        logger.info({ signal }, 'shutting down: finishing in-flight operations');
        // Whatever requests, handlers or the store do, the process ends in time: an operation cut
        // short is still in the store and resumes on the next start.
        const deadlineMs = (shutdownDelay + shutdownTimeout) * 1000;
        setTimeout(() => {
          logger.error(
            { shutdownDelaySeconds: shutdownDelay, shutdownTimeoutSeconds: shutdownTimeout },
            'shutdown did not finish in time: exiting; unfinished operations resume on the next start',
          );
          process.exit(1);
        }, deadlineMs).unref();
        // Handlers get half the time to finish before they are aborted.
        // The spans still buffered are exported once the last request and operation are done.
        service
          .close(Math.min(10_000, deadlineMs / 2))
          .then(() => tracing?.shutdown())
          .then(
            () => process.exit(0),
            (e: unknown) => {
              logger.error({ err: e }, 'shutdown failed');
              process.exit(1);
            },
          );
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    });
}

/** The audit trail's settings, or undefined without --audit-log and --audit-store. */
function auditSettings(command: Command, options: ServeOptions): AuditSettings | undefined {
  if (!AUDIT_LEVELS.includes(options.auditLevel as AuditLevel))
    usage(
      command,
      `--audit-level must be one of ${AUDIT_LEVELS.join(', ')}, not '${options.auditLevel.slice(0, 40)}'`,
    );
  const maxMiB = wholeNumber(command, '--audit-log-max-size', options.auditLogMaxSize, 1, 1_000_000);
  const maxFiles = wholeNumber(command, '--audit-log-max-files', options.auditLogMaxFiles, 0, 10_000);
  const retentionMs = retention(command, '--audit-retention', options.auditRetention);
  const log = options.auditLog === undefined || options.auditLog === '' ? undefined : options.auditLog;
  if (log === undefined && !options.auditStore) return undefined;
  return {
    ...(log !== undefined ? { log: log === '-' ? '-' : resolve(log) } : {}),
    ...(options.auditStore ? { store: true, retentionMs } : {}),
    level: options.auditLevel as AuditLevel,
    maxBytes: maxMiB * 1024 * 1024,
    maxFiles,
  };
}

/** Start the service; a port in use is said so, with what to do about it. */
async function listening<T>(host: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new Error(
        `port ${port} on ${host} is in use (another 'typeplane serve'?); stop that one, or pick another port with --port (--port 0 picks a free one)`,
        { cause: e },
      );
    throw e;
  }
}

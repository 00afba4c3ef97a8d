/**
 * @module The composition root: store → registry → engine → HTTP server, wired once. Used by
 * `typeplane serve` and by tests that run a real server on loopback.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { AccessKeys, checkAdminToken, plainListenProblem, Tokens } from './auth/index.js';
import { cloudControlFrontDoor } from './cloudcontrol/index.js';
import { alsoOnEnd, Engine, engineLogger, type EngineOptions } from './engine/index.js';
import { buildServer, type ServerOptions } from './http/index.js';
import { Watches, type WatchLimits } from './watch/index.js';
import { Fairness, type FairnessOptions } from './fairness/index.js';
import { listenForMetrics } from './http/metrics-listener.js';
import {
  createStateProvider,
  Synthesis,
  type Provider,
  type ProviderDefinition,
  type StateProviderSettings,
} from './providers/index.js';
import { TypeConfigurations } from './type-configuration/index.js';
import { Registry } from './registry/registry.js';
import { compileType } from './registry/compile.js';
import { checkSecretKey, createSealer, loadSecretKey, SECRET_KEY_FILE_NAME } from './secrets/index.js';
import { loadTypes } from './schema/index.js';
import { Stacks, type PseudoParameters } from './stacks/index.js';
import { Recipes } from './recipes/index.js';
import {
  admissionPolicies,
  compilePolicy,
  notCompiledPolicy,
  Policies,
  ServerReviewer,
} from './policy/index.js';
import { HookRegistrations, hookReview } from './policy/hooks/index.js';
import type { HookServer } from './handler/index.js';
import { TypeplaneError } from './errors.js';
import { Readiness } from './health/index.js';
import { openAuditor, recordOperationEnds, type AuditSettings } from './audit/index.js';
import { createTelemetry } from './telemetry/index.js';
import { Backups, removeLeftSnapshots } from './backup/index.js';
import { openPostgresStore, openSqliteStore, redactUrl, type Store } from './store/index.js';
import { DEFAULT_HOST, DEFAULT_PORT } from './service-defaults.js';
import { CustomResources, type CustomResourceSettings } from './stacks/custom-resources/index.js';

/**
 * Connections the kernel may hold before the server accepts them. Node's default, 511, overflows
 * when a few thousand clients connect at once, and the kernel then resets some of them; the kernel
 * caps this at its own limit (net.core.somaxconn, 4096 on current Linux).
 */
const LISTEN_BACKLOG = 4096;

export interface ServiceOptions {
  /** Folder for the SQLite file (`typeplane.db`) and, by default, the secret key file. */
  dataDir: string;
  /**
   * Keep the state in PostgreSQL instead of the SQLite file (several replicas may share one
   * database): its URL, and the schema the tables live in (default `typeplane`).
   */
  database?: { url: string; schema?: string };
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Folders or files of types to register at start. */
  types?: string[];
  logger?: Logger;
  /** Providers by type name; types without one are served by the state provider. */
  providers?: Map<string, Provider>;
  /** Providers that name their own types and schemas (SDK modules, built-ins, remote): their schemas are registered at start. */
  providerDefinitions?: ProviderDefinition[];
  /** What serves hooks here (defineHook modules, HTTP endpoints); their schema files are registered at start. */
  hookServers?: HookServer[];
  /**
   * The state provider's settings (the configuration's `stateProvider`): the types whose service it
   * emulates (`synthesize`) and the account it emulates (default: `stackPseudoParameters`' own).
   */
  stateProvider?: StateProviderSettings;
  /**
   * Custom resources (the configuration's `customResources`): the URL prefixes their ServiceTokens may
   * be under (none: no handler is called), and the URL handlers reach this server at (default: where it listens).
   */
  customResources?: CustomResourceSettings;
  leaseMs?: number;
  pollIntervalMs?: number;
  /** How long a deleted stack stays listed with its events (default 90 days). */
  deletedStackRetentionMs?: number;
  /** Milliseconds per minute of handler timeouts (tests shorten it). */
  minuteMs?: number;
  /** The longest one handler invocation may take (default 60 s create/update/delete, 30 s read/list; tests shorten them). */
  callLimitsMs?: EngineOptions['callLimitsMs'];
  /** Most handler invocations at once, and of one type (default 64, and three quarters of it; tests lower them). */
  operationConcurrency?: { total?: number; perType?: number; perToken?: number };
  /** Refuse operations on types whose provider has no passing contract report (`--require-contract-report`). */
  requirePassingContract?: boolean;
  /** The key sealing write-only values at rest, as base64 of 32 bytes (`TYPEPLANE_SECRET_KEY`); wins over the file. */
  secretKey?: string;
  /** The key file, created (mode 0600) on first start when absent; default `<dataDir>/secret.key`. */
  secretKeyFile?: string;
  /**
   * An admin token to accept (`TYPEPLANE_ADMIN_TOKEN`): stored hashed if new. Without it, the first
   * start (no token stored) creates one and hands it out once as `Service.firstAdminToken`.
   */
  adminToken?: string;
  /** Serve HTTPS with this certificate and key (PEM). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Allow plain HTTP on a non-loopback host (a proxy in front terminates TLS). */
  allowPlainHttp?: boolean;
  /** What stack templates see as AWS::Region, AWS::AccountId, … (defaults in docs/stacks.md). */
  stackPseudoParameters?: Partial<PseudoParameters>;
  /** Told of every route the server adds (see buildServer). */
  onRoute?: ServerOptions['onRoute'];
  /** How long a request's headers, and the whole request, may take to arrive (`--request-timeout`). */
  connectionLimits?: ServerOptions['connectionLimits'];
  /**
   * On close, how long /readyz says "shutting down" while everything is still served, so that load
   * balancers stop sending traffic before the listener closes (`--shutdown-delay`; default 0).
   */
  shutdownDelayMs?: number;
  /** The audit trail (`serve --audit-log`); off without it. */
  audit?: AuditSettings;
  /** Collect metrics and serve them on GET /metrics (default true; `serve --no-metrics` turns both off). */
  metrics?: boolean;
  /**
   * Also serve GET /metrics, without a token, on a listener of its own at this address
   * (`serve --metrics-address`); port 0 picks a free one.
   */
  metricsAddress?: { host: string; port: number };
  /** The process exports traces (`startTracing` started the SDK): each request is served in a span. */
  tracing?: boolean;
  /** What watches may cost and how often they are kept alive (defaults in docs/watch.md). */
  watch?: Partial<WatchLimits>;
  /** Fair queuing by token and its limits (docs/fairness.md); `false` serves first come, first served. */
  fairness?: FairnessOptions | false;
}

export interface Service {
  app: FastifyInstance;
  engine: Engine;
  registry: Registry;
  store: Store;
  stacks: Stacks;
  recipes: Recipes;
  /** The admin token created on this first start, to be shown once; undefined otherwise. */
  firstAdminToken?: string;
  /** `http://host:port` (or https) once listening. */
  url: string;
  /** `http://host:port` of the separate metrics listener, when there is one. */
  metricsUrl?: string;
  /** Stop accepting requests, let in-flight operations finish (or persist them as resumable), close the store. */
  close(graceMs?: number): Promise<void>;
}

export { DEFAULT_HOST, DEFAULT_PORT };

/** Log paths that may hold credentials: request logs never carry a token. */
export const LOG_REDACTIONS = ['req.headers.authorization', 'headers.authorization'];

export async function startService(options: ServiceOptions): Promise<Service> {
  const logger = options.logger ?? pino({ level: 'info', redact: LOG_REDACTIONS }, pino.destination(2));
  const refusal = plainListenProblem(options.host ?? DEFAULT_HOST, {
    tls: options.tls !== undefined,
    allowPlainHttp: options.allowPlainHttp === true,
  });
  if (refusal) throw new Error(`cannot start: ${refusal}`);
  if (options.metricsAddress && options.metrics === false)
    throw new Error('cannot start: a metrics address needs the metrics (it was given with metrics off)');
  // Refused before anything is written: a start that fails leaves no key file or database behind.
  if (options.adminToken !== undefined) checkAdminToken(options.adminToken);
  mkdirSync(options.dataDir, { recursive: true });
  const keyFile = options.secretKeyFile ?? join(options.dataDir, SECRET_KEY_FILE_NAME);
  const key = loadSecretKey({ key: options.secretKey, file: keyFile });
  const sealer = createSealer(key.key);
  const telemetry = options.metrics === false ? undefined : createTelemetry();
  const observer = telemetry ? { observer: telemetry.storeObserver } : {};
  const store = options.database
    ? await openPostgresStore(options.database.url, {
        ...(options.database.schema !== undefined ? { schema: options.database.schema } : {}),
        ...observer,
      })
    : await openSqliteStore(join(options.dataDir, 'typeplane.db'), observer);
  logger.info(
    options.database
      ? {
          store: 'postgresql',
          url: redactUrl(options.database.url),
          schema: options.database.schema ?? 'typeplane',
        }
      : { store: 'sqlite', file: join(options.dataDir, 'typeplane.db') },
    'store opened',
  );
  if (!options.database) {
    const left = await removeLeftSnapshots(options.dataDir);
    if (left.length > 0)
      logger.warn(
        { files: left },
        'removed the snapshot files of a backup its server stopped in the middle of',
      );
  }
  try {
    try {
      await checkSecretKey(store, sealer);
    } catch (e) {
      // A key made just now for a store sealed with another must not stand in the way of restoring that one.
      if (key.created) rmSync(keyFile, { force: true });
      throw e;
    }
    if (key.created)
      logger.warn(
        { file: keyFile, keyId: sealer.keyId },
        'created a new secret key file: back it up with the data; sealed values cannot be read without it',
      );
    else logger.info({ keyId: sealer.keyId, from: key.from }, 'secret key loaded');
    const registry = new Registry(store);
    const synthesis = options.stateProvider?.synthesize
      ? new Synthesis(options.stateProvider, options.stackPseudoParameters, (type, model) =>
          compileType(type).validateOutput(model),
        )
      : undefined;
    if (synthesis)
      logger.info(
        { types: options.stateProvider?.synthesize, ...synthesis.emulated },
        'the state provider synthesizes read-only values and names for these types (emulation)',
      );
    const state = createStateProvider(
      store,
      async (typeName) => (await registry.get(typeName)).type,
      synthesis ? { synthesis } : {},
    );
    const providers = new Map<string, Provider>(options.providers ?? []);
    for (const definition of options.providerDefinitions ?? []) {
      for (const typeName of definition.types) {
        const other = providers.get(typeName);
        if (other)
          throw new Error(
            `cannot start: type ${typeName} is served by both ${other.name} and ${definition.name}`,
          );
        providers.set(typeName, definition);
      }
    }
    const configurations = new TypeConfigurations(store, sealer, registry);
    // Every change on every path (/v1, Cloud Control, stacks, recipes) is reviewed by these first.
    const policyLog = logger.child({ component: 'policies' });
    const policies = new Policies(store, {
      compile: compilePolicy,
      notCompiled: notCompiledPolicy,
      onNotCompiled: (name, { reason, problems, failurePolicy }) =>
        policyLog.error(
          { policy: name, problems, failurePolicy },
          failurePolicy === 'Fail'
            ? `stored policy ${name} does not compile: every change it matches gets a verdict of its action (its failurePolicy is Fail) until it is replaced or deleted: ${reason}`
            : `stored policy ${name} does not compile: it is not in force (its failurePolicy is Ignore) until it is replaced: ${reason}`,
        ),
    });
    // Loaded now, so that a stored policy that no longer compiles is told at start.
    await policies.current();
    const hooks = new HookRegistrations(store, sealer);
    const reviewer = new ServerReviewer([
      admissionPolicies(policies),
      hookReview({
        registrations: hooks,
        servers: hookServersByName(options.hookServers ?? []),
        logger: engineLogger(logger.child({ component: 'hooks' })),
      }),
    ]);
    const tokens = new Tokens(store, new AccessKeys(store, sealer));
    const auditLog = logger.child({ component: 'audit' });
    const auditor =
      options.audit &&
      openAuditor(options.audit, {
        secretKey: key.key,
        store,
        masking: {
          typeOf: async (name, version) => (await registry.get(name, version).catch(() => undefined))?.type,
        },
        listTokens: () => tokens.list(),
        onError: (err) => auditLog.error({ err }, 'an audit record could not be written'),
      });
    // Metrics count ended operations; the audit trail records each one's end.
    const engineObserver = alsoOnEnd(telemetry?.engineObserver, auditor && recordOperationEnds(auditor));
    // Made once the stacks are (it runs instances as stacks); the engine asks it for providers only later.
    const late: { recipes?: Recipes } = {};
    const engine = new Engine({
      store,
      registry,
      configurations,
      // A type no provider names is a recipe's once one is registered for it, else the state provider's.
      providerFor: (typeName) =>
        providers.get(typeName) ?? (late.recipes?.backs(typeName) ? late.recipes.provider : state),
      sealer,
      logger: engineLogger(logger),
      reviewer,
      ...(engineObserver ? { observer: engineObserver } : {}),
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
      ...(options.minuteMs !== undefined ? { minuteMs: options.minuteMs } : {}),
      ...(options.callLimitsMs !== undefined ? { callLimitsMs: options.callLimitsMs } : {}),
      ...(options.requirePassingContract ? { requirePassingContract: true } : {}),
      ...(options.operationConcurrency?.total !== undefined
        ? { concurrency: options.operationConcurrency.total }
        : {}),
      ...(options.operationConcurrency?.perToken !== undefined
        ? { concurrencyPerFlow: options.operationConcurrency.perToken }
        : {}),
      ...(options.operationConcurrency?.perType !== undefined
        ? { concurrencyPerType: options.operationConcurrency.perType }
        : {}),
    });
    telemetry?.watchEngine({
      running: () => engine.running(),
      typeNames: async () => (await store.listTypeStamps()).map((t) => t.typeName),
      countResources: (typeName) => store.countResources(typeName),
      countActiveOperations: () => store.countActiveOperations(new Date()),
    });
    telemetry?.watchStore(() => store.stats());
    const schemaFiles = (options.providerDefinitions ?? []).flatMap((d) => d.schemas ?? []);
    const typeFiles = [...schemaFiles, ...(options.types ?? [])];
    if (typeFiles.length > 0) await registerFromDisk(registry, typeFiles, logger);
    await registerHookSchemas(hooks, options.hookServers ?? [], logger);
    const customResources = new CustomResources(store, options.customResources);
    const stacks = new Stacks({
      engine,
      registry,
      store,
      sealer,
      customResources,
      log: logger.child({ component: 'stacks' }),
      ...(telemetry ? { observer: telemetry.stacksObserver } : {}),
      // What reviews said of a deployment's changes is in no request's record: each gets its own.
      ...(auditor ? { onReviewed: (change) => void auditor.recordStackReview(change) } : {}),
      ...(options.stackPseudoParameters ? { pseudo: options.stackPseudoParameters } : {}),
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
      ...(options.deletedStackRetentionMs !== undefined
        ? { deletedRetentionMs: options.deletedStackRetentionMs }
        : {}),
    });
    const recipes = new Recipes({
      stacks,
      registry,
      store,
      sealer,
      engine,
      servedBy: (typeName) => providers.get(typeName)?.name,
      log: logger.child({ component: 'recipes' }),
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    });
    late.recipes = recipes;
    await recipes.start();
    const firstAdminToken = await tokens.bootstrap(options.adminToken);
    if (firstAdminToken) logger.info('no API token was stored: created an admin token, shown once');
    const readinessLog = logger.child({ component: 'readiness' });
    const readiness = new Readiness({
      store,
      onChange: (report, cause) => {
        const failed = report.checks.filter((c) => !c.ok);
        if (report.ready) readinessLog.info('ready: the store answers again');
        else readinessLog.warn({ checks: failed, err: cause }, 'not ready');
      },
    });
    const backups = new Backups(
      options.database && 'schema' in store
        ? { store: 'postgresql', url: options.database.url, schema: store.schema }
        : { store: 'sqlite', path: join(options.dataDir, 'typeplane.db') },
      sealer.keyId,
    );
    const watches = new Watches({
      store,
      engine,
      registry,
      tokens,
      logger,
      ...(options.watch ? { limits: options.watch } : {}),
    });
    const fairness =
      options.fairness === false
        ? undefined
        : new Fairness({ store: options.database ? 'postgresql' : 'sqlite', ...options.fairness });
    if (fairness) telemetry?.watchFairness(fairness);
    telemetry?.watchWatches(watches);
    const auditTrail = auditor?.trail;
    if (auditTrail) telemetry?.watchAuditTrail(() => auditTrail.dropped);
    const app = await buildServer({
      watches,
      ...(fairness ? { fairness } : {}),
      readiness,
      engine,
      registry,
      logger,
      tokens,
      ...(auditor ? { audit: auditor } : {}),
      stacks,
      recipes,
      configurations,
      backups,
      policies,
      hooks,
      customResources,
      ...(options.tls ? { tls: options.tls } : {}),
      ...(options.onRoute ? { onRoute: options.onRoute } : {}),
      ...(options.connectionLimits ? { connectionLimits: options.connectionLimits } : {}),
      ...(telemetry ? { telemetry } : {}),
      ...(options.tracing ? { tracing: true } : {}),
      // The AWS Cloud Control API beside /v1, on POST /: requests signed with SigV4, not bearer tokens.
      frontDoor: cloudControlFrontDoor({
        engine,
        tokens,
        logger,
        ...(auditor ? { audit: auditor } : {}),
        ...(fairness ? { fairness } : {}),
        ...(telemetry
          ? {
              observe: (action, status, seconds) =>
                telemetry.recordRequest('POST', '/', status, seconds, action),
            }
          : {}),
      }),
    });
    await app.listen({
      host: options.host ?? DEFAULT_HOST,
      port: options.port ?? DEFAULT_PORT,
      backlog: LISTEN_BACKLOG,
    });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? DEFAULT_PORT);
    const host = options.host ?? DEFAULT_HOST;
    const url = `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
    customResources.listeningAt(url);
    const metricsListener =
      telemetry && options.metricsAddress
        ? await listenForMetrics(telemetry, options.metricsAddress).catch(async (e: unknown) => {
            await app.close();
            throw e;
          })
        : undefined;
    if (metricsListener) logger.info({ url: metricsListener.url }, 'serving GET /metrics without a token');
    engine.start();
    stacks.start();
    let closing: Promise<void> | undefined;
    return {
      app,
      engine,
      registry,
      store,
      stacks,
      recipes,
      ...(firstAdminToken ? { firstAdminToken } : {}),
      url,
      ...(metricsListener ? { metricsUrl: metricsListener.url } : {}),
      close(graceMs = 10_000) {
        closing ??= (async () => {
          readiness.markShuttingDown();
          if (options.shutdownDelayMs)
            await new Promise((resolve) => setTimeout(resolve, options.shutdownDelayMs));
          await app.close();
          fairness?.close();
          await metricsListener?.close();
          recipes.stop();
          await stacks.stop();
          await engine.stop(graceMs);
          for (const definition of options.providerDefinitions ?? []) await definition.close?.();
          for (const server of options.hookServers ?? []) await server.close?.();
          // After the engine stops (the ends of the operations it finished meanwhile are recorded)
          // and before the store closes: the records still buffered are written.
          await auditor?.close();
          await store.close();
        })();
        return closing;
      },
    };
  } catch (e) {
    await store.close();
    throw e;
  }
}

/** Each hook type name's server; two serving one hook is a configuration mistake. */
function hookServersByName(servers: readonly HookServer[]): Map<string, HookServer> {
  const byName = new Map<string, HookServer>();
  for (const server of servers)
    for (const name of server.hooks) {
      const other = byName.get(name);
      if (other)
        throw new Error(`cannot start: hook ${name} is served by both ${other.name} and ${server.name}`);
      byName.set(name, server);
    }
  return byName;
}

/** The schema files hook servers name, registered (or left as they are when unchanged). */
async function registerHookSchemas(
  hooks: HookRegistrations,
  servers: readonly HookServer[],
  logger: Logger,
): Promise<void> {
  for (const server of servers) {
    if (!server.schema) continue;
    let text: Buffer;
    try {
      text = readFileSync(server.schema);
    } catch (e) {
      throw new Error(`cannot start: cannot read the hook schema ${server.schema}: ${(e as Error).message}`, {
        cause: e,
      });
    }
    try {
      const { hook, outcome } = await hooks.register(text, { file: server.schema });
      if (outcome !== 'unchanged')
        logger.info({ hook: hook.typeName, outcome }, 'registered a hook from disk');
    } catch (e) {
      const lines =
        e instanceof TypeplaneError
          ? e.details.map(
              (d) =>
                `${server.schema}:${String(d.line ?? 1)}:${String(d.column ?? 1)} ${String(d.rule ?? '')} ${d.message}`,
            )
          : [];
      throw new Error(
        `cannot start: the hook schema ${server.schema} cannot be registered${lines.length ? `\n${lines.join('\n')}` : `: ${(e as Error).message}`}`,
        { cause: e },
      );
    }
  }
}

/** Validate everything first (all problems, duplicates across files), then register file by file. */
async function registerFromDisk(registry: Registry, paths: string[], logger: Logger): Promise<void> {
  // The documents are registered as they were read and validated here: not read nor validated again.
  const loaded = await loadTypes(paths, { keepContents: true });
  const failed = loaded.results.filter((r) => !r.valid);
  if (failed.length > 0) {
    const lines = failed.flatMap((r) =>
      r.diagnostics
        .filter((d) => d.severity === 'error')
        .map((d) => `${d.file}:${d.line ?? 1}:${d.column ?? 1} ${d.rule} ${d.message}`),
    );
    throw new Error(`cannot start: invalid type documents\n${lines.join('\n')}`);
  }
  // Registered all the same, but worth a look (an empty schema leaves properties unvalidated, say);
  // a few are logged, the rest counted (a corpus can have thousands).
  const warnings = loaded.results.flatMap((r) => r.diagnostics).filter((d) => d.severity === 'warning');
  for (const d of warnings.slice(0, 20))
    logger.warn({ file: d.file, line: d.line, column: d.column, rule: d.rule }, d.message);
  if (warnings.length > 20)
    logger.warn(
      { warnings: warnings.length },
      "more warnings about the types; 'typeplane validate' lists them all",
    );
  for (const [result, content] of loaded.contents ?? []) {
    // The operator's own files: a breaking change is taken (not a reason to stay down), and said loudly.
    const { registrations: registered } = await registry.registerValidated(content, result, {
      ...(result.file ? { file: result.file } : {}),
      allowBreaking: true,
    });
    for (const r of registered) {
      if (r.violations)
        logger.warn(
          { typeName: r.record.typeName, version: r.record.version, violations: r.violations },
          'registered a breaking change while resources exist',
        );
    }
  }
  logger.info({ types: loaded.types.length }, 'registered types from disk');
}

/**
 * @module The HTTP server: routes, error mapping, request ids and logs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyInstance,
  type RouteOptions,
} from 'fastify';
import type { Logger } from 'pino';
import { newRequestToken, type Engine } from '../engine/index.js';
import type { Registry } from '../registry/registry.js';
import type { Tokens } from '../auth/index.js';
import { TypeplaneError } from '../errors.js';
import { registerAuth } from './auth.js';
import { registerFairness } from './fairness-hook.js';
import type { Fairness } from '../fairness/index.js';
import { registerAuditHook } from './audit-hook.js';
import type { Auditor } from '../audit/index.js';
import { parseJsonBody } from './body.js';
import {
  answeringBeforeBody,
  checkIntervalMs,
  connectionLimits,
  type ConnectionLimits,
} from './connections.js';
import { RequestMessage } from './request-message.js';
import { requestLogger } from './request-logger.js';
import { recordingUnmatched, recordRoutes } from './request-metrics.js';
import { clientRequestId } from './request-id.js';
import {
  errorBody,
  handleClientError,
  handleError,
  handleFrameworkError,
  MAX_PARAM_LENGTH,
} from './errors.js';
import { RESOURCE_BODY_LIMIT, resourceRoutes } from './routes/resources.js';
import { requestRoutes } from './routes/requests.js';
import { typeRoutes } from './routes/types.js';
import { suggestTypeNames } from './type-suggestions.js';
import { tokenRoutes } from './routes/tokens.js';
import { policyRoutes } from './routes/policies.js';
import { hookRoutes } from './routes/hooks.js';
import { customResourceRoutes } from './routes/custom-resource-responses.js';
import type { CustomResources } from '../stacks/custom-resources/index.js';
import { artifactRoutes } from './routes/artifacts.js';
import { stackRoutes } from './routes/stacks.js';
import { recipeRoutes } from './routes/recipes.js';
import { backupRoutes } from './routes/backup.js';
import type { Backups } from '../backup/index.js';
import { healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { consoleRoutes } from './routes/console.js';
import { nameRoute, serveInSpan, type Telemetry } from '../telemetry/index.js';
import type { Readiness } from '../health/index.js';
import type { Recipes } from '../recipes/index.js';
import type { Stacks } from '../stacks/index.js';
import type { CompiledPolicy, Policies } from '../policy/index.js';
import type { HookRegistrations } from '../policy/hooks/index.js';
import type { TypeConfigurations } from '../type-configuration/index.js';
import type { Watches } from '../watch/index.js';

/** Methods whose requests carry no body: an empty one, whatever its Content-Type, is none. */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

export interface ServerOptions {
  engine: Engine;
  registry: Registry;
  logger: Logger;
  /** API tokens: every route but /healthz needs one. */
  tokens: Tokens;
  /** The audit trail: every change and refusal is recorded when given. */
  audit?: Auditor;
  /** Stacks, served under /v1/stacks when given. */
  stacks?: Stacks;
  /** Recipes, served under /v1/recipes and /v1/environments when given. */
  recipes?: Recipes;
  /** Types' configurations, served under /v1/types/{typeName}/configuration when given. */
  configurations?: TypeConfigurations;
  /** Backups of the store, served as GET /v1/backup when given. */
  backups?: Backups;
  /** Admission policies, served under /v1/policies when given. */
  policies?: Policies<CompiledPolicy>;
  /** Hooks, served under /v1/hooks when given (admins only). */
  hooks?: HookRegistrations;
  /** Custom resources: their handlers' responses are PUT to /v1/custom-resource-responses/{token}. */
  customResources?: CustomResources;
  /** Serve HTTPS with this certificate and key (PEM). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Told of every route as it is added, those registered after the build too (the API's own listing). */
  onRoute?: (route: RouteOptions) => void;
  /** Another protocol on the same server (the Cloud Control API), offered every request first. */
  frontDoor?: FrontDoor;
  /** How long a request may take to arrive (default: a minute, its headers 20 s), and how many connections are open at once. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** What /readyz reports; without it /readyz answers ready whenever the process serves. */
  readiness?: Readiness;
  /** Metrics: each request is recorded, and served on GET /metrics; without it neither. */
  telemetry?: Telemetry;
  /** Traces are on: each request, the front door's included, is served in a span of its own. */
  tracing?: boolean;
  /** Watches (`?watch=true` on the resource and request lists); without it the lists answer a page. */
  watches?: Watches;
  /** Fair queuing of requests by token (see src/fairness); without it, first come, first served. */
  fairness?: Fairness;
}

/**
 * Takes a request when it is its own and answers it, in its own protocol; returns false to leave it
 * to this API. `closing`: the server is shutting down, and the request is to be refused with 503 as
 * this API refuses its own.
 */
export type FrontDoor = (request: IncomingMessage, response: ServerResponse, closing: boolean) => boolean;

/**
 * The HTTP(S) server, made as the framework would make it, with `frontDoor` offered every request
 * before the framework's router, and deadlines for a request's headers and for the whole request
 * (see `connections.ts`). Its requests are {@link RequestMessage}s: a front door can take a body as
 * it arrives.
 */
function serverWith(
  frontDoor: FrontDoor | undefined,
  closing: () => boolean,
  tls: ServerOptions['tls'],
  limits: ConnectionLimits,
  logger: Logger,
  tracing: boolean,
): NonNullable<FastifyHttpOptions<Server>['serverFactory']> {
  return (handler, options) => {
    const untraced = frontDoor
      ? (request: IncomingMessage, response: ServerResponse) => {
          if (!frontDoor(request, response, closing())) handler(request, response);
        }
      : handler;
    const dispatch = tracing
      ? (request: IncomingMessage, response: ServerResponse) =>
          serveInSpan(request, response, () => untraced(request, response))
      : untraced;
    const settings = {
      IncomingMessage: RequestMessage,
      headersTimeout: limits.headersMs,
      requestTimeout: limits.requestMs,
      connectionsCheckingInterval: checkIntervalMs(limits),
    };
    const server = tls
      ? createHttpsServer({ ...settings, cert: tls.cert, key: tls.key }, dispatch)
      : createServer({ ...(options.http ?? {}), ...settings }, dispatch);
    // The framework's own settings, as it applies them to a server it makes (its request timeout,
    // 0 by default, would turn the deadline off).
    const { keepAliveTimeout, connectionTimeout } = options;
    if (typeof keepAliveTimeout === 'number') server.keepAliveTimeout = keepAliveTimeout;
    if (typeof connectionTimeout === 'number') server.setTimeout(connectionTimeout);
    server.maxConnections = limits.maxConnections;
    warnOfDrops(server, limits.maxConnections, logger);
    return server as Server;
  };
}

/** Connections closed at the limit, said in the log at most once a minute: a flood would flood it. */
function warnOfDrops(server: Server | HttpsServer, maxConnections: number, logger: Logger): void {
  let timer: NodeJS.Timeout | undefined;
  let since = 0;
  server.on('drop', () => {
    if (timer) {
      since++;
      return;
    }
    logger.warn({ maxConnections }, 'connection limit reached: new connections are closed as they arrive');
    timer = setTimeout(() => {
      timer = undefined;
      if (since > 0)
        logger.warn({ maxConnections, closed: since }, 'connections closed at the limit in the last minute');
      since = 0;
    }, 60_000).unref();
  });
}

export async function buildServer({
  engine,
  registry,
  logger,
  tokens,
  audit,
  stacks,
  recipes,
  configurations,
  backups,
  policies,
  hooks,
  customResources,
  tls,
  onRoute,
  frontDoor,
  connectionLimits: limits,
  readiness,
  telemetry,
  tracing = false,
  watches,
  fairness,
}: ServerOptions): Promise<FastifyInstance> {
  let closing = false;
  const app = Fastify({
    ...(tls ? { https: { cert: tls.cert, key: tls.key } } : {}),
    serverFactory: serverWith(frontDoor, () => closing, tls, connectionLimits(limits), logger, tracing),
    loggerInstance: logger as FastifyBaseLogger,
    // Each request's logger is made when the request first logs (see request-logger.ts).
    childLoggerFactory: (parent, bindings, options) => requestLogger(parent as Logger, bindings, options),
    bodyLimit: RESOURCE_BODY_LIMIT,
    // A client's x-request-id is kept only when it is a plain bounded token; it is logged and echoed.
    requestIdHeader: false,
    // Otherwise a time-ordered UUID (version 7), as operations' request tokens are: one string made.
    genReqId: (request) => clientRequestId(request.headers['x-request-id']) ?? newRequestToken(),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Identifiers such as ARNs run long; the default (100 characters) would refuse real ones.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  });
  if (onRoute) app.addHook('onRoute', onRoute);
  app.addHook('preClose', (done) => {
    closing = true;
    // A watch's connection is never idle: each is ended, with an event saying why, before closing.
    watches?.close();
    done();
  });
  // Bounded JSON for every route (depth; prototype keys refused, not silently dropped); /v1/types
  // reads its documents as text with its own parser.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // Many clients send the header on every request: an empty body on a method that takes none is
    // no body (a POST, PUT or PATCH still needs one).
    if ((body as Buffer).length === 0 && BODYLESS_METHODS.has(request.method)) {
      done(null, undefined);
      return;
    }
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  // An answer sent before a body longer than the server drains has arrived (a GET carrying one, a
  // refusal on the headers) closes the connection: Node would otherwise read the rest, whatever its
  // length, before the connection's next request (see connections.ts). Either way the request is not
  // answered again should the rest of its body come too late.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (answeringBeforeBody(request.raw)) void reply.header('connection', 'close');
    done(null, payload);
  });
  // Set as the request arrives (every answer carries it, errors included); a callback hook, not an
  // async one, as it runs on every request.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  // The request's span is named by its route template, known once routed.
  if (tracing)
    app.addHook('onRequest', (request, _reply, done) => {
      nameRoute(request.method, request.routeOptions.url);
      done();
    });
  app.setErrorHandler(async (error, request, reply) => {
    await suggestTypeNames(error, request, registry);
    handleError(error as Error, request, reply);
    return reply;
  });
  // Requests by route template (never the URL: its identifiers would make a series each), each
  // route's recorded by a hook of its own: registered before any route.
  if (telemetry) recordRoutes(app, telemetry);
  registerAuth(app, tokens);
  // Right after authentication, which names the flow; before anything reads the body.
  if (fairness) registerFairness(app, fairness);
  // No type name, identifier, request token or token id holds U+0000 (nor can PostgreSQL text):
  // refused for every store alike, after authentication.
  app.addHook('onRequest', (request, _reply, done) => {
    const params = request.params as Record<string, unknown> | undefined;
    // for…in rather than Object.entries: it runs on every request, and makes no arrays.
    for (const name in params) {
      const value = params[name];
      if (typeof value === 'string' && value.includes('\u0000'))
        return done(
          new TypeplaneError(
            'InvalidRequest',
            `the ${name} in the path contains U+0000 (NUL), which none holds`,
            [{ pointer: `/path/${name}`, message: 'contains U+0000' }],
          ),
        );
    }
    done();
  });
  if (audit) registerAuditHook(app, audit);
  // In a scope of its own, which has every hook above and, with metrics, one recording its requests
  // as route '' (an application-wide hook would run for every route's requests too).
  await app.register((scope, _options, done) => {
    if (telemetry) scope.addHook('onResponse', recordingUnmatched(telemetry));
    scope.setNotFoundHandler((request, reply) => {
      void reply
        .status(404)
        .send(errorBody('NotFound', `no route ${request.method} ${request.url.split('?')[0]}`));
    });
    done();
  });
  await app.register(healthRoutes, readiness ? { readiness } : {});
  await app.register(consoleRoutes);
  await app.register(typeRoutes, { registry, ...(configurations ? { configurations } : {}) });
  await app.register(resourceRoutes, { engine, ...(watches ? { watches } : {}) });
  await app.register(requestRoutes, { engine, ...(watches ? { watches } : {}) });
  await app.register(tokenRoutes, { tokens });
  await app.register(artifactRoutes, { registry });
  if (stacks) await app.register(stackRoutes, { stacks, ...(watches ? { watches } : {}) });
  if (recipes) await app.register(recipeRoutes, { recipes, engine });
  if (telemetry) await app.register(metricsRoutes, { telemetry });
  if (backups) await app.register(backupRoutes, { backups });
  if (policies) await app.register(policyRoutes, { policies });
  if (hooks) await app.register(hookRoutes, { hooks });
  if (customResources) await app.register(customResourceRoutes, { customResources });
  return app;
}

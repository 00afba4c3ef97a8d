/**
 * @module Authentication and the role check, as one `onRequest` hook: it runs after routing and
 * before the body is read, so a caller without a valid token costs no parsing. `/healthz` is open.
 *
 * 401 InvalidCredentials: no `Authorization: Bearer` header, a malformed one, or an unknown
 * (revoked) token. 403 AccessDenied: the token's role does not allow the route, or the route names
 * a type (`:typeName`) outside the token's type globs. Routes that list or follow several types
 * filter by the globs themselves, through `principalOf`. A route marked `authentication: 'optional'`
 * (the format schemas editors fetch, which cannot send a token) also answers callers without one.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  accessDenied,
  assertTypeVisible,
  roleAllows,
  type Action,
  type Principal,
  type Tokens,
} from '../auth/index.js';
import { errorBody } from './errors.js';
import { HEALTH_ROUTES } from './routes/health.js';
import { METRICS_ROUTE } from './routes/metrics.js';
import { CONSOLE_ROUTES } from './routes/console.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /**
     * `sigv4`: the route authenticates its callers itself (the Cloud Control API), not with a bearer
     * token. `optional`: a caller without an Authorization header is answered too, as no principal
     * (what the route then serves concerns no tenant); a header given is checked as anywhere else.
     * `url`: the URL is the credential (a custom resource's one-time ResponseURL), no token is read.
     */
    authentication?: 'sigv4' | 'optional' | 'url';
  }
}

// The console's files hold code, no data: its pages call the API with the signed-in token.
const OPEN_ROUTES = new Set([...HEALTH_ROUTES, ...CONSOLE_ROUTES]);
const BEARER = /^Bearer +(\S+) *$/i;

const HOW_TO_GET_ONE =
  "'typeplane serve' prints an admin token on first start (or takes TYPEPLANE_ADMIN_TOKEN); 'typeplane token create' makes more";

/** The caller of an authenticated route. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route reached without authentication');
  return request.principal;
}

function actionOf(method: string, route: string): Action {
  // The audit trail says what every token did: admins only.
  if (route === '/v1/audit') return 'read-audit';
  if (route === METRICS_ROUTE) return 'read-metrics';
  if (route === '/v1/tokens' || route.startsWith('/v1/tokens/')) return 'manage-tokens';
  // A backup holds every record of the store: admins only.
  if (route === '/v1/backup') return 'back-up';
  // A type's configuration holds secrets: admins only, reading included.
  if (route === '/v1/types/:typeName/configuration') return 'manage-types';
  // What a type's provider has that Typeplane does not manage: a writer's, who may import it.
  if (route === '/v1/unmanaged-resources/:typeName') return 'write';
  if (method === 'GET' || method === 'HEAD') return 'read';
  if (route === '/v1/types' || route.startsWith('/v1/types/')) return 'manage-types';
  // Admission policies decide for every tenant: setting them is an admin's.
  if (route.startsWith('/v1/policies')) return 'manage-policies';
  // Recipes run with the rights they are registered with: registering them is an admin's.
  if (route.startsWith('/v1/recipes') || route.startsWith('/v1/environments')) return 'manage-types';
  return 'write';
}

function unauthorized(reply: FastifyReply, message: string, invalidToken: boolean): FastifyReply {
  return reply
    .status(401)
    .header(
      'www-authenticate',
      invalidToken ? 'Bearer realm="typeplane", error="invalid_token"' : 'Bearer realm="typeplane"',
    )
    .send(errorBody('InvalidCredentials', message));
}

export function registerAuth(app: FastifyInstance, tokens: Tokens): void {
  app.decorateRequest('principal', undefined);
  // A callback hook: a token seen in the last second is checked without a promise or a store read.
  app.addHook('onRequest', (request, reply, done) => {
    // Read once: the framework builds this object anew on every read.
    const { url: route, config } = request.routeOptions;
    if (route !== undefined && OPEN_ROUTES.has(route)) return done();
    if (config.authentication === 'sigv4' || config.authentication === 'url') return done();
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      if (config.authentication === 'optional') return done();
      unauthorized(
        reply,
        `this API needs a token: send 'Authorization: Bearer <token>'; ${HOW_TO_GET_ONE}`,
        false,
      );
      return;
    }
    // The usual header, 'Bearer <a token seen in the last second>', is known without the pattern: a
    // remembered token is of token syntax, so the pattern would find that very token in it.
    const seen = header.startsWith('Bearer ') ? tokens.recent(header.slice(7)) : undefined;
    if (seen) return done(authorize(request, seen, route));
    const match = BEARER.exec(header);
    if (!match) {
      unauthorized(reply, "the Authorization header must be 'Bearer <token>'", true);
      return;
    }
    const token = match[1]!;
    const recent = tokens.recent(token);
    if (recent) return done(authorize(request, recent, route));
    tokens.authenticate(token).then(
      (principal) => {
        if (principal) done(authorize(request, principal, route));
        else unauthorized(reply, `the token is unknown or revoked; ${HOW_TO_GET_ONE}`, true);
      },
      (error: unknown) => done(error as Error),
    );
  });
}

/** Whether the caller may use the route; the error to answer otherwise. */
function authorize(
  request: FastifyRequest,
  principal: Principal,
  route: string | undefined,
): Error | undefined {
  request.principal = principal;
  // Unknown routes answer 404 to any valid token.
  if (route === undefined) return undefined;
  const action = actionOf(request.method, route);
  if (!roleAllows(principal.role, action))
    return accessDenied(`a ${principal.role} token cannot ${describe(action)}`);
  const typeName = (request.params as { typeName?: unknown } | undefined)?.typeName;
  try {
    if (typeof typeName === 'string') assertTypeVisible(principal, typeName);
  } catch (error) {
    return error as Error;
  }
  return undefined;
}

function describe(action: Action): string {
  switch (action) {
    case 'read':
      return 'read';
    case 'write':
      return 'create, change, delete or import resources, list unmanaged ones, or cancel requests';
    case 'read-metrics':
      return 'read the metrics';
    case 'manage-types':
      return 'register or deregister types';
    case 'manage-tokens':
      return 'create, list or revoke tokens';
    case 'read-audit':
      return 'read the audit trail: it says what every token did, so GET /v1/audit takes an admin token';
    case 'back-up':
      return 'take a backup of the store';
    case 'manage-policies':
      return 'create, change or delete admission policies';
  }
}

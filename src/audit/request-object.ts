/**
 * @module The request body recorded at level Request, with every secret removed: a resource's
 * write-only values (by its type's schema, as reads strip them), a stack's NoEcho parameters (all
 * parameters when the template cannot be read), and nothing at all from routes whose bodies are
 * secret or not known to be safe (type configurations, recipes, environments, and any route not
 * named here). A token's secret is never in a request: it is in the answer, which is not recorded.
 */
import { stripWriteOnly, type Model } from '../model/index.js';
import type { ResourceType } from '../schema/model.js';
import { loadTemplate } from '../stacks/index.js';

/** Masks in place of a removed value. */
export const REMOVED = '(removed)';

export interface Masking {
  /** The type (at `version`, else its default) a resource request names; undefined when unknown. */
  typeOf(typeName: string, version?: string): Promise<ResourceType | undefined>;
}

const RESOURCE_ROUTES = new Set(['/v1/resources/:typeName', '/v1/resources/:typeName/:identifier']);
const STACK_ROUTES = new Set(['/v1/stacks/:stackName', '/v1/stacks/:stackName/plans']);
const PLAIN_ROUTES = new Set([
  '/v1/tokens',
  '/v1/types',
  '/v1/types/:typeName',
  '/v1/requests/:requestToken/cancel',
  '/v1/resources/:typeName/:identifier/forget',
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What level Request records of `body`; undefined when nothing of it may be recorded. */
export async function requestObjectOf(
  route: string | undefined,
  params: unknown,
  query: unknown,
  body: unknown,
  masking: Masking,
): Promise<unknown> {
  if (route === undefined || body === undefined || body === null) return undefined;
  if (PLAIN_ROUTES.has(route)) return body;
  if (!isObject(body)) return undefined;
  if (RESOURCE_ROUTES.has(route)) {
    const typeName = (params as { typeName?: unknown }).typeName;
    const version = (query as { version?: unknown } | undefined)?.version;
    const type =
      typeof typeName === 'string'
        ? await masking.typeOf(typeName, typeof version === 'string' ? version : undefined)
        : undefined;
    return resourceBody(body, type);
  }
  if (STACK_ROUTES.has(route)) return stackBody(body);
  return undefined;
}

/** A resource request: desiredState without write-only values, a patch without values that reach one. */
function resourceBody(body: Record<string, unknown>, type: ResourceType | undefined): unknown {
  const { desiredState, patchDocument, ...rest } = body;
  const out: Record<string, unknown> = { ...rest };
  if (desiredState !== undefined)
    out.desiredState = type && isObject(desiredState) ? stripWriteOnly(type, desiredState as Model) : REMOVED;
  if (patchDocument !== undefined)
    out.patchDocument =
      type && Array.isArray(patchDocument) ? maskPatch(patchDocument, type.writeOnlyProperties) : REMOVED;
  return out;
}

/** Patch operations whose path is, holds or lies within a write-only property lose their value. */
function maskPatch(operations: unknown[], writeOnly: readonly string[]): unknown[] {
  const secret = writeOnly.map((pointer) =>
    pointer
      .replace(/^\/properties/, '')
      .split('/')
      .slice(1),
  );
  return operations.map((operation) => {
    if (!isObject(operation)) return REMOVED;
    const paths = [operation.path, operation.from].filter((p): p is string => typeof p === 'string');
    const touches = paths.some((path) => {
      const segments = path.split('/').slice(1);
      return secret.some((s) =>
        related(
          segments,
          s.filter((part) => part !== 'properties'),
        ),
      );
    });
    if (!touches || !('value' in operation)) return operation;
    return { ...operation, value: REMOVED };
  });
}

/** One path is a prefix of the other (`*` matches any segment). */
function related(a: string[], b: string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i] && a[i] !== '*' && b[i] !== '*') return false;
  return true;
}

/**
 * A stack deploy or plan: its parameters with NoEcho values removed (every value when the template
 * cannot be read); the template itself is not recorded — its resources' properties may hold
 * write-only values written in clear, and the stack keeps its template anyway.
 */
function stackBody(body: Record<string, unknown>): unknown {
  const { template, parameters, ...rest } = body;
  const out: Record<string, unknown> = { ...rest };
  if (typeof template === 'string') out.template = REMOVED;
  if (isObject(parameters)) {
    const declared = typeof template === 'string' ? loadTemplate(template).template?.parameters : undefined;
    out.parameters = Object.fromEntries(
      Object.entries(parameters).map(([name, value]) => {
        const declaration = declared?.get(name);
        return [name, declaration && !declaration.noEcho ? value : REMOVED];
      }),
    );
  }
  return out;
}

/**
 * @module /v1/openapi.json and /v1/artifacts — what a type's consumers get, generated from what is
 * registered: Bicep extension types per namespace, JSON Schemas, the OpenAPI document.
 *
 * Each answer covers only the types the caller's token reaches. Its ETag is a digest of its inputs —
 * which artifact, and the name, version and registration time of every visible type — so a
 * conditional request (If-None-Match) is answered 304 without generating anything, and registering or
 * removing a type changes the ETag at once. The digest reads only the types' stamps, never their
 * models, so a 304 or a cached answer costs no parsing.
 *
 * Bodies are generated and compressed on generator threads (`codegen/worker`), never on the event
 * loop; a request that finds the generator's queue full is answered 503 (429 when its token has
 * enough jobs waiting already) with Retry-After. Generated bodies are cached by ETag, with their
 * gzip and Brotli forms, within a byte budget; each answer is in the coding the client prefers.
 */
import { createHash } from 'node:crypto';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { typeVisible } from '../../auth/index.js';
import { BICEP_FILES, META_SCHEMA_FILES, type ArtifactName } from '../../codegen/index.js';
import { ArtifactGenerator, GeneratorBusy, type GeneratedArtifact } from '../../codegen/worker/index.js';
import { TypeplaneError } from '../../errors.js';
import type { Registry } from '../../registry/registry.js';
import { ArtifactSources, type TypeSource, type TypeStamp } from '../artifact-sources.js';
import { principalOf } from '../auth.js';
import { releaseSeat } from '../../fairness/index.js';

/** The version the OpenAPI document states: the API's path version. */
export const OPENAPI_DOCUMENT_VERSION = 'v1';
/** Generated bodies (all their codings) kept for conditional and repeated requests. */
const CACHE_BYTES = 64 * 1024 * 1024;
/** The codings served, the server's preference first. */
const CODINGS = ['br', 'gzip', 'identity'] as const;

/** The registered types' stamps, those a token reaches, and the digest of these. */
interface View {
  registered: TypeStamp[];
  visible: TypeStamp[];
  digest: string;
}

export async function artifactRoutes(
  app: FastifyInstance,
  { registry }: { registry: Registry },
): Promise<void> {
  const generator = new ArtifactGenerator();
  app.addHook('onClose', () => generator.close());
  const sources = new ArtifactSources(registry);
  const cache = new Map<string, GeneratedArtifact>();
  const inFlight = new Map<string, Promise<{ artifact: GeneratedArtifact | undefined; from: string }>>();
  let cachedBytes = 0;
  const sizeOf = ({ encodings: e }: GeneratedArtifact) =>
    e.identity.length + (e.gzip?.length ?? 0) + (e.br?.length ?? 0);
  /** Least recently used first out. */
  const remember = (etag: string, artifact: GeneratedArtifact) => {
    if (cache.has(etag)) return;
    cache.set(etag, artifact);
    cachedBytes += sizeOf(artifact);
    for (const [key, old] of cache) {
      if (cachedBytes <= CACHE_BYTES) break;
      cache.delete(key);
      cachedBytes -= sizeOf(old);
    }
  };
  const recall = (etag: string) => {
    const hit = cache.get(etag);
    if (hit) {
      cache.delete(etag);
      cache.set(etag, hit);
    }
    return hit;
  };

  // Requests that arrive together (a burst of forty readers) share one read of the stamps, and a
  // token's view of it: each request reading and filtering them alone held the event loop for
  // hundreds of milliseconds. Shared for one turn of the event loop only, so that a registration
  // answered before a request arrives is always in its stamps.
  let thisTurn: { registered: Promise<TypeStamp[]>; views: Map<string, Promise<View>> } | undefined;
  /** The stamps of all registered types and of those the caller's token reaches (no model is read). */
  const stamps = (request: FastifyRequest): Promise<View> => {
    // A caller without a token (a format schema's route only) reaches no type.
    if (!request.principal) return Promise.resolve(NO_TYPES);
    if (!thisTurn) {
      thisTurn = { registered: registry.listStamps(), views: new Map() };
      setImmediate(() => (thisTurn = undefined));
    }
    const principal = principalOf(request);
    let view = thisTurn.views.get(principal.tokenId);
    if (!view) {
      view = thisTurn.registered.then((registered) => {
        const visible = registered.filter((s) => typeVisible(principal, s.typeName));
        return { registered, visible, digest: digestOf(visible) };
      });
      thisTurn.views.set(principal.tokenId, view);
    }
    return view;
  };
  const visibleSources = async (request: FastifyRequest) => {
    const { registered, visible } = await stamps(request);
    return sources.of(registered, visible);
  };

  /**
   * Answer with an artifact: 304 when If-None-Match holds its ETag, else the cached or generated body.
   * `pick` chooses the visible types it is made from (all by default; 'none' reads no model), or
   * answers undefined when none of them has it (404, and no generator time is spent on a name that
   * does not exist).
   */
  const serve = async (
    request: FastifyRequest,
    reply: FastifyReply,
    key: string,
    artifact: ArtifactName,
    pick: ((types: TypeSource[]) => TypeSource[] | undefined) | 'none' = (types) => types,
  ) => {
    const { registered, visible, digest } = await stamps(request);
    const etag = etagOf(key, digest);
    void reply.header('etag', etag).header('cache-control', 'no-cache').header('vary', 'accept-encoding');
    const match = request.headers['if-none-match'];
    if (typeof match === 'string' && match.split(',').some((m) => m.trim().replace(/^W\//, '') === etag))
      return reply.status(304).send();
    let made = recall(etag);
    if (!made) {
      // Requests that arrive while an artifact is being made wait for it instead of making it again.
      let making = inFlight.get(etag);
      if (!making) {
        making = (async () => {
          const all = pick === 'none' ? [] : await sources.of(registered, visible);
          const from = pick === 'none' ? digest : digestOf(all);
          const picked = pick === 'none' ? [] : pick(all);
          if (!picked) return { artifact: undefined, from };
          const texts = picked.map((s) => s.text);
          return {
            artifact: await generator.run(artifact, texts, callerOf(request), request.url),
            from,
          };
        })().finally(() => inFlight.delete(etag));
        inFlight.set(etag, making);
      }
      // Made off the event loop, in the generators' own bounded queue (per token too): waiting for it
      // holds no seat, or a token's artifacts would keep every other token's requests waiting.
      releaseSeat(reply.raw);
      let answer;
      try {
        answer = await making;
      } catch (error) {
        reply.removeHeader('etag');
        if (error instanceof GeneratorBusy) void reply.header('retry-after', String(error.retryAfterSeconds));
        throw error;
      }
      if (!answer.artifact)
        throw new TypeplaneError('NotFound', `no artifact ${request.url} among the types this token reaches`);
      made = answer.artifact;
      // A type registered or removed between the digest and reading the models: the body gets the
      // ETag of what it was made from.
      if (answer.from === digest) remember(etag, made);
      else void reply.header('etag', etagOf(key, answer.from));
    }
    const coding = negotiate(request.headers['accept-encoding'] ?? '', [...CODINGS]) ?? 'identity';
    const body = made.encodings[coding];
    if (coding !== 'identity' && body) void reply.header('content-encoding', coding);
    return reply.type(made.contentType).send(body ?? made.encodings.identity);
  };

  app.get('/v1/openapi.json', (request, reply) =>
    serve(request, reply, 'openapi', { kind: 'openapi', version: OPENAPI_DOCUMENT_VERSION }),
  );

  app.get('/v1/artifacts/bicep', async (request) => {
    const namespaces = [...new Set((await visibleSources(request)).map((s) => s.namespace))].sort();
    return {
      extensions: namespaces.map((namespace) => ({
        namespace,
        index: `/v1/artifacts/bicep/${encodeURIComponent(namespace)}/index.json`,
      })),
    };
  });

  app.get<{ Params: { namespace: string; file: string } }>(
    '/v1/artifacts/bicep/:namespace/:file',
    (request, reply) => {
      const { namespace, file } = request.params;
      if (!isOneOf(BICEP_FILES, file))
        throw new TypeplaneError('NotFound', `no Bicep file ${file}; there are ${BICEP_FILES.join(', ')}`);
      const wanted = namespace.toLowerCase();
      return serve(
        request,
        reply,
        `bicep\u0000${wanted}\u0000${file}`,
        { kind: 'bicep', namespace: wanted, file },
        (types) => {
          const mine = types.filter((t) => t.namespace.toLowerCase() === wanted);
          return mine.length > 0 ? mine : undefined;
        },
      );
    },
  );

  app.get('/v1/artifacts/json-schema', async (request) => {
    const names = [
      ...META_SCHEMA_FILES,
      'stack-template.json',
      ...(await visibleSources(request)).map((s) => s.schemaFile),
    ];
    return { schemas: names.map((name) => ({ name, url: `/v1/artifacts/json-schema/${name}` })) };
  });

  // The format schemas are public: they describe documents, not a tenant's types, and an editor
  // following a `$schema` URL sends no token. Given a token, the stack template schema also checks
  // the Properties of each type that token reaches; without one it checks the template's form only.
  const formatRoute = { config: { authentication: 'optional' as const } };
  for (const file of META_SCHEMA_FILES)
    app.get(`/v1/artifacts/json-schema/${file}`, formatRoute, (request, reply) =>
      // The meta-schemas depend on no type, but are served the same way (one ETag rule).
      serve(request, reply, `json-schema\u0000${file}`, { kind: 'meta-schema', file }, 'none'),
    );
  app.get('/v1/artifacts/json-schema/stack-template.json', formatRoute, (request, reply) =>
    serve(request, reply, 'json-schema\u0000stack-template', { kind: 'stack-template' }),
  );

  app.get<{ Params: { name: string } }>('/v1/artifacts/json-schema/:name', (request, reply) => {
    const { name } = request.params;
    const key = `json-schema\u0000${name}`;
    return serve(request, reply, key, { kind: 'properties-schema', file: name }, (types) => {
      const type = types.find((t) => t.schemaFile === name);
      return type && [type];
    });
  });
}

const NO_TYPES: View = { registered: [], visible: [], digest: digestOf([]) };

/** Whose generator jobs a request's are (at most a few each): its token, or all callers without one. */
const callerOf = (request: FastifyRequest) => request.principal?.tokenId ?? '(no token)';

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/** A digest of types' names, versions and registration times, whatever their order. */
function digestOf(stamps: readonly TypeStamp[]): string {
  const hash = createHash('sha256');
  for (const s of [...stamps].sort((a, b) => (a.typeName < b.typeName ? -1 : 1)))
    hash.update(`${s.typeName}\u0000${s.version}\u0000${s.registeredAt}\u0000`);
  return hash.digest('base64url');
}

const etagOf = (name: string, digest: string) =>
  `"${createHash('sha256').update(`${name}\u0000${digest}`).digest('base64url').slice(0, 32)}"`;

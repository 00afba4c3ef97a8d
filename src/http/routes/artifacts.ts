/**
 * @module /v1/openapi.json and /v1/artifacts — what a type's consumers get, generated from what is
 * registered: Bicep extension types per namespace, JSON Schemas, the OpenAPI document.
 *
 * Each answer covers only the types the caller's token reaches. Its ETag is a digest of its inputs —
 * which artifact, and the name, version and registration time of every visible type — so a
 * conditional request (If-None-Match) is answered 304 without generating anything, and registering or
 * removing a type changes the ETag at once. The digest reads only the types' stamps, never their
 * models, so a 304 or a cached answer costs no parsing. Generated bodies are cached by ETag, as bytes,
 * within a byte budget.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { typeVisible } from '../../auth/index.js';
import {
  bicepNamespace,
  generateBicep,
  generateOpenApi,
  manifestEditorSchema,
  propertiesSchemaFileName,
  resourceSchemaEditorSchema,
  stackTemplateSchema,
  typePropertiesSchema,
} from '../../codegen/index.js';
import { TypeplaneError } from '../../errors.js';
import type { Registry } from '../../registry/registry.js';
import type { ResourceType } from '../../schema/index.js';
import { principalOf } from '../auth.js';

/** The version the OpenAPI document states: the API's path version. */
export const OPENAPI_DOCUMENT_VERSION = 'v1';
/** Generated bodies kept for conditional and repeated requests. */
const CACHE_BYTES = 64 * 1024 * 1024;
const BICEP_FILES = ['index.json', 'types.json', 'index.md', 'types.md'] as const;
const META_SCHEMAS: Record<string, () => unknown> = {
  'resource-schema.json': resourceSchemaEditorSchema,
  'manifest.json': manifestEditorSchema,
};

interface Artifact {
  body: Buffer;
  contentType: string;
}

export async function artifactRoutes(
  app: FastifyInstance,
  { registry }: { registry: Registry },
): Promise<void> {
  const cache = new Map<string, Artifact>();
  const inFlight = new Map<string, Promise<{ artifact: Artifact | undefined; from: string }>>();
  let cachedBytes = 0;
  const remember = (etag: string, artifact: Artifact) => {
    if (cache.has(etag)) return;
    cache.set(etag, artifact);
    cachedBytes += artifact.body.length;
    for (const [key, old] of cache) {
      if (cachedBytes <= CACHE_BYTES) break;
      cache.delete(key);
      cachedBytes -= old.body.length;
    }
  };

  /** A digest of the types the caller's token reaches, from their stamps alone (no model is read). */
  const visibleDigest = async (request: FastifyRequest) => {
    const principal = principalOf(request);
    return digestOf((await registry.listStamps()).filter((s) => typeVisible(principal, s.typeName)));
  };
  /** The types the caller's token reaches, with their models (read only to generate). */
  const visibleRecords = async (request: FastifyRequest) => {
    const principal = principalOf(request);
    return (await registry.list()).filter((r) => typeVisible(principal, r.typeName));
  };
  const visibleTypes = async (request: FastifyRequest) => (await visibleRecords(request)).map((r) => r.model);

  /**
   * Answer with an artifact: 304 when If-None-Match holds its ETag, else the cached or generated body.
   * `generate` returns undefined when the artifact does not exist for the visible types (404).
   */
  const serve = async (
    request: FastifyRequest,
    reply: FastifyReply,
    name: string,
    generate: (types: ResourceType[]) => Artifact | undefined,
  ) => {
    const digest = await visibleDigest(request);
    const etag = etagOf(name, digest);
    void reply.header('etag', etag).header('cache-control', 'no-cache');
    const match = request.headers['if-none-match'];
    if (typeof match === 'string' && match.split(',').some((m) => m.trim().replace(/^W\//, '') === etag))
      return reply.status(304).send();
    let artifact = cache.get(etag);
    if (!artifact) {
      // Requests that arrive while an artifact is being made wait for it instead of making it again.
      let making = inFlight.get(etag);
      if (!making) {
        making = visibleRecords(request)
          .then((records) => ({ artifact: generate(records.map((r) => r.model)), from: digestOf(records) }))
          .finally(() => inFlight.delete(etag));
        inFlight.set(etag, making);
      }
      const made = await making;
      if (!made.artifact)
        throw new TypeplaneError('NotFound', `no artifact ${name} among the types this token reaches`);
      artifact = made.artifact;
      // A type registered or removed between the digest and that read: the body gets the ETag of
      // what it was made from.
      if (made.from === digest) remember(etag, artifact);
      else void reply.header('etag', etagOf(name, made.from));
    }
    return reply.type(artifact.contentType).send(artifact.body);
  };
  // Compact: the OpenAPI document of a large registry is tens of megabytes, indented nearly twice that.
  const asJson = (value: unknown): Artifact => ({
    body: Buffer.from(JSON.stringify(value) + '\n'),
    contentType: 'application/json; charset=utf-8',
  });

  app.get('/v1/openapi.json', (request, reply) =>
    serve(request, reply, 'openapi', (types) =>
      asJson(generateOpenApi(types, { version: OPENAPI_DOCUMENT_VERSION })),
    ),
  );

  app.get('/v1/artifacts/bicep', async (request) => {
    const types = await visibleTypes(request);
    const namespaces = [...new Set(types.map(bicepNamespace))].sort();
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
      if (!(BICEP_FILES as readonly string[]).includes(file))
        throw new TypeplaneError('NotFound', `no Bicep file ${file}; there are ${BICEP_FILES.join(', ')}`);
      const wanted = namespace.toLowerCase();
      return serve(request, reply, `bicep\u0000${wanted}\u0000${file}`, (types) => {
        const [extension] = generateBicep(types.filter((t) => bicepNamespace(t).toLowerCase() === wanted));
        if (!extension) return undefined;
        return {
          body: Buffer.from(extension.files[file as (typeof BICEP_FILES)[number]]),
          contentType: file.endsWith('.md')
            ? 'text/markdown; charset=utf-8'
            : 'application/json; charset=utf-8',
        };
      });
    },
  );

  app.get('/v1/artifacts/json-schema', async (request) => {
    const types = await visibleTypes(request);
    const names = [
      ...Object.keys(META_SCHEMAS),
      'stack-template.json',
      ...types.map(propertiesSchemaFileName),
    ];
    return { schemas: names.map((name) => ({ name, url: `/v1/artifacts/json-schema/${name}` })) };
  });

  app.get<{ Params: { name: string } }>('/v1/artifacts/json-schema/:name', (request, reply) => {
    const { name } = request.params;
    const meta = META_SCHEMAS[name];
    // The meta-schemas depend on no type, but are served the same way (one ETag rule).
    if (meta) return serve(request, reply, `json-schema\u0000${name}`, () => asJson(meta()));
    if (name === 'stack-template.json')
      return serve(request, reply, 'json-schema\u0000stack-template', (types) =>
        asJson(stackTemplateSchema(types)),
      );
    return serve(request, reply, `json-schema\u0000${name}`, (types) => {
      const type = types.find((t) => propertiesSchemaFileName(t) === name);
      return type ? asJson(typePropertiesSchema(type)) : undefined;
    });
  });
}

/** A digest of types' names, versions and registration times, whatever their order. */
function digestOf(stamps: readonly { typeName: string; version: string; registeredAt: string }[]): string {
  const hash = createHash('sha256');
  for (const s of [...stamps].sort((a, b) => (a.typeName < b.typeName ? -1 : 1)))
    hash.update(`${s.typeName}\u0000${s.version}\u0000${s.registeredAt}\u0000`);
  return hash.digest('base64url');
}

const etagOf = (name: string, digest: string) =>
  `"${createHash('sha256').update(`${name}\u0000${digest}`).digest('base64url').slice(0, 32)}"`;

/**
 * @module /v1/types — register, list, describe and deregister resource types.
 */
import type { FastifyInstance } from 'fastify';
import { TypeplaneError } from '../../errors.js';
import type { Registry } from '../../registry/registry.js';
import type { StoredType } from '../../store/types.js';
import { LIMITS } from '../../schema/index.js';
import { typeVisible } from '../../auth/index.js';
import { principalOf } from '../auth.js';

export function typeSummary(record: StoredType) {
  const t = record.model;
  return {
    typeName: t.typeName,
    version: record.version,
    dialect: t.dialect,
    description: t.description,
    registeredAt: record.registeredAt,
  };
}

export function typeDetail(latest: StoredType, versions: StoredType[]) {
  const t = latest.model;
  return {
    ...typeSummary(latest),
    defaultVersion: latest.version,
    versions: versions.map((v) => ({ version: v.version, registeredAt: v.registeredAt })),
    schema: t.schema,
    primaryIdentifier: t.primaryIdentifier,
    additionalIdentifiers: t.additionalIdentifiers,
    readOnlyProperties: t.readOnlyProperties,
    writeOnlyProperties: t.writeOnlyProperties,
    createOnlyProperties: t.createOnlyProperties,
    handlers: t.handlers,
    traits: t.traits,
  };
}

export async function typeRoutes(app: FastifyInstance, { registry }: { registry: Registry }): Promise<void> {
  // Type documents are read as bytes, so malformed UTF-8 is refused (TP1003) rather than replaced,
  // and kept as text so diagnostics can point at line and column.
  const asBytes = { parseAs: 'buffer' as const, bodyLimit: LIMITS.maxBytes };
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml', 'text/plain'],
    asBytes,
    (_req, body, done) => done(null, body),
  );

  app.post('/v1/types', { bodyLimit: LIMITS.maxBytes }, async (request, reply) => {
    const body = request.body;
    if (!Buffer.isBuffer(body) || body.length === 0)
      throw new TypeplaneError(
        'InvalidRequest',
        'send a resource schema (application/json) or a manifest (application/yaml) as the body',
      );
    const contentType = String(request.headers['content-type'] ?? '');
    const format = /json/i.test(contentType) ? 'json' : /yaml/i.test(contentType) ? 'yaml' : undefined;
    const { types, warnings } = await registry.registerDocument(body, {
      ...(format ? { format } : {}),
      file: 'request body',
    });
    // Warnings (an empty schema leaves properties unvalidated, say) come back with the registration.
    return reply
      .status(201)
      .send({ types: types.map(typeSummary), ...(warnings.length > 0 ? { warnings } : {}) });
  });

  app.get('/v1/types', async (request) => {
    const principal = principalOf(request);
    const visible = (await registry.list()).filter((t) => typeVisible(principal, t.model.typeName));
    return { types: visible.map(typeSummary) };
  });

  app.get<{ Params: { typeName: string } }>('/v1/types/:typeName', async (request) => {
    const { latest, versions } = await registry.describe(request.params.typeName);
    return typeDetail(latest, versions);
  });

  app.delete<{ Params: { typeName: string } }>('/v1/types/:typeName', async (request, reply) => {
    await registry.deregister(request.params.typeName);
    return reply.status(204).send();
  });
}

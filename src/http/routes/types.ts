/**
 * @module /v1/types — register, list, describe and deregister resource types and their versions.
 */
import type { FastifyInstance } from 'fastify';
import { diffTypes, summarize } from '../../diff/index.js';
import { TypeplaneError } from '../../errors.js';
import type { Registration, Registry } from '../../registry/registry.js';
import type { StoredType } from '../../store/types.js';
import { LIMITS } from '../../schema/index.js';
import { typeVisible } from '../../auth/index.js';
import { principalOf } from '../auth.js';
import { parseJsonBody } from '../body.js';
import { versionParam } from '../query.js';
import type { TypeConfigurations } from '../../type-configuration/index.js';
import { configurationRoutes } from './type-configuration.js';

export function typeSummary(record: StoredType) {
  const t = record.model;
  return {
    typeName: t.typeName,
    version: record.version,
    ...(t.apiVersion !== undefined ? { apiVersion: t.apiVersion } : {}),
    dialect: t.dialect,
    description: t.description,
    registeredAt: record.registeredAt,
  };
}

export function typeDetail(described: Awaited<ReturnType<Registry['describe']>>) {
  const { record, defaultVersion, versions, resourceCounts } = described;
  const t = record.model;
  return {
    ...typeSummary(record),
    defaultVersion,
    versions: versions.map((v) => ({
      version: v.version,
      registeredAt: v.registeredAt,
      isDefault: v.version === defaultVersion,
      resourceCount: resourceCounts[v.version] ?? 0,
    })),
    schema: t.schema,
    primaryIdentifier: t.primaryIdentifier,
    additionalIdentifiers: t.additionalIdentifiers,
    readOnlyProperties: t.readOnlyProperties,
    writeOnlyProperties: t.writeOnlyProperties,
    createOnlyProperties: t.createOnlyProperties,
    conditionalCreateOnlyProperties: t.conditionalCreateOnlyProperties,
    deprecatedProperties: t.deprecatedProperties,
    handlers: t.handlers,
    traits: t.traits,
    // The settings' schema (never their values: those are GET …/configuration, admins only).
    ...(t.typeConfiguration ? { typeConfiguration: t.typeConfiguration } : {}),
  };
}

function registrationSummary(registration: Registration) {
  const { record, outcome, changes, violations } = registration;
  return {
    ...typeSummary(record),
    outcome,
    ...(outcome === 'new-version' ? { changes: { counts: summarize(changes), items: changes } } : {}),
    ...(violations ? { violations } : {}),
  };
}

function flagParam(name: string, value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true' || value === '') return true;
  throw new TypeplaneError('InvalidRequest', `${name} must be true or false, not ${JSON.stringify(value)}`);
}

export async function typeRoutes(
  app: FastifyInstance,
  { registry, configurations }: { registry: Registry; configurations?: TypeConfigurations },
): Promise<void> {
  // Type documents are read as bytes, so malformed UTF-8 is refused (TP1003) rather than replaced,
  // and kept as text so diagnostics can point at line and column.
  const asBytes = { parseAs: 'buffer' as const, bodyLimit: LIMITS.maxBytes };
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml', 'text/plain'],
    asBytes,
    (_req, body, done) => done(null, body),
  );

  app.post<{ Querystring: { allowBreaking?: string } }>(
    '/v1/types',
    { bodyLimit: LIMITS.maxBytes },
    async (request, reply) => {
      const body = request.body;
      if (!Buffer.isBuffer(body) || body.length === 0)
        throw new TypeplaneError(
          'InvalidRequest',
          'send a resource schema (application/json) or a manifest (application/yaml) as the body',
        );
      const contentType = String(request.headers['content-type'] ?? '');
      const format = /json/i.test(contentType) ? 'json' : /yaml/i.test(contentType) ? 'yaml' : undefined;
      const allowBreaking = flagParam('allowBreaking', request.query.allowBreaking);
      const { registrations: registered, warnings } = await registry.registerDocument(body, {
        ...(format ? { format } : {}),
        file: 'request body',
        allowBreaking,
      });
      // Nothing new stored (every type as registered already): a no-op, not a creation.
      const created = registered.some((r) => r.outcome !== 'unchanged');
      // Warnings (an empty schema leaves properties unvalidated, say) come back with the registration.
      return reply
        .status(created ? 201 : 200)
        .send({ types: registered.map(registrationSummary), ...(warnings.length > 0 ? { warnings } : {}) });
    },
  );

  // Each type's default version as last listed: a listing reads the stamps (no schemas) and only the
  // records registered since, so repeated listings of a large registry do not parse every schema again.
  const listed = new Map<string, StoredType>();
  app.get('/v1/types', async (request) => {
    const principal = principalOf(request);
    const stamps = await registry.listStamps();
    if (listed.size > stamps.length) {
      const names = new Set(stamps.map((s) => s.typeName));
      for (const name of listed.keys()) if (!names.has(name)) listed.delete(name);
    }
    const visible: StoredType[] = [];
    for (const stamp of stamps) {
      if (!typeVisible(principal, stamp.typeName)) continue;
      let record = listed.get(stamp.typeName);
      if (record?.version !== stamp.version || record.registeredAt !== stamp.registeredAt) {
        record = await registry.record(stamp.typeName, stamp.version).catch((e: unknown) => {
          if (e instanceof TypeplaneError && e.code === 'NotFound') return undefined;
          throw e;
        });
        if (!record) continue; // removed meanwhile
        listed.set(stamp.typeName, record);
      }
      visible.push(record);
    }
    // With whether its provider passed the contract suite (null: no report for this registration).
    const types = await Promise.all(
      visible.map(async (t) => ({ ...typeSummary(t), contract: (await registry.contractStatus(t)) ?? null })),
    );
    return { types };
  });

  app.get<{ Params: { typeName: string }; Querystring: { version?: string } }>(
    '/v1/types/:typeName',
    async (request) => {
      const described = await registry.describe(request.params.typeName, versionParam(request.query.version));
      // Whether this version's provider passed the contract suite (null: no report for this registration).
      return {
        ...typeDetail(described),
        contract: (await registry.contractStatus(described.record)) ?? null,
      };
    },
  );

  // What changed from one registered version to another, each change with its verdict, as a
  // registration reports it (the console's diff between versions; `typeplane diff` for documents).
  app.get<{ Params: { typeName: string }; Querystring: { from?: string; to?: string } }>(
    '/v1/types/:typeName/diff',
    async (request) => {
      const from = versionParam(request.query.from);
      const to = versionParam(request.query.to);
      if (from === undefined || to === undefined)
        throw new TypeplaneError(
          'InvalidRequest',
          'give the two versions to compare: ?from=1&to=2 (GET /v1/types/{typeName} lists them)',
          [{ pointer: `/query/${from === undefined ? 'from' : 'to'}`, message: 'a version number' }],
        );
      const { typeName } = request.params;
      const [before, after] = await Promise.all([
        registry.record(typeName, from),
        registry.record(typeName, to),
      ]);
      const changes = diffTypes(before.model, after.model);
      return { typeName, from: before.version, to: after.version, counts: summarize(changes), changes };
    },
  );

  // A `typeplane test -o json` report for a version of the type (its default unless
  // `?version=` names one; admin, as registration).
  app.post<{ Params: { typeName: string }; Querystring: { version?: string } }>(
    '/v1/types/:typeName/contract-report',
    { bodyLimit: LIMITS.maxBytes },
    async (request, reply) => {
      // Read as bytes by this plugin's parser; parsed with the bounds of every JSON body.
      const body = Buffer.isBuffer(request.body) ? parseJsonBody(request.body) : request.body;
      const { typeName } = request.params;
      const version = versionParam(request.query.version);
      const contract = await registry.attachContractReport(typeName, body, version);
      return reply.status(201).send({ typeName, ...(version !== undefined ? { version } : {}), contract });
    },
  );

  app.put<{ Params: { typeName: string }; Querystring: { allowBreaking?: string } }>(
    '/v1/types/:typeName/default-version',
    async (request) => {
      const allowBreaking = flagParam('allowBreaking', request.query.allowBreaking);
      const body = parseJsonBody(request.body as Buffer);
      const version = versionParam(
        typeof body === 'object' && body !== null && !Array.isArray(body)
          ? String((body as { version?: unknown }).version ?? '')
          : undefined,
      );
      if (version === undefined)
        throw new TypeplaneError('InvalidRequest', 'send { "version": "<version number>" } as the body');
      // Checked as a registration is: breaking relative to the current default while resources exist is a 409.
      const { changes, violations } = await registry.setDefault(request.params.typeName, version, {
        allowBreaking,
      });
      return {
        ...typeDetail(await registry.describe(request.params.typeName)),
        changes: { counts: summarize(changes), items: changes },
        ...(violations ? { violations } : {}),
      };
    },
  );

  app.delete<{ Params: { typeName: string }; Querystring: { version?: string } }>(
    '/v1/types/:typeName',
    async (request, reply) => {
      const version = versionParam(request.query.version);
      await registry.deregister(request.params.typeName, version);
      // A type gone for good takes its configuration with it (a later type of that name starts bare).
      if (
        version === undefined ||
        !(await registry.list()).some((t) => t.typeName === request.params.typeName)
      )
        await configurations?.remove(request.params.typeName);
      return reply.status(204).send();
    },
  );
  if (configurations) configurationRoutes(app, configurations);
}

/**
 * @module The composition root: store → registry → engine → HTTP server, wired once. Used by
 * `typeplane serve` and by tests that run a real server on loopback.
 */
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { Engine, engineLogger } from './engine/index.js';
import { buildServer } from './http/index.js';
import { createStateProvider, type Provider, type ProviderDefinition } from './providers/index.js';
import { Registry } from './registry/registry.js';
import { loadTypes } from './schema/index.js';
import { openSqliteStore, type Store } from './store/index.js';

export interface ServiceOptions {
  /** Folder for the SQLite file (`typeplane.db`). */
  dataDir: string;
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
  leaseMs?: number;
  pollIntervalMs?: number;
  /** Milliseconds per minute of handler timeouts (tests shorten it). */
  minuteMs?: number;
}

export interface Service {
  app: FastifyInstance;
  engine: Engine;
  registry: Registry;
  store: Store;
  /** `http://host:port` once listening. */
  url: string;
  /** Stop accepting requests, let in-flight operations finish (or persist them as resumable), close the store. */
  close(graceMs?: number): Promise<void>;
}

export const DEFAULT_PORT = 4780;
export const DEFAULT_HOST = '127.0.0.1';

export async function startService(options: ServiceOptions): Promise<Service> {
  const logger = options.logger ?? pino({ level: 'info' }, pino.destination(2));
  mkdirSync(options.dataDir, { recursive: true });
  const store = await openSqliteStore(join(options.dataDir, 'typeplane.db'));
  try {
    const registry = new Registry(store);
    const state = createStateProvider(store, async (typeName) => (await registry.get(typeName)).type);
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
    const engine = new Engine({
      store,
      registry,
      providerFor: (typeName) => providers.get(typeName) ?? state,
      logger: engineLogger(logger),
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
      ...(options.minuteMs !== undefined ? { minuteMs: options.minuteMs } : {}),
    });
    const schemaFiles = (options.providerDefinitions ?? []).flatMap((d) => d.schemas ?? []);
    const typeFiles = [...schemaFiles, ...(options.types ?? [])];
    if (typeFiles.length > 0) await registerFromDisk(registry, typeFiles, logger);
    const app = await buildServer({ engine, registry, logger });
    await app.listen({ host: options.host ?? DEFAULT_HOST, port: options.port ?? DEFAULT_PORT });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? DEFAULT_PORT);
    const host = options.host ?? DEFAULT_HOST;
    engine.start();
    let closing: Promise<void> | undefined;
    return {
      app,
      engine,
      registry,
      store,
      url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      close(graceMs = 10_000) {
        closing ??= (async () => {
          await app.close();
          await engine.stop(graceMs);
          for (const definition of options.providerDefinitions ?? []) await definition.close?.();
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

/** Validate everything first (all problems, duplicates across files), then register file by file. */
async function registerFromDisk(registry: Registry, paths: string[], logger: Logger): Promise<void> {
  const loaded = await loadTypes(paths);
  const failed = loaded.results.filter((r) => !r.valid);
  if (failed.length > 0) {
    const lines = failed.flatMap((r) =>
      r.diagnostics
        .filter((d) => d.severity === 'error')
        .map((d) => `${d.file}:${d.line ?? 1}:${d.column ?? 1} ${d.rule} ${d.message}`),
    );
    throw new Error(`cannot start: invalid type documents\n${lines.join('\n')}`);
  }
  for (const result of loaded.results) {
    if (!result.file) continue;
    await registry.register(await readFile(result.file), { file: result.file });
  }
  logger.info({ types: loaded.types.length }, 'registered types from disk');
}

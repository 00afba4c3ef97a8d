/**
 * @module typeplane — the public library API: validation, and the service itself.
 *
 * @example
 * import { loadTypes, startService, validateDocument } from 'typeplane';
 * const { valid, types } = await loadTypes(['./types']);
 * const service = await startService({ dataDir: './.typeplane', port: 4780, types: ['./types'] });
 * console.log(service.url, service.firstAdminToken);
 * await service.close();
 */
import type { Service, ServiceOptions } from './service.js';

export * from './schema/index.js';
export type { Service, ServiceOptions } from './service.js';

/**
 * Starts the Typeplane service, as `typeplane serve` does: the store in `dataDir` (or PostgreSQL),
 * the types and providers given, the HTTP API (and Cloud Control) listening on `host`:`port`.
 * The service is loaded on the first call, so that validation alone does not load the server.
 */
export async function startService(options: ServiceOptions): Promise<Service> {
  const { startService: start } = await import('./service.js');
  return start(options);
}

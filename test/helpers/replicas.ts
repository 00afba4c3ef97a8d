/**
 * Replicas of one deployment for tests: `typeplane serve` processes over one PostgreSQL database (in
 * `schema`), sharing the secret key and the admin token, each with a data folder of its own.
 */
import { randomBytes } from 'node:crypto';
import { PG_URL } from './postgres.js';
import { spawnServer, tempDir } from './service.js';

export type Server = Awaited<ReturnType<typeof spawnServer>>;

export async function replicas(
  schema: string,
  count: number,
  extraArgs: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<Server[]> {
  const env = {
    TYPEPLANE_DATABASE_URL: PG_URL,
    TYPEPLANE_SECRET_KEY: randomBytes(32).toString('base64'),
    TYPEPLANE_ADMIN_TOKEN: randomBytes(32).toString('base64url'),
    ...extraEnv,
  };
  return Promise.all(
    Array.from({ length: count }, () =>
      spawnServer(tempDir(), ['--database-schema', schema, ...extraArgs], env),
    ),
  );
}

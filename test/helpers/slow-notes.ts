/**
 * Killing a server mid-operation, for the durability tests: `typeplane serve` processes with the
 * slow file provider (Test::Slow::Note, each a file made in two steps a second apart, each create a
 * line in `<root>/.creates`), one on SQLite to restart, or two PostgreSQL replicas where the second
 * takes over once the first's lease runs out.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PG_URL, freshSchema } from './postgres.js';
import { spawnServer, tempDir } from './service.js';
import { sleep, stopServer } from '../faults/helpers.js';

export const SLOW_PROVIDER = fileURLToPath(
  new URL('../fixtures/slow-file-provider/provider.ts', import.meta.url),
);
export const NOTE_TYPE = 'Test::Slow::Note';

type Server = Awaited<ReturnType<typeof spawnServer>>;

/** Each create's `name token` line, in order. */
export const createdLines = (root: string): string[] =>
  existsSync(join(root, '.creates')) ? readFileSync(join(root, '.creates'), 'utf8').trim().split('\n') : [];

/** The notes' files, sorted. */
export const notesOnDisk = (root: string): string[] =>
  existsSync(root)
    ? readdirSync(root)
        .filter((f) => f.endsWith('.txt'))
        .sort()
    : [];

/** Asserts that exactly `names` were created, each by one operation (a retried step repeats its token). */
export function assertCreatedOnce(root: string, names: string[]): void {
  const tokensByName = new Map<string, Set<string>>();
  for (const line of createdLines(root)) {
    const [name, token] = line.split(' ');
    tokensByName.set(name!, (tokensByName.get(name!) ?? new Set()).add(token!));
  }
  assert.deepEqual([...tokensByName.keys()].sort(), [...names].sort());
  for (const [name, tokens] of tokensByName)
    assert.equal(tokens.size, 1, `${name} was created by ${tokens.size} operations`);
}

/** The probe's first defined answer (its errors count as none yet), polled until `ms` pass. */
export async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

/**
 * A server to kill (`first`), its notes' folder, and `survivor()`: on SQLite a new server on the same
 * data, on PostgreSQL the standby replica that ran all along. All are stopped when `t` ends.
 */
export async function killableServers(
  kind: 'sqlite' | 'postgresql',
  t: TestContext,
  prefix: string,
): Promise<{ root: string; first: Server; standby?: Server; survivor(): Promise<Server> }> {
  const dir = tempDir(prefix);
  const root = join(dir, 'notes');
  // Replicas share one secret key (the store's sealed values are theirs alike) and one admin token.
  const env = {
    SLOW_PROVIDER_ROOT: root,
    TYPEPLANE_ADMIN_TOKEN: randomBytes(32).toString('base64url'),
    TYPEPLANE_SECRET_KEY: randomBytes(32).toString('base64'),
  };
  const storeArgs =
    kind === 'postgresql' ? ['--database-url', PG_URL, '--database-schema', freshSchema(t)] : [];
  const args = ['--provider', SLOW_PROVIDER, '--lease', '1', ...storeArgs];
  const [first, standby] = await Promise.all([
    spawnServer(join(dir, 'data-1'), args, env),
    kind === 'postgresql' ? spawnServer(join(dir, 'data-2'), args, env) : undefined,
  ]);
  let second: Server | undefined;
  t.after(() => Promise.all([stopServer(first), stopServer(standby), stopServer(second)]));
  return {
    root,
    first,
    ...(standby ? { standby } : {}),
    async survivor() {
      if (standby) return standby;
      second ??= await spawnServer(join(dir, 'data-1'), args, env);
      return second;
    },
  };
}

/** SIGKILL a server and wait until it is gone. */
export async function killServer(server: Server): Promise<void> {
  server.child.kill('SIGKILL');
  await new Promise((r) => server.child.once('exit', r));
}

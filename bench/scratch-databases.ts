/**
 * @module Scratch PostgreSQL databases for the benchmarks that put servers on PostgreSQL
 * (bench:api:pg, bench:api:baseline --postgres): one per server and round, named
 * `<prefix>_<pid>_<side>`, made on POSTGRES_URL's server and dropped after the round. One whose
 * process is gone is left over from a killed run: dropped before a run makes its own.
 */
import pg from 'pg';

export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** POSTGRES_URL with another database. */
export function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function dropDatabase(admin: pg.Client, name: string): Promise<void> {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/**
 * Drops what killed runs left of `prefix`'s databases, then makes this process's, one per side
 * (`prefix` and the sides: lower-case letters, digits and `_`, as PostgreSQL names need no quoting).
 */
export async function scratchDatabases<Side extends string>(
  admin: pg.Client,
  prefix: string,
  sides: readonly Side[],
): Promise<Record<Side, string>> {
  const leftOver = new RegExp(`^${prefix}_(\\d+)_[a-z0-9_]+$`);
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE $1`,
    [`${prefix.replace(/_/g, '\\_')}\\_%`],
  );
  for (const { datname } of rows) {
    const m = leftOver.exec(datname);
    if (m && !alive(Number(m[1]))) await dropDatabase(admin, datname);
  }
  const names = Object.fromEntries(sides.map((side) => [side, `${prefix}_${process.pid}_${side}`]));
  for (const name of Object.values<string>(names)) await admin.query(`CREATE DATABASE ${name}`);
  return names as Record<Side, string>;
}

/**
 * @module bench:backup — what a backup costs a running server: reads served by a Typeplane server
 * with a store of STORE_MB, without a backup and while backups run one after another (GET /v1/backup
 * read to its end as fast as the client can), in interleaved rounds. Prints, per round and as the
 * median of the rounds' ratios, reads/s and read latency (p50, p99, max) during backups against
 * without, the backups' throughput, and the server's CPU per MB of backup.
 *
 * No verdict: issue #33 asks that the server stay responsive while a backup runs and sets no figure.
 *
 *   STORE=sqlite|postgresql STORE_MB=200 ROUNDS=3 DURATION_S=5 CLIENTS=16 npm run bench:backup
 *   (PostgreSQL at TYPEPLANE_BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test)
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '../src/cli/client.js';
import { openPostgresStore, openSqliteStore, type Store } from '../src/store/index.js';
import {
  ADMIN_TOKEN,
  cleanup,
  connections,
  cpuSeconds,
  createOp,
  DURATION_S,
  fmt,
  median,
  phase,
  quantile,
  readOp,
  ROUNDS,
  startServer,
  tempDir,
  TYPE_SCHEMA,
  type PhaseResult,
} from './api-harness.js';

const STORE = process.env.STORE === 'postgresql' ? 'postgresql' : 'sqlite';
const STORE_MB = Number(process.env.STORE_MB ?? 200);
const PG_URL = process.env.TYPEPLANE_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ENTRY_BYTES = 4096;
const READ_NAMES = 500;

/** Fills the store with STORE_MB of 4 KiB entries before the server starts (a backup copies every byte). */
async function fill(store: Store): Promise<void> {
  const entries = Math.round((STORE_MB * 1024 * 1024) / ENTRY_BYTES);
  const value = randomBytes(ENTRY_BYTES / 2).toString('hex');
  for (let at = 0; at < entries; at += 500) {
    const batch = Array.from({ length: Math.min(500, entries - at) }, (_, i) =>
      store.kvInsert('bench:filler', `e${at + i}`, { value: { v: value }, writtenBy: 'bench' }),
    );
    await Promise.all(batch);
  }
  await store.close();
}

async function main(): Promise<void> {
  const dataDir = tempDir('typeplane-bench-backup-');
  const schema = `tp_bench_backup_${randomBytes(4).toString('hex')}`;
  const storeArgs = STORE === 'postgresql' ? ['--database-url', PG_URL, '--database-schema', schema] : [];
  console.log(`filling a ${STORE} store with ${STORE_MB} MB …`);
  await fill(
    STORE === 'postgresql'
      ? await openPostgresStore(PG_URL, { schema })
      : await openSqliteStore(join(dataDir, 'typeplane.db')),
  );
  const server = await startServer('typeplane', 'src/cli/main.ts', [
    'serve',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--log-level',
    'warn',
    ...storeArgs,
  ]);
  try {
    const url = `http://${server.host}:${server.port}`;
    const client = new Client(url, ADMIN_TOKEN);
    await client.call('POST', '/v1/types', TYPE_SCHEMA);
    const conns = connections(server);
    const names: string[] = [];
    const create = createOp(conns, 'r', '?wait=10', names, (status) => status === 'SUCCESS');
    for (let seq = 0; names.length < READ_NAMES; seq++) {
      const failed = (await Promise.all(conns.map((_, c) => create(c, seq)))).find((f) => f !== undefined);
      if (failed) throw new Error(`a create failed: ${failed}`);
    }
    const reads = readOp(conns, names);

    let backups = 0;
    let backupBytes = 0;
    let backupSeconds = 0;
    const rows: { without: PhaseResult; during: PhaseResult; cpuPerMb: number; mbPerS: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const without = await phase(server, DURATION_S, reads);
      let running = true;
      const before = { backups, backupBytes, backupSeconds };
      const cpu0 = cpuSeconds(server.child.pid);
      const taking = (async () => {
        while (running) {
          const started = performance.now();
          const answer = await client.download('/v1/backup');
          for await (const chunk of answer) backupBytes += (chunk as Buffer).length;
          backupSeconds += (performance.now() - started) / 1000;
          backups++;
        }
      })();
      const during = await phase(server, DURATION_S, reads);
      running = false;
      await taking;
      const cpu1 = cpuSeconds(server.child.pid);
      const mb = (backupBytes - before.backupBytes) / 1024 / 1024;
      // The server's CPU for backups: all it used meanwhile, less what the same reads cost without one.
      const readsCpu = without.serverCpu * (during.perSecond / without.perSecond) * during.seconds;
      const cpuPerMb = (cpu1.user + cpu1.system - cpu0.user - cpu0.system - readsCpu) / mb;
      const mbPerS = mb / (backupSeconds - before.backupSeconds);
      rows.push({ without, during, cpuPerMb, mbPerS });
      console.log(
        `round ${round}: reads/s ${fmt(without.perSecond)} without, ${fmt(during.perSecond)} during ${backups - before.backups} backups ` +
          `(${fmt(mb, 0)} MB at ${fmt(mbPerS, 1)} MB/s); read p99 ${fmt(without.p99, 1)} → ${fmt(during.p99, 1)} ms, ` +
          `max ${fmt(without.latencies.at(-1)!, 1)} → ${fmt(during.latencies.at(-1)!, 1)} ms; ` +
          `server CPU ${fmt(cpuPerMb * 1000, 2)} ms/MB of backup; other processes' CPU ${fmt(Math.max(without.otherCpu, during.otherCpu) * 100)}%`,
      );
    }
    const ratio = (f: (r: PhaseResult) => number) => median(rows.map((r) => f(r.during) / f(r.without)));
    console.log(
      `\n${STORE}, ${STORE_MB} MB store, ${ROUNDS} rounds of ${DURATION_S} s, median of the rounds:`,
    );
    console.log(
      `  reads/s during backups / without:   ${fmt(
        ratio((r) => r.perSecond),
        2,
      )}`,
    );
    console.log(
      `  read p50 during / without:          ${fmt(
        ratio((r) => r.p50),
        2,
      )}`,
    );
    console.log(
      `  read p99 during / without:          ${fmt(
        ratio((r) => r.p99),
        2,
      )}`,
    );
    console.log(
      `  read max during / without:          ${fmt(
        ratio((r) => quantile(r.latencies, 1)),
        2,
      )}`,
    );
    console.log(`  backup throughput:                  ${fmt(median(rows.map((r) => r.mbPerS)), 1)} MB/s`);
    console.log(
      `  server CPU per MB of backup:        ${fmt(median(rows.map((r) => r.cpuPerMb)) * 1000, 2)} ms`,
    );
  } finally {
    await server.stop();
    if (STORE === 'postgresql') {
      const { default: pg } = await import('pg');
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
    cleanup();
  }
}

await main();

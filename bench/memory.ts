/**
 * Memory benchmark (not a test): the resident memory of a `typeplane serve` process whose store holds
 * 1,000,000 resources, against the 300 MB target.
 *
 *   npm run bench:memory -- [--resources 1000000] [--dist]
 *
 * Seeding through the API would take minutes, so the store is seeded directly: the schema is made by
 * opening the store through its own module (the real migrations), then the resources go into the
 * `resources` table (the engine's index) and the `kv` table (the state provider's rows), in
 * transactions of 50,000 rows, exactly as finished create operations leave them (operations and
 * client tokens are not seeded: they expire, resources do not). Then the real server starts on that
 * file and is exercised: list pages walked across the whole set and from random cursors, random
 * reads, some creates. VmRSS and VmHWM come from /proc/<pid>/status.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../src/store/index.js';
import { encodeCursor } from '../src/store/cursor.js';
import {
  type Json,
  WIDGET_SCHEMA,
  WIDGET_TYPE,
  client,
  flag,
  fmt,
  memoryOf,
  numberArg,
  quantile,
  removeAtExit,
  startServer,
} from './harness.js';

const RESOURCES = numberArg('resources', 1_000_000);
const TARGET_MB = 300;
const BATCH = 50_000;

const dir = mkdtempSync(join(tmpdir(), 'typeplane-memory-'));
removeAtExit(dir);
const dataDir = join(dir, 'data');
const typeFile = join(dir, 'widget.json');
writeFileSync(typeFile, JSON.stringify(WIDGET_SCHEMA));
const dbFile = join(dataDir, 'typeplane.db');

// The schema, by the store's own migrations.
await (await openSqliteStore(dbFile)).close();

const name = (i: number) => `r${String(i).padStart(7, '0')}`;
let t = performance.now();
{
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const resource = db.prepare(
    'INSERT INTO resources (type_name, identifier, properties_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
  );
  const kv = db.prepare('INSERT INTO kv (namespace, key, value_json, written_by) VALUES (?, ?, ?, ?)');
  const batch = db.transaction((from: number, to: number) => {
    const now = new Date().toISOString();
    for (let i = from; i < to; i++) {
      const model = JSON.stringify({ Name: name(i), Size: 'M', Color: `color-${i % 97}`, Count: i });
      resource.run(WIDGET_TYPE, name(i), model, now, now);
      kv.run(WIDGET_TYPE, name(i), model, `seed-${i}`);
    }
  });
  for (let from = 0; from < RESOURCES; from += BATCH) batch(from, Math.min(RESOURCES, from + BATCH));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
console.log(
  `seeded ${fmt(RESOURCES)} resources directly into the store in ${fmt((performance.now() - t) / 1000, 1)} s`,
);

const server = await startServer(dataDir, ['--types', typeFile], flag('dist'));
const pid = server.child.pid;
const http = client(server, 8);
const T = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`;
console.log(
  `server pid ${pid} (${flag('dist') ? 'dist' : 'tsx'}); idle after start: RSS ${fmt(memoryOf(pid).rssMb, 1)} MB`,
);

const check = (res: { status: number; body: Json }, what: string) => {
  if (res.status !== 200 && res.status !== 202)
    throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body;
};

// A walk across the whole set, 1,000 per page.
t = performance.now();
let listed = 0;
let nextToken: string | null = null;
const pageMs: number[] = [];
do {
  const p0 = performance.now();
  const q: string = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
  const body = check(await http.call('GET', `${T}?maxResults=1000${q}`), 'list');
  pageMs.push(performance.now() - p0);
  listed += body.resourceDescriptions.length;
  nextToken = body.nextToken;
} while (nextToken);
pageMs.sort((a, b) => a - b);
if (listed !== RESOURCES) throw new Error(`listed ${listed} resources, seeded ${RESOURCES}`);
console.log(
  `listed all ${fmt(listed)} in ${fmt((performance.now() - t) / 1000, 1)} s: page of 1,000 p50 ${fmt(quantile(pageMs, 0.5), 1)} ms, p99 ${fmt(quantile(pageMs, 0.99), 1)} ms; RSS ${fmt(memoryOf(pid).rssMb, 1)} MB`,
);

// Pages from random places, random reads, and creates, 8 at a time.
let x = 12345;
const random = (n: number) => {
  x = (x * 1103515245 + 12345) % 2147483648;
  return x % n;
};
const work: { what: string; ms: number[]; run: () => Promise<void> }[] = [
  {
    what: 'list page of 100 from a random cursor',
    ms: [],
    run: async () => {
      const cursor = encodeCursor('resources', name(random(RESOURCES)));
      check(await http.call('GET', `${T}?maxResults=100&nextToken=${encodeURIComponent(cursor)}`), 'list');
    },
  },
  {
    what: 'random read',
    ms: [],
    run: async () => {
      check(await http.call('GET', `${T}/${name(random(RESOURCES))}`), 'read');
    },
  },
  {
    what: 'create (until SUCCESS)',
    ms: [],
    run: async () => {
      const body = check(
        await http.call('POST', `${T}?wait=30`, { desiredState: { Name: `new-${random(1e9)}-${x}` } }),
        'create',
      );
      if (body.progressEvent?.operationStatus !== 'SUCCESS') throw new Error(JSON.stringify(body));
    },
  },
];
const ROUNDS = 2000;
await Promise.all(
  Array.from({ length: 8 }, async (_, c) => {
    for (let i = c; i < ROUNDS; i += 8) {
      const job = work[i % work.length]!;
      const s = performance.now();
      await job.run();
      job.ms.push(performance.now() - s);
    }
  }),
);
for (const job of work) {
  job.ms.sort((a, b) => a - b);
  console.log(
    `${job.what}: ${job.ms.length} calls, p50 ${fmt(quantile(job.ms, 0.5), 1)} ms, p99 ${fmt(quantile(job.ms, 0.99), 1)} ms`,
  );
}

const { rssMb, peakMb } = memoryOf(pid);
console.log(
  `server memory with ${fmt(RESOURCES)} stored resources: RSS ${fmt(rssMb, 1)} MB, peak RSS (VmHWM) ${fmt(peakMb, 1)} MB; target under ${TARGET_MB} MB: ${peakMb < TARGET_MB ? 'met' : 'NOT met'}`,
);
http.close();
await server.stop();

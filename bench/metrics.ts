/**
 * Benchmark (not a test): what collecting metrics costs. Two Typeplane servers as bench:api runs them,
 * one with metrics on (and scraped every SCRAPE_S seconds, as Prometheus would) and one with
 * `--no-metrics`, take the same creates and then the same reads in PAIRS pairs of short slices
 * (SLICE_MS each) that alternate between them (bench/paired.ts), so that the other work of a shared
 * machine weighs on both sides of a pair alike. The verdict is issue #33's target on the median of the
 * pairs' on/off ratios, printed with their interquartile range and the median's 95% confidence
 * interval; the servers' CPU per request (each thread's CPU time, to the nanosecond) is compared too.
 *
 *   npm run bench:metrics   (PAIRS=60 SLICE_MS=200 CLIENTS=16 WARMUP_S=2 SCRAPE_S=5)
 *   run it under `flock /tmp/bench.lock` on a shared machine.
 *   CALIBRATE=1 npm run bench:metrics   (both servers with metrics off: the bench's own bias, A/A)
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import {
  ADMIN_TOKEN,
  CLIENTS,
  TYPE_SCHEMA,
  connections,
  cpuSeconds,
  createOp,
  fmt,
  loadAverage,
  machineUserSeconds,
  readOp,
  row,
  runMain,
  startServer,
  succeeded,
  tempDir,
  verdict,
  warmUp,
  type Op,
  type Server,
  type Sides,
} from './api-harness.js';
import {
  PAIRS,
  SLICE_MS,
  cpuPerOk,
  describeSpread,
  pairRatios,
  pairedSlices,
  pooledRate,
  rate,
  shareOneCore,
  spread,
  threadCpuSeconds,
  type Slice,
} from './paired.js';

const SCRAPE_S = Number(process.env.SCRAPE_S ?? 5);
/**
 * CALIBRATE=1: both servers with metrics off, nothing scraped — an A/A run, whose ratios show what the
 * bench itself makes of two equal servers on this machine (1.00 with a narrow spread if it is fair).
 */
const CALIBRATE = process.env.CALIBRATE === '1';
/** Issue #33: bench:api with metrics on at 0.97 of metrics off, or better. */
const TARGET = 0.97;

function startTypeplane(typeFile: string, metrics: boolean): Promise<Server> {
  return startServer('typeplane', 'src/cli/main.ts', [
    'serve',
    '--port',
    '0',
    '--data-dir',
    tempDir('typeplane-bench-metrics-'),
    '--types',
    typeFile,
    '--log-level',
    'warn',
    ...(metrics ? [] : ['--no-metrics']),
  ]);
}

/** One GET /metrics of `server`, answered in full; the exposition's size. */
async function scrape(server: Server): Promise<number> {
  const reply = await fetch(`http://${server.host}:${server.port}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  if (reply.status !== 200) throw new Error(`GET /metrics: HTTP ${reply.status}`);
  return (await reply.text()).length;
}

/**
 * Scrapes `server` every SCRAPE_S seconds, as Prometheus would, each scrape starting with one of its
 * slices (and the slice waiting for it), so that what a scrape costs falls on the side with metrics.
 */
function scraping(server: Server) {
  let last = performance.now();
  let scrapes = 0;
  let bytes = 0;
  return {
    due(): Promise<void> | undefined {
      if (performance.now() - last < SCRAPE_S * 1000) return undefined;
      last = performance.now();
      return scrape(server).then((n) => {
        bytes = n;
        scrapes++;
      });
    },
    done: () => ({ scrapes, bytes }),
  };
}

/** What one kind of request did on both servers, over all its pairs of slices. */
interface Kind {
  pairs: Sides<Slice>[];
  /** Each server's CPU per success over the whole run, the time between its slices included (µs). */
  cpuPerOk: Sides<number>;
  /** Cores' worth of user-mode CPU other processes used meanwhile. */
  otherCpu: number;
  seconds: number;
}

async function run(
  servers: Sides<Server>,
  ops: Sides<(slice: number) => Op>,
  during: Partial<Sides<() => Promise<unknown> | undefined>>,
): Promise<Kind> {
  const start = performance.now();
  const machine0 = machineUserSeconds();
  const client0 = process.cpuUsage();
  const cpu0 = { tp: threadCpuSeconds(servers.tp.child.pid), bare: threadCpuSeconds(servers.bare.child.pid) };
  const user0 = { tp: cpuSeconds(servers.tp.child.pid).user, bare: cpuSeconds(servers.bare.child.pid).user };
  const pairs = await pairedSlices(servers, ops, during);
  const seconds = (performance.now() - start) / 1000;
  const ownUser =
    cpuSeconds(servers.tp.child.pid).user -
    user0.tp +
    cpuSeconds(servers.bare.child.pid).user -
    user0.bare +
    process.cpuUsage(client0).user / 1e6;
  const perOk = (side: keyof Sides<Slice>) =>
    ((threadCpuSeconds(servers[side].child.pid) - cpu0[side]) / pairs.reduce((n, p) => n + p[side].ok, 0)) *
    1e6;
  for (const side of ['tp', 'bare'] as const) {
    const failed = pairs.reduce((n, p) => n + p[side].failed, 0);
    const first = pairs.find((p) => p[side].firstFailure !== undefined)?.[side].firstFailure;
    if (failed > 0) console.log(`  !! ${failed} failed on ${servers[side].name}; first: ${first}`);
  }
  return {
    pairs,
    cpuPerOk: { tp: perOk('tp'), bare: perOk('bare') },
    otherCpu: Math.max(0, (machineUserSeconds() - machine0 - ownUser) / seconds),
    seconds,
  };
}

/** The rows of one kind: the rate with its verdict, then the CPU per request. */
function report(label: string, unit: string, kind: Kind): boolean {
  const rates = spread(pairRatios(kind.pairs, rate));
  const cpu = spread(pairRatios(kind.pairs, cpuPerOk));
  const pooled = pooledRate(kind.pairs, 'tp') / pooledRate(kind.pairs, 'bare');
  const met = rates.median >= TARGET;
  row(
    `${label}/s`,
    fmt(pooledRate(kind.pairs, 'tp')),
    fmt(pooledRate(kind.pairs, 'bare')),
    fmt(rates.median, 3),
    `>= ${TARGET} ${verdict(met)}  ${describeSpread(rates)}; pooled ${fmt(pooled, 3)}`,
  );
  row(
    `server CPU per ${unit} (µs)`,
    fmt(kind.cpuPerOk.tp),
    fmt(kind.cpuPerOk.bare),
    fmt(cpu.median, 3),
    `no target  ${describeSpread(cpu)}; whole run ${fmt(kind.cpuPerOk.tp / kind.cpuPerOk.bare, 3)}`,
  );
  return met;
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  console.log(
    `metrics benchmark: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, load average ${loadBefore}`,
  );
  console.log(
    `${CLIENTS} clients, ${PAIRS} pairs of ${SLICE_MS} ms slices per kind of request; ${CALIBRATE ? 'CALIBRATE: both servers with metrics off (A/A)' : `metrics on scraped every ${SCRAPE_S} s`}\n`,
  );
  const typeFile = join(tempDir('typeplane-bench-type-'), 'widget.json');
  writeFileSync(typeFile, JSON.stringify(TYPE_SCHEMA, null, 2));
  const on = await startTypeplane(typeFile, !CALIBRATE);
  const off = await startTypeplane(typeFile, false);
  const servers = { tp: on, bare: off };
  on.name = CALIBRATE ? 'metrics off (A)' : 'metrics on';
  off.name = CALIBRATE ? 'metrics off (B)' : 'metrics off';
  console.log(shareOneCore(servers));
  const conns = { tp: connections(on), bare: connections(off) };
  try {
    // Both at once: neither sits idle warm while the other warms.
    await Promise.all([warmUp(on, conns.tp), warmUp(off, conns.bare)]);
    // What a scrape costs the server, measured alone on the idle server (the slices see it only in the pooled figures).
    let scrapeCpuMs = Number.NaN;
    if (!CALIBRATE) {
      const cpu0 = threadCpuSeconds(on.child.pid);
      for (let i = 0; i < 5; i++) await scrape(on);
      scrapeCpuMs = ((threadCpuSeconds(on.child.pid) - cpu0) / 5) * 1000;
    }
    const scraper = CALIBRATE ? undefined : scraping(on);
    const during = scraper ? { tp: () => scraper.due() } : {};
    const created: Sides<string[]> = { tp: [], bare: [] };
    const creates = await run(
      servers,
      {
        tp: (slice) => createOp(conns.tp, `c${slice}-`, '?wait=10', created.tp, succeeded),
        bare: (slice) => createOp(conns.bare, `c${slice}-`, '?wait=10', created.bare, succeeded),
      },
      during,
    );
    const reads = await run(
      servers,
      { tp: () => readOp(conns.tp, created.tp), bare: () => readOp(conns.bare, created.bare) },
      during,
    );
    const scraped = scraper?.done() ?? { scrapes: 0, bytes: 0 };
    console.log(
      `==== summary${CALIBRATE ? ' (CALIBRATE: A/A, both servers with metrics off; "on" is A, "off" is B)' : ''}: ${CLIENTS} clients, ${PAIRS} pairs of ${SLICE_MS} ms slices per kind; load average before ${loadBefore}, after ${loadAverage()} ====`,
    );
    row('(slices pooled)', 'on', 'off', 'ratio', "target: median of the pairs' on/off ratios");
    report('creates (SUCCESS, ?wait=10)', 'create', creates);
    report('reads', 'read', reads);
    if (!CALIBRATE)
      console.log(
        `${scraped.scrapes} scrapes of ${fmt(scraped.bytes)} bytes; one costs the server ${fmt(scrapeCpuMs, 1)} ms of CPU (idle, 5 alone), ${fmt((scrapeCpuMs / 1000 / SCRAPE_S) * 100, 2)}% of a core at one per ${SCRAPE_S} s`,
      );
    console.log(
      `other processes' CPU meanwhile: ${fmt(creates.otherCpu * 100)}% of a core during the creates (${fmt(creates.seconds)} s), ${fmt(reads.otherCpu * 100)}% during the reads (${fmt(reads.seconds)} s)`,
    );
  } finally {
    for (const c of [...conns.tp, ...conns.bare]) c.close();
    await Promise.all([on.stop(), off.stop()]);
  }
}

await runMain(main);

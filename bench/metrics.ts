/**
 * Benchmark (not a test): what collecting metrics costs. Two Typeplane servers as bench:api runs them,
 * one with metrics on (and scraped every SCRAPE_S seconds, as Prometheus would) and one with
 * `--no-metrics`, take the same creates and reads in alternating phases; each round's on/off ratio is
 * printed, and the verdict is issue #33's target on the median of the rounds.
 *
 *   npm run bench:metrics   (ROUNDS=3 DURATION_S=5 CLIENTS=16 WARMUP_S=2 SCRAPE_S=5)
 *   run it under `flock /tmp/bench.lock` on a shared machine, and read "other" in each phase's line.
 *   CALIBRATE=1 npm run bench:metrics   (both servers with metrics off: the bench's own bias, A/A)
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  ADMIN_TOKEN,
  CLIENTS,
  DURATION_S,
  ROUNDS,
  TYPE_SCHEMA,
  cleanup,
  connections,
  createOp,
  fmt,
  interleaved,
  median,
  pooled,
  readOp,
  roundsOf,
  row,
  startServer,
  succeeded,
  tempDir,
  usPer,
  verdict,
  warmUp,
  type PhaseResult,
  type Server,
} from './api-harness.js';

const SCRAPE_S = Number(process.env.SCRAPE_S ?? 5);
/**
 * CALIBRATE=1: both servers with metrics off, nothing scraped — an A/A run, whose ratios show what the
 * bench itself makes of two equal servers on this machine (1.0 if it is fair).
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

/** Scrapes `server`'s /metrics every SCRAPE_S seconds until stopped; how many and how large they were. */
function scraping(server: Server): { stop(): { scrapes: number; bytes: number } } {
  let scrapes = 0;
  let bytes = 0;
  const timer = setInterval(() => {
    fetch(`http://${server.host}:${server.port}/metrics`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })
      .then(async (reply) => {
        if (reply.status !== 200) throw new Error(`GET /metrics: HTTP ${reply.status}`);
        bytes = (await reply.text()).length;
        scrapes++;
      })
      .catch((e: unknown) => console.error(`!! scrape failed: ${String(e)}`));
  }, SCRAPE_S * 1000);
  return {
    stop() {
      clearInterval(timer);
      return { scrapes, bytes };
    },
  };
}

const ratios = (rounds: { tp: PhaseResult; bare: PhaseResult }[], f: (r: PhaseResult) => number) =>
  rounds.map((r) => f(r.tp) / f(r.bare));
const cpuPerOk = (r: PhaseResult) => r.serverCpu / r.perSecond;

async function main(): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  const loadBefore = load();
  console.log(
    `metrics benchmark: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, load average ${loadBefore}`,
  );
  console.log(
    `${CLIENTS} clients, ${ROUNDS} rounds of ${DURATION_S} s phases; metrics on scraped every ${SCRAPE_S} s\n`,
  );
  const typeFile = join(tempDir('typeplane-bench-type-'), 'widget.json');
  writeFileSync(typeFile, JSON.stringify(TYPE_SCHEMA, null, 2));
  const on = await startTypeplane(typeFile, !CALIBRATE);
  const off = await startTypeplane(typeFile, false);
  const servers = { tp: on, bare: off };
  const names = { tp: 'metrics on', bare: 'metrics off' };
  const onConns = connections(on);
  const offConns = connections(off);
  const scraper = CALIBRATE ? { stop: () => ({ scrapes: 0, bytes: 0 }) } : scraping(on);
  try {
    await warmUp(on, onConns);
    await warmUp(off, offConns);
    const onCreated: string[] = [];
    const offCreated: string[] = [];
    const creates = await interleaved(
      servers,
      (round) => createOp(onConns, `c${round}-`, '?wait=10', onCreated, succeeded),
      (round) => createOp(offConns, `c${round}-`, '?wait=10', offCreated, succeeded),
      'creates',
      'creates',
      names,
    );
    const reads = await interleaved(
      servers,
      () => readOp(onConns, onCreated),
      () => readOp(offConns, offCreated),
      'reads',
      'reads',
      names,
    );
    const scraped = scraper.stop();
    const createRatios = ratios(creates, (r) => r.perSecond);
    const readRatios = ratios(reads, (r) => r.perSecond);
    const createCpu = ratios(creates, cpuPerOk);
    const readCpu = ratios(reads, cpuPerOk);
    const [createOn, createOff] = [pooled(creates.map((r) => r.tp)), pooled(creates.map((r) => r.bare))];
    const [readOn, readOff] = [pooled(reads.map((r) => r.tp)), pooled(reads.map((r) => r.bare))];
    console.log(
      `\n==== summary${CALIBRATE ? ' (CALIBRATE: both servers with metrics off)' : ''}: ${CLIENTS} clients, ${ROUNDS} rounds of ${DURATION_S} s phases, load average before ${loadBefore}, after ${load()}; ${scraped.scrapes} scrapes of ${fmt(scraped.bytes)} bytes ====`,
    );
    row('(rounds pooled)', 'on', 'off', 'ratio', "target: median of the rounds' on/off ratios");
    row(
      'creates/s (SUCCESS, ?wait=10)',
      fmt(createOn.perSecond),
      fmt(createOff.perSecond),
      fmt(median(createRatios), 3),
      `>= ${TARGET} ${verdict(median(createRatios) >= TARGET)} ${roundsOf(createRatios)}`,
    );
    row(
      'reads/s',
      fmt(readOn.perSecond),
      fmt(readOff.perSecond),
      fmt(median(readRatios), 3),
      `>= ${TARGET} ${verdict(median(readRatios) >= TARGET)} ${roundsOf(readRatios)}`,
    );
    row(
      'server CPU per create (µs)',
      fmt(usPer(createOn.serverCpu, createOn)),
      fmt(usPer(createOff.serverCpu, createOff)),
      fmt(median(createCpu), 3),
      `no target ${roundsOf(createCpu)}`,
    );
    row(
      'server CPU per read (µs)',
      fmt(usPer(readOn.serverCpu, readOn)),
      fmt(usPer(readOff.serverCpu, readOff)),
      fmt(median(readCpu), 3),
      `no target ${roundsOf(readCpu)}`,
    );
    const other = [...creates, ...reads].flatMap((r) => [r.tp.otherCpu, r.bare.otherCpu]);
    console.log(`other processes' CPU during the phases: median ${fmt(median(other) * 100)}% of a core`);
  } finally {
    scraper.stop();
    for (const c of [...onConns, ...offConns]) c.close();
    await Promise.all([on.stop(), off.stop()]);
  }
}

try {
  await main();
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  cleanup();
}

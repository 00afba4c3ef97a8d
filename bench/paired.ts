/**
 * @module Paired slices: two servers compared under the same closed-loop load at the same time, in
 * many short slices, both pinned to one core. Running side by side on one core, they meet the same
 * neighbours, caches and hypervisor at the same moments, and the scheduler gives each an equal share:
 * a server that spends more CPU per request serves fewer in its slice. (Compared in turns, or each on
 * the core the scheduler picks, two identical servers differed by up to 10% for a whole run on a
 * shared machine: the core a process mostly ran on decided it.) Each slice gives a ratio; the figure
 * is the median of the slices' ratios, with their spread (interquartile range) and a
 * distribution-free 95% confidence interval of that median, so a verdict on a margin of a few
 * percent can be told from noise.
 *
 * Settings (environment): PAIRS=40 SLICE_MS=200 (and CLIENTS of the API harness, per server).
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { CLIENTS, fmt, type Op, type Server, type Sides } from './api-harness.js';
import { closedLoop } from './closed-loop.js';
import { threadCpuSeconds } from './harness.js';

export const PAIRS = Math.max(4, Number(process.env.PAIRS ?? 40));
export const SLICE_MS = Math.max(50, Number(process.env.SLICE_MS ?? 200));

/** One server's share of a pair: its successes, failures, wall time and CPU time. */
export interface Slice {
  ok: number;
  failed: number;
  seconds: number;
  /** CPU seconds the server's threads used during the slice. */
  cpu: number;
  firstFailure?: string;
}

/**
 * Pins every thread of both servers (and those they start later) to the machine's last core, with
 * `taskset`; what it did, to be printed. Without taskset (or on a machine of one core) they stay
 * where the scheduler puts them, and the figures are noisier.
 */
export function shareOneCore(servers: Sides<Server>): string {
  const core = availableParallelism() - 1;
  if (core === 0) return 'one core: both servers on it';
  try {
    for (const server of [servers.tp, servers.bare])
      execFileSync('taskset', ['-a', '-p', '-c', String(core), String(server.child.pid)], {
        stdio: 'ignore',
      });
    return `both servers pinned to core ${core} (taskset), the load generator free`;
  } catch (e) {
    return `NOT pinned (taskset: ${(e as Error).message.split('\n')[0]}): figures noisier`;
  }
}

/**
 * PAIRS slices of SLICE_MS in which both servers take the closed loop at once (CLIENTS each); which
 * one's clients start first alternates. `ops` makes a slice's operation (given the slice's number,
 * for unique names); `during`, when given for a side, starts work that belongs to that side's slice
 * (a scrape), which the slice then also waits for.
 */
export async function pairedSlices(
  servers: Sides<Server>,
  ops: Sides<(slice: number) => Op>,
  during: Partial<Sides<() => Promise<unknown> | undefined>> = {},
): Promise<Sides<Slice>[]> {
  const slice = async (side: keyof Sides<Server>, n: number): Promise<Slice> => {
    const pid = servers[side].child.pid;
    const cpu0 = threadCpuSeconds(pid);
    const extra = during[side]?.();
    const [loop] = await Promise.all([
      stalled(closedLoop(CLIENTS, SLICE_MS / 1000, ops[side](n)), `${servers[side].name}'s slice ${n + 1}`),
      extra,
    ]);
    return {
      ok: loop.ok,
      failed: loop.failed,
      seconds: loop.seconds,
      cpu: threadCpuSeconds(pid) - cpu0,
      ...(loop.firstFailure === undefined ? {} : { firstFailure: loop.firstFailure }),
    };
  };
  const pairs: Sides<Slice>[] = [];
  for (let n = 0; n < PAIRS; n++) {
    const [first, second] = n % 2 === 0 ? (['tp', 'bare'] as const) : (['bare', 'tp'] as const);
    const [a, b] = await Promise.all([slice(first, n), slice(second, n)]);
    pairs.push(first === 'tp' ? { tp: a, bare: b } : { tp: b, bare: a });
  }
  return pairs;
}

/** `work`, or a failure naming `what` once it has run 30 s: a request that never gets an answer stops the run, not hangs it. */
function stalled<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} has not ended after 30 s: a request got no answer`)),
      30_000,
    );
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/** Throws with the first failure any slice of either side met: `what` names the operation (`a create`). */
export function refuseFailed(pairs: Sides<Slice>[], what: string): void {
  const failed = pairs.find((p) => p.tp.firstFailure ?? p.bare.firstFailure);
  if (failed) throw new Error(`${what} failed: ${failed.tp.firstFailure ?? failed.bare.firstFailure}`);
}

/** A sample's median, quartiles and the 95% confidence interval of its median. */
export interface Spread {
  median: number;
  q1: number;
  q3: number;
  /** The distribution-free 95% interval of the median, from order statistics (n/2 ± 0.98·√n). */
  low: number;
  high: number;
}

export function spread(values: number[]): Spread {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { median: NaN, q1: NaN, q3: NaN, low: NaN, high: NaN };
  const at = (q: number) => {
    const x = q * (n - 1);
    const i = Math.floor(x);
    return sorted[i]! + (sorted[Math.min(i + 1, n - 1)]! - sorted[i]!) * (x - i);
  };
  const half = 0.98 * Math.sqrt(n);
  return {
    median: at(0.5),
    q1: at(0.25),
    q3: at(0.75),
    low: sorted[Math.max(0, Math.floor(n / 2 - half) - 1)]!,
    high: sorted[Math.min(n - 1, Math.ceil(n / 2 + half) - 1)]!,
  };
}

/** "IQR 0.95–1.03, median's 95% CI 0.97–1.01" */
export const describeSpread = (s: Spread) =>
  `IQR ${fmt(s.q1, 3)}–${fmt(s.q3, 3)}, median's 95% CI ${fmt(s.low, 3)}–${fmt(s.high, 3)}`;

/** Each pair's ratio of `figure`, `tp` over `bare`. */
export const pairRatios = (pairs: Sides<Slice>[], figure: (s: Slice) => number) =>
  pairs.map((p) => figure(p.tp) / figure(p.bare));

export const rate = (s: Slice) => s.ok / s.seconds;
export const cpuPerOk = (s: Slice) => s.cpu / s.ok;

/** One side's slices as one: successes over wall time. */
export function pooledRate(pairs: Sides<Slice>[], side: keyof Sides<Slice>): number {
  const ok = pairs.reduce((n, p) => n + p[side].ok, 0);
  return ok / pairs.reduce((n, p) => n + p[side].seconds, 0);
}

/**
 * A round's figures as one line: each side's server CPU per `unit` (µs, all its slices pooled) and
 * `unit`s/s, each with the median of the slices' ratios.
 */
export function roundFigures(pairs: Sides<Slice>[], unit: string): string {
  const us = (side: keyof Sides<Slice>) =>
    (1e6 * pairs.reduce((s, p) => s + p[side].cpu, 0)) / pairs.reduce((s, p) => s + p[side].ok, 0);
  return (
    `CPU per ${unit} ${fmt(us('tp'), 1)} µs against ${fmt(us('bare'), 1)} µs, ` +
    `ratio ${fmt(spread(pairRatios(pairs, cpuPerOk)).median, 3)}; ${unit}s/s ${fmt(pooledRate(pairs, 'tp'))} against ${fmt(pooledRate(pairs, 'bare'))}, ` +
    `ratio ${fmt(spread(pairRatios(pairs, rate)).median, 3)}`
  );
}

/**
 * All slices' ratios, `tp` over `bare` (`rounds`: each round's slices): server CPU per `unit` and
 * `unit`s/s, each with its spread, and each round's median. A round's slices share one fresh pair of
 * servers, and a pair carries a few percent of its own (one build against itself: rounds from 0.957
 * to 1.012 in one run), so the slices' confidence interval is narrower than the truth: a change
 * that the rounds do not agree on is not shown.
 */
export function overallFigures(rounds: Sides<Slice>[][], unit: string): string {
  const all = rounds.flat();
  const perRound = (figure: (s: Slice) => number) =>
    rounds.map((pairs) => fmt(spread(pairRatios(pairs, figure)).median, 3)).join(', ');
  const cpu = spread(pairRatios(all, cpuPerOk));
  const rates = spread(pairRatios(all, rate));
  const cpuLabel = `server CPU per ${unit}`;
  const rateLabel = `${unit}s/s`;
  const width = Math.max(cpuLabel.length, rateLabel.length) + 2;
  return (
    `  ${cpuLabel.padEnd(width)}${fmt(cpu.median, 3)}  (${describeSpread(cpu)}; rounds ${perRound(cpuPerOk)})\n` +
    `  ${rateLabel.padEnd(width)}${fmt(rates.median, 3)}  (${describeSpread(rates)}; rounds ${perRound(rate)})`
  );
}

/**
 * How long this process's event loop is held, in CPU time: the most CPU time the main thread spent
 * between two turns of a 20 ms timer. Unlike the loop's wall-time delay, it does not grow when a
 * shared machine gives other processes the core, so a test can hold a server in this process to it
 * while other tests run. Linux only (from /proc); elsewhere nothing can be read.
 */
import { existsSync, readFileSync } from 'node:fs';

/** CPU time of this process's main thread in milliseconds (Linux: /proc), or `undefined`. */
export function mainThreadCpuMs(): number | undefined {
  const file = `/proc/self/task/${process.pid}/stat`;
  if (!existsSync(file)) return undefined;
  // After the command name (in parentheses, which may hold spaces): utime and stime are fields 14-15.
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface LoopHold {
  /** The longest hold, in milliseconds of the main thread's CPU time (10 ms steps). */
  ms: number;
  /** When it was (`Date.now()`, ms): between these two turns of the timer. */
  from: number;
  to: number;
}

/**
 * Measures from now until `stop()`; `stop()` answers the longest hold, or `undefined` where the
 * main thread's CPU time cannot be read.
 */
export function measureLoopHolds(): { stop(): LoopHold | undefined } {
  let lastCpu = mainThreadCpuMs();
  let lastAt = Date.now();
  let worst: LoopHold | undefined = lastCpu === undefined ? undefined : { ms: 0, from: lastAt, to: lastAt };
  const sampler = setInterval(() => {
    const cpu = mainThreadCpuMs()!;
    const at = Date.now();
    if (worst !== undefined && cpu - lastCpu! > worst.ms)
      worst = { ms: cpu - lastCpu!, from: lastAt, to: at };
    lastCpu = cpu;
    lastAt = at;
  }, 20);
  return {
    stop() {
      clearInterval(sampler);
      return worst;
    },
  };
}

/**
 * This machine's pace, for bounds that would otherwise hold only on the machine they were measured
 * on: the CPU time (ms, the median of five) this process takes to serialise eight 450,000-character
 * strings to JSON, parse them back and encode them as UTF-8 — the copying that holding large records
 * is made of. On a host whose cores are shared (CPU time stretches with the neighbours' load as
 * caches and cores are), a server's holds and this stretch alike, so a hold bounded as a multiple of
 * it keeps its meaning.
 */
export function referenceCpuMs(): number {
  const values = Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(97 + i)}b`.repeat(225_000));
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const start = process.cpuUsage();
    const text = JSON.stringify({ values });
    const back = JSON.parse(text) as { values: string[] };
    let bytes = 0;
    for (const v of back.values) bytes += Buffer.from(v).length;
    const used = process.cpuUsage(start);
    if (bytes === 0) throw new Error('unreachable: the reference encoded nothing');
    times.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[2]!;
}

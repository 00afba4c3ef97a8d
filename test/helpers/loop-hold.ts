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

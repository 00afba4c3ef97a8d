/**
 * What the soak and memory benchmarks share: a `typeplane serve` child process (under tsx, or the
 * built `dist/` with `--dist`), keep-alive HTTP calls to it, its memory from /proc, and quantiles.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { widgetSchema } from '../test/helpers/widget-schema.js';

const root = fileURLToPath(new URL('../', import.meta.url));

export interface Server {
  child: ChildProcess;
  url: URL;
  /** The admin token the server was started with (sent on every call). */
  token: string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/** Remove `dir` when this process exits. */
export function removeAtExit(dir: string): void {
  tempDirs.push(dir);
}

/**
 * `typeplane serve` on a free port; resolves once it prints its listening line (within `startMs`: a
 * server registering a large corpus at start needs longer than the default).
 */
export async function startServer(
  dataDir: string,
  args: string[],
  /** dist/ as built (true), the sources through tsx (false), or the `cli/main.js` of another build. */
  useDist: boolean | string,
  startMs = 60_000,
): Promise<Server> {
  const main =
    typeof useDist === 'string'
      ? useDist
      : useDist
        ? join(root, 'dist/cli/main.js')
        : join(root, 'src/cli/main.ts');
  if (useDist !== false && !existsSync(main))
    throw new Error(`${main} is not built: run npm run build, or drop --dist`);
  const token = randomBytes(32).toString('base64url');
  const child = spawn(
    process.execPath,
    [
      // SERVER_NODE_ARGS: extra node flags for the server, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'.
      ...(process.env.SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      ...(useDist !== false ? [] : ['--import', import.meta.resolve('tsx')]),
      main,
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--log-level',
      'warn',
      ...args,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TYPEPLANE_ADMIN_TOKEN: token } },
  );
  children.add(child);
  let logs = '';
  child.stderr!.on('data', (d: Buffer) => {
    logs = (logs + d.toString()).slice(-20_000);
  });
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`the server did not start in ${startMs / 1000} s\n${logs}`)),
      startMs,
    );
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(new URL(m[1]!));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before listening\n${logs}`));
    });
  });
  return {
    child,
    url,
    token,
    async stop() {
      children.delete(child);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `0-2,5` (taskset's list form) → [0, 1, 2, 5]. */
function cpuList(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [from, to = from] = part.split('-').map(Number) as [number, number?];
    return Array.from({ length: to - from + 1 }, (_, k) => from + k);
  });
}

/**
 * Give the server a core of its own: its threads on the last core this process may use, this process
 * (the load generator) on the others, with util-linux's `taskset` (Node has no affinity call). A
 * client on another machine takes none of the server's CPU; on a machine of two cores, a load
 * generator left to the scheduler does, by turns and by amounts that differ between the APIs compared.
 * Says what was done, or why nothing was (fewer than two cores, or no taskset): the figures are then
 * of a shared machine.
 */
export function pinApart(server: Server): { pinned: boolean; description: string } {
  const run = (args: string[]) => execFileSync('taskset', args, { encoding: 'utf8' });
  let cpus: number[];
  try {
    // "pid 123's current affinity list: 0,1"
    cpus = cpuList(
      run(['-c', '-p', String(process.pid)])
        .split(':')
        .pop()!
        .trim(),
    );
  } catch (e) {
    return { pinned: false, description: `not pinned (taskset: ${(e as Error).message.split('\n')[0]})` };
  }
  if (cpus.length < 2) return { pinned: false, description: 'not pinned (one core)' };
  const serverCpu = String(cpus.at(-1));
  const generatorCpus = cpus.slice(0, -1).join(',');
  try {
    // -a: every thread there is now; threads started later inherit the mask.
    run(['-a', '-c', '-p', generatorCpus, String(process.pid)]);
    run(['-a', '-c', '-p', serverCpu, String(server.child.pid)]);
  } catch (e) {
    // What was pinned is put back, so that the figures are of a shared machine, as printed.
    try {
      run(['-a', '-c', '-p', cpus.join(','), String(process.pid)]);
    } catch {
      /* nothing more to do: said below */
    }
    return { pinned: false, description: `not pinned (taskset: ${(e as Error).message.split('\n')[0]})` };
  }
  return {
    pinned: true,
    description: `server pinned to core ${serverCpu}, load generator to ${cpus.length === 2 ? 'core' : 'cores'} ${generatorCpus}`,
  };
}

/** A JSON answer, read loosely: a benchmark checks the few fields it needs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** Keep-alive calls to one server, at most `sockets` at once. */
export function client(server: Server, sockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  /** One request; the answer's body whole, and the time to its last byte in ms. */
  const send = (
    method: string,
    path: string,
    headers: Record<string, string>,
    data: Buffer | undefined,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer; ms: number }> => {
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const req = http.request(
        server.url,
        {
          method,
          path,
          agent,
          headers: {
            authorization: `Bearer ${server.token}`,
            ...headers,
            ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
              ms: performance.now() - start,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  };
  return {
    async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const answer = await send(method, path, {}, data);
      const text = answer.body.toString('utf8');
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        /* keep the text */
      }
      return { status: answer.status, body: parsed };
    },
    /** A request timed to the last byte of its answer, whose body is counted, not read. */
    async timed(
      method: string,
      path: string,
      headers: Record<string, string> = {},
      body?: string,
    ): Promise<{ status: number; etag: string | undefined; ms: number; bytes: number }> {
      const answer = await send(method, path, headers, body === undefined ? undefined : Buffer.from(body));
      return { status: answer.status, etag: answer.headers.etag, ms: answer.ms, bytes: answer.body.length };
    },
    close: () => agent.destroy(),
  };
}

/** VmRSS (now) and VmHWM (peak) of a process, in MB, from /proc; NaN where there is no /proc. */
export function memoryOf(pid: number | undefined): { rssMb: number; peakMb: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return { rssMb: Number.NaN, peakMb: Number.NaN };
  }
}

/** CPU seconds (user and system) a process has used so far, from /proc; NaN where there is none. */
export function cpuSecondsOf(pid: number | undefined, thread: 'all' | 'main' = 'all'): number {
  try {
    // The main thread alone (its task has the process's id): the one that runs every request.
    const stat = readFileSync(
      thread === 'main' ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`,
      'utf8',
    );
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds a process's threads have used so far, to the nanosecond: the sum of each thread's
 * `/proc/<pid>/task/<tid>/schedstat` (the clock ticks of `/proc/<pid>/stat`, 10 ms, are too coarse
 * for a slice of 200 ms). A thread that ended is no longer counted: compare only figures over a span
 * in which the server starts and ends none (a Typeplane server under creates and reads does not).
 * NaN where there is no /proc (or no such process).
 */
export function threadCpuSeconds(pid: number | undefined, thread: 'all' | 'main' = 'all'): number {
  let tids: string[];
  try {
    // The main thread alone (its task has the process's id): the one that runs every request.
    tids = thread === 'main' ? [String(pid)] : readdirSync(`/proc/${pid}/task`);
  } catch {
    return Number.NaN;
  }
  let ns = 0;
  for (const tid of tids) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1e9;
}

/** The machine's busy CPU so far (user, nice, system, irq, softirq, steal), in ticks of 1/100 s, from /proc/stat. */
export function machineBusyTicks(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks.map(Number);
  return user + nice + system + irq + softirq + steal;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** `--name value` from argv, as a number, or the fallback; 0 only where `zero` allows it (a warm-up). */
export function numberArg(name: string, fallback: number, options: { zero?: boolean } = {}): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !options.zero))
    throw new Error(`--${name} needs a ${options.zero ? 'non-negative' : 'positive'} number`);
  return value;
}

export const flag = (name: string) => process.argv.includes(`--${name}`);

/** `--name value` from argv, as a string, or undefined. */
export function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const value = process.argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
  return value;
}

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';

export const WIDGET_TYPE = 'Bench::Soak::Widget';
export const WIDGET_SCHEMA = widgetSchema(
  WIDGET_TYPE,
  'A simple resource for the soak and memory benchmarks.',
);

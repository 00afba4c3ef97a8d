/**
 * @module Instructions executed, counted by valgrind's callgrind: a figure that does not move with
 * the machine's other tenants. On this kind of host the same build's wall-time ratios moved by 0.2
 * run after run, and CPU time by half from one day's machine to another's; callgrind's counts of one
 * process moved by 3% between two runs and their ratio by 0.2%. A process runs ~50 times slower under
 * it, so the benchmarks use it for fewer operations, as information beside their wall-time verdicts
 * (the issues' figures), and to weigh one change against its baseline.
 *
 * Each counted process runs as `valgrind --tool=callgrind … node …` (the same pid: valgrind becomes
 * the tool); a server's counters are zeroed before a measured slice and dumped after it with
 * `callgrind_control` (valgrind's gdbserver, on by default).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why counting cannot be done here (valgrind is missing), or undefined when it can. */
export function whyNoCallgrind(): string | undefined {
  for (const tool of ['valgrind', 'callgrind_control']) {
    const found = spawnSync(tool, ['--version'], { encoding: 'utf8' });
    if (found.error || found.status !== 0)
      return `${tool} is not installed (Debian: apt-get install valgrind): instructions cannot be counted here`;
  }
  return undefined;
}

/** The command a counted process is started under; its dumps are written into `dir`. */
export function callgrindPrefix(dir: string): string[] {
  return [
    'valgrind',
    '--tool=callgrind',
    `--callgrind-out-file=${join(dir, 'callgrind.%p')}`,
    // Totals only: no per-instruction data to write at each dump.
    '--dump-instr=no',
    '--dump-line=no',
    '--quiet',
    // CALLGRIND_ARGS: more of callgrind's options, e.g. '--cache-sim=yes' (cache misses, simulated).
    ...(process.env.CALLGRIND_ARGS?.split(' ').filter(Boolean) ?? []),
  ];
}

/** Zero the counters of the counted process `pid` (from here on, its next dump counts). */
export function zeroCounters(pid: number): void {
  execFileSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' });
}

/**
 * What `pid` did since its counters were last zeroed (or since it started): `Ir`, the instructions
 * executed, and any other event callgrind was asked to count (cache misses: `D1mr`, `DLmr`, …).
 */
export function dumpCounters(pid: number, dir: string): Record<string, number> {
  execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
  // Dumps are numbered callgrind.<pid>.1, .2, …: the newest is this one.
  const prefix = `callgrind.${pid}.`;
  const newest = readdirSync(dir)
    .filter((name) => name.startsWith(prefix))
    .sort((a, b) => Number(b.slice(prefix.length)) - Number(a.slice(prefix.length)))[0];
  if (newest === undefined) throw new Error(`callgrind wrote no dump for pid ${pid} into ${dir}`);
  return summaryOf(readFileSync(join(dir, newest), 'utf8'), newest);
}

/** A dump's `summary:` line, by its `events:` line's names. */
function summaryOf(text: string, name: string): Record<string, number> {
  const events = /^events:\s*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  const summary = /^summary:\s*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (!events || !summary) throw new Error(`callgrind dump ${name} has no events or summary line`);
  return Object.fromEntries(events.map((event, i) => [event, summary[i] ?? 0]));
}

/** Run `command` with `args` to its end under callgrind; the instructions it executed, all threads. */
export function instructionsOfRun(command: string, args: string[], cwd: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-callgrind-'));
  try {
    const [valgrind, ...options] = callgrindPrefix(dir);
    const run = spawnSync(valgrind!, [...options, command, ...args], {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.error) throw run.error;
    if (run.status !== 0)
      throw new Error(
        `${command} ${args.join(' ')} under callgrind: exit ${run.status}\n${run.stderr.slice(-2000)}`,
      );
    // The one process of the run wrote one file, at its end.
    const [file, ...more] = readdirSync(dir);
    if (file === undefined || more.length > 0)
      throw new Error(`callgrind wrote ${more.length + (file ? 1 : 0)} files into ${dir}, not one`);
    const text = readFileSync(join(dir, file), 'utf8');
    const totals = /^totals:\s*(\d+)/m.exec(text);
    if (!totals) throw new Error(`callgrind output ${file} has no totals line`);
    return Number(totals[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

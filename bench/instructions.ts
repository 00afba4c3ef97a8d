/**
 * @module Instructions executed by a whole process, counted by valgrind's callgrind: a figure that
 * does not move with the machine's other tenants. On this kind of host the same build's wall-time
 * ratios moved by 0.2 run after run, and CPU time by half from one day's machine to another's; the
 * count of one `typeplane validate` of the corpus moved 3% between two runs, and its ratio to the
 * bare ajv process 0.2% (2.14x and 2.15x, beside a wall-time ratio of 1.9-2.0x). A process runs ~50
 * times slower under it: information beside a benchmark's timed verdict, never the verdict.
 *
 * Not for a server under load: counted under callgrind (its counters zeroed and dumped around the
 * measured requests), a recipe instance executed 0.81-0.86x the instructions of its two direct
 * creates, where natively it takes 2x their CPU time; one build against another came out 0.66x with
 * V8's compiler threads and 1.01x without them (`--single-threaded`), where the two differ by 0.97x
 * natively. A server's cost is in how its requests run together, which callgrind's ~50-fold
 * slowdown changes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why counting cannot be done here (valgrind is missing), or undefined when it can. */
export function whyNoCallgrind(): string | undefined {
  const found = spawnSync('valgrind', ['--version'], { encoding: 'utf8' });
  return found.error || found.status !== 0
    ? 'valgrind is not installed (Debian: apt-get install valgrind): instructions cannot be counted here'
    : undefined;
}

/** The command a counted process is started under; its output is written into `dir`. */
function callgrindPrefix(dir: string): string[] {
  return [
    'valgrind',
    '--tool=callgrind',
    `--callgrind-out-file=${join(dir, 'callgrind.%p')}`,
    // Totals only: no per-instruction or per-line data to write.
    '--dump-instr=no',
    '--dump-line=no',
    '--quiet',
    // CALLGRIND_ARGS: more of callgrind's options, e.g. '--cache-sim=yes' (cache misses, simulated).
    ...(process.env.CALLGRIND_ARGS?.split(' ').filter(Boolean) ?? []),
  ];
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

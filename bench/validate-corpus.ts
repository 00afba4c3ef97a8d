/**
 * Benchmark (not a test): `typeplane validate` of the whole AWS corpus against a bare ajv process.
 *
 * The verdict is issue #32's figure, whole process against whole process: a fresh `node
 * dist/cli/main.js validate <corpus>` (the built CLI as a user runs it: module loading, every check,
 * the diagnostics printed) against a fresh `node bench/validate-bare.mjs <corpus>` (plain JavaScript
 * that loads ajv, compiles the same meta-schema with the same options and runs JSON.parse + validate
 * on every file, nothing else). Each round runs both, the order alternating so that the machine's
 * noise falls on both alike; the verdict is the median of the rounds' wall-time ratios. The
 * processes' own CPU time (user + system, from /proc) is printed beside it, as are the other
 * processes' CPU during the rounds: a busy machine stretches both sides' wall times unevenly.
 *
 * Information: the same two processes on a folder of one file (their start), and both sides warm in
 * this process (caches kept, module loading left out).
 *
 *   npm run build && npm run bench:validate            (ROUNDS=7 cold rounds, WARM_ROUNDS=5; CLI=<main.js>;
 *                                                       INSTRUCTIONS=1 also counts each side's instructions)
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { validateDocument } from '../src/schema/validate.js';
import { machineBusyTicks } from './harness.js';
import { instructionsOfRun, whyNoCallgrind } from './instructions.js';
import {
  META_SCHEMA_AJV_OPTIONS,
  resourceSchemaMetaSchema,
} from '../src/schema/resource-schema/meta-schema.js';

const TARGET = 1.4;
const MOONSHOT = 1.2;

const corpus = fileURLToPath(new URL('../../shared/corpus/aws-resource-schemas/', import.meta.url));
// CLI=<path to another build's dist/cli/main.js> measures that build instead (a before/after pair).
const cli = process.env.CLI ?? fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const bareScript = fileURLToPath(new URL('./validate-bare.mjs', import.meta.url));
if (!existsSync(corpus)) {
  console.error(`corpus not found at ${corpus}`);
  process.exit(1);
}
if (
  !existsSync(cli) ||
  !existsSync(new URL('../dist/schema/resource-schema/meta-schema.js', import.meta.url))
) {
  console.error('dist/ is not built: run `npm run build` first');
  process.exit(1);
}
const names = readdirSync(corpus).filter((f) => f.endsWith('.json'));

/** Clock ticks (1/100 s) of CPU that waited-for children have used, from /proc/self/stat. */
function childTicks(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime and cstime (fields 16 and 17 of stat(5); the slice starts at field 3).
  return Number(fields[13]) + Number(fields[14]);
}

interface Run {
  wallMs: number;
  cpuMs: number;
  /** Ticks of CPU the rest of the machine used meanwhile. */
  otherTicks: number;
}

/** One process `node <args>`, which must succeed and whose stdout `check` accepts. */
function runProcess(args: string[], check: (stdout: string) => boolean): Run {
  const ticks0 = childTicks();
  const machine0 = machineBusyTicks();
  const t = performance.now();
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wallMs = performance.now() - t;
  const cpuTicks = childTicks() - ticks0;
  const otherTicks = machineBusyTicks() - machine0 - cpuTicks;
  if (child.status !== 0 || !check(child.stdout)) {
    console.error(
      `node ${args.join(' ')} exited with ${child.status}:\n${child.stdout.slice(-2000)}\n${child.stderr}`,
    );
    process.exit(1);
  }
  return { wallMs, cpuMs: cpuTicks * 10, otherTicks };
}

type Side = 'bare' | 'typeplane';
const command = (folder: string, files: number): Record<Side, () => Run> => ({
  // Every corpus file is valid: the bare side counts none invalid, Typeplane's says so in its summary.
  bare: () => runProcess([bareScript, folder], (out) => out.trim() === '0'),
  typeplane: () =>
    runProcess([cli, 'validate', folder], (out) => {
      const n = files.toLocaleString('en-US');
      return new RegExp(`^✔ ${n} files? checked: ${n} valid files?,`, 'm').test(out);
    }),
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `rounds` rounds of both sides, alternating which goes first, after one unmeasured run of each. */
function rounds(sides: Record<Side, () => Run>, count: number) {
  sides.bare();
  sides.typeplane();
  const runs = { bare: [] as Run[], typeplane: [] as Run[] };
  const wallRatios: number[] = [];
  const cpuRatios: number[] = [];
  let otherTicks = 0;
  let wallMs = 0;
  for (let i = 0; i < count; i++) {
    const order: Side[] = i % 2 === 0 ? ['bare', 'typeplane'] : ['typeplane', 'bare'];
    const round = {} as Record<Side, Run>;
    for (const side of order) {
      round[side] = sides[side]();
      runs[side].push(round[side]);
      otherTicks += round[side].otherTicks;
      wallMs += round[side].wallMs;
    }
    wallRatios.push(round.typeplane.wallMs / round.bare.wallMs);
    cpuRatios.push(round.typeplane.cpuMs / round.bare.cpuMs);
  }
  const of = (side: Side, key: 'wallMs' | 'cpuMs') => median(runs[side].map((r) => r[key]));
  return {
    wall: { bare: of('bare', 'wallMs'), typeplane: of('typeplane', 'wallMs'), ratios: wallRatios },
    cpu: { bare: of('bare', 'cpuMs'), typeplane: of('typeplane', 'cpuMs'), ratios: cpuRatios },
    /** Cores' worth of CPU the rest of the machine used while the rounds ran. */
    otherCores: (otherTicks * 10) / wallMs,
  };
}

const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 7));
const WARM_ROUNDS = Number(process.env.WARM_ROUNDS ?? 5);

const whole = rounds(command(corpus, names.length), ROUNDS);

const oneFileFolder = mkdtempSync(join(tmpdir(), 'typeplane-bench-validate-'));
copyFileSync(join(corpus, names[0]!), join(oneFileFolder, names[0]!));
let start;
try {
  start = rounds(command(oneFileFolder, 1), ROUNDS);
} finally {
  rmSync(oneFileFolder, { recursive: true, force: true });
}

// Warm, in this process: one pass of each side first, then the measured ones.
const WARM = {
  bare(): void {
    const validate = new Ajv(META_SCHEMA_AJV_OPTIONS).compile(resourceSchemaMetaSchema);
    for (const name of names) validate(JSON.parse(readFileSync(corpus + name, 'utf8')));
  },
  typeplane(): void {
    for (const name of names) validateDocument(readFileSync(corpus + name), { file: name });
  },
};
const time = (fn: () => void) => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};
time(WARM.bare);
time(WARM.typeplane);
const warm = { bare: [] as number[], typeplane: [] as number[] };
for (let i = 0; i < WARM_ROUNDS; i++) {
  warm.bare.push(time(WARM.bare));
  warm.typeplane.push(time(WARM.typeplane));
}

const ms = (x: number) => `${x.toFixed(0)} ms`;
const list = (xs: number[]) => xs.map((r) => r.toFixed(2)).join(' ');
const busy = (cores: number) =>
  `other processes' CPU ${(cores * 100).toFixed(0)}% of a core${cores > 0.2 ? ': BUSY machine, figures are noisy' : ''}`;
const verdict = median(whole.wall.ratios);
console.log(`files: ${names.length}; a fresh process per run, ${ROUNDS} rounds alternating sides`);
console.log(`typeplane validate <corpus>: wall ${ms(whole.wall.typeplane)}, CPU ${ms(whole.cpu.typeplane)}`);
console.log(`bare ajv process:            wall ${ms(whole.wall.bare)}, CPU ${ms(whole.cpu.bare)}`);
console.log(`  wall ratio per round: ${list(whole.wall.ratios)}`);
console.log(
  `  CPU ratio (user + system) median ${median(whole.cpu.ratios).toFixed(2)}x, per round: ${list(whole.cpu.ratios)}`,
);
console.log(`  ${busy(whole.otherCores)}`);
console.log(
  `information — start, a folder of one file: typeplane wall ${ms(start.wall.typeplane)} CPU ${ms(start.cpu.typeplane)}, bare wall ${ms(start.wall.bare)} CPU ${ms(start.cpu.bare)}, wall ratio ${median(start.wall.ratios).toFixed(2)}x`,
);
console.log(
  `information — warm, in one process, modules loaded (median of ${WARM_ROUNDS} after one): typeplane ${ms(median(warm.typeplane))}, bare ${ms(median(warm.bare))}, ratio ${(median(warm.typeplane) / median(warm.bare)).toFixed(2)}x`,
);
console.log(
  `verdict: typeplane validate / bare ajv, whole process, cold: ${verdict.toFixed(2)}x (target <= ${TARGET}): ${verdict <= TARGET ? 'met' : 'NOT met'}; moonshot <= ${MOONSHOT}: ${verdict <= MOONSHOT ? 'met' : 'not met'}`,
);

// INSTRUCTIONS=1: each side's process once more, under callgrind (bench/instructions.ts): the
// instructions it executed, which the machine's other tenants do not move. Information: the verdict
// above is the figure.
if (process.env.INSTRUCTIONS === '1') {
  const why = whyNoCallgrind();
  if (why !== undefined) console.log(`information — instructions: not counted (${why})`);
  else {
    const cwd = fileURLToPath(new URL('..', import.meta.url));
    const bare = instructionsOfRun(process.execPath, [bareScript, corpus], cwd);
    const typeplane = instructionsOfRun(process.execPath, [cli, 'validate', corpus], cwd);
    const g = (n: number) => `${(n / 1e9).toFixed(2)} G`;
    console.log(
      `information — instructions executed (callgrind, all threads, one run each): typeplane ${g(typeplane)}, bare ${g(bare)}, ratio ${(typeplane / bare).toFixed(2)}x`,
    );
  }
}

/**
 * Benchmark (not a test): the whole AWS corpus through Typeplane's validation (parse with positions on
 * demand + meta-schema + semantic checks + normalisation) against bare ajv with the same meta-schema
 * (JSON.parse + compile + validate, nothing else); then the built CLI on the whole corpus.
 *
 * The verdict is the single-pass ratio: each round runs each side once in a fresh process, so nothing
 * compiled or cached in one round (the meta-schema, Typeplane's pattern verdicts and matchers) helps
 * the next — as a user's `typeplane validate` runs. Module loading is left out on both sides. The
 * warm ratio (both sides again and again in one process, caches kept) is printed as information.
 *
 *   npm run build && npm run bench:validate            (ROUNDS=5 cold rounds, WARM_ROUNDS=5)
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { validateDocument } from '../src/schema/validate.js';
import { Ajv } from 'ajv';
import {
  META_SCHEMA_AJV_OPTIONS,
  resourceSchemaMetaSchema,
} from '../src/schema/resource-schema/meta-schema.js';

const corpus = fileURLToPath(new URL('../../shared/corpus/aws-resource-schemas/', import.meta.url));
if (!existsSync(corpus)) {
  console.error(`corpus not found at ${corpus}`);
  process.exit(1);
}
const names = readdirSync(corpus).filter((f) => f.endsWith('.json'));

const SIDES = {
  bare(): number {
    // Compiled here, as a bare ajv user would; Typeplane's side uses its validator written ahead of time.
    const validate = new Ajv(META_SCHEMA_AJV_OPTIONS).compile(resourceSchemaMetaSchema);
    let invalid = 0;
    for (const name of names) if (!validate(JSON.parse(readFileSync(corpus + name, 'utf8')))) invalid++;
    return invalid;
  },
  typeplane(): number {
    let invalid = 0;
    for (const name of names)
      if (!validateDocument(readFileSync(corpus + name), { file: name }).valid) invalid++;
    return invalid;
  },
};
type Side = keyof typeof SIDES;

function time(fn: () => number): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// A child: one pass of one side, its time on stdout.
const pass = process.argv.indexOf('--one-pass');
if (pass >= 0) {
  process.stdout.write(`${time(SIDES[process.argv[pass + 1] as Side])}\n`);
  process.exit(0);
}

/** One pass of `side` in a process of its own (nothing shared with any other pass), in ms. */
function coldPass(side: Side): number {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--one-pass', side],
    { encoding: 'utf8' },
  );
  if (child.status !== 0) {
    console.error(child.stdout, child.stderr);
    process.exit(1);
  }
  return Number(child.stdout.trim());
}

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const WARM_ROUNDS = Number(process.env.WARM_ROUNDS ?? 5);

// Cold: alternate which side goes first, so both share the machine's noise.
const cold = { bare: [] as number[], typeplane: [] as number[], ratio: [] as number[] };
for (let i = 0; i < ROUNDS; i++) {
  const order: Side[] = i % 2 === 0 ? ['bare', 'typeplane'] : ['typeplane', 'bare'];
  const round = { bare: 0, typeplane: 0 };
  for (const side of order) round[side] = coldPass(side);
  cold.bare.push(round.bare);
  cold.typeplane.push(round.typeplane);
  cold.ratio.push(round.typeplane / round.bare);
}

// Warm, for information: one process, caches kept; the first round of each side warms it.
time(SIDES.bare);
time(SIDES.typeplane);
const warm = { bare: [] as number[], typeplane: [] as number[] };
for (let i = 0; i < WARM_ROUNDS; i++) {
  warm.bare.push(time(SIDES.bare));
  warm.typeplane.push(time(SIDES.typeplane));
}

const ms = (x: number) => `${x.toFixed(0)} ms`;
console.log(`files: ${names.length}; each pass reads, parses and checks every file`);
console.log(`single pass, a fresh process per pass (median of ${ROUNDS} rounds):`);
console.log(`  bare ajv (meta-schema only):        ${ms(median(cold.bare))}`);
console.log(`  typeplane validate (all checks):    ${ms(median(cold.typeplane))}`);
console.log(
  `  ratio typeplane / bare ajv:         ${median(cold.ratio).toFixed(2)}x (target <= 2x)   rounds: ${cold.ratio.map((r) => r.toFixed(2)).join(' ')}`,
);
console.log(`information — warm, one process, caches kept (median of ${WARM_ROUNDS} rounds after one):`);
console.log(
  `  bare ${ms(median(warm.bare))}, typeplane ${ms(median(warm.typeplane))}, ratio ${(median(warm.typeplane) / median(warm.bare)).toFixed(2)}x`,
);

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (existsSync(cli)) {
  const walls: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const run = spawnSync(process.execPath, [cli, 'validate', corpus, '--quiet'], { encoding: 'utf8' });
    walls.push(performance.now() - t);
    if (run.status !== 0) {
      console.error(run.stdout, run.stderr);
      process.exit(1);
    }
  }
  console.log(
    `CLI 'typeplane validate' wall (whole folder, median of 3): ${ms(median(walls))} (target < 3000 ms)`,
  );
} else {
  console.log('CLI wall time: skipped, run `npm run build` first');
}

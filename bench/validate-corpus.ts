/**
 * Benchmark (not a test): the whole AWS corpus through Typeplane's validation (parse with positions on
 * demand + meta-schema + semantic checks + normalisation) against bare ajv with the same meta-schema
 * (JSON.parse + validate, nothing else), in the same process; then the built CLI on the whole corpus.
 *
 *   npm run build && npm run bench:validate
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { validateDocument } from '../src/schema/validate.js';
import { metaSchemaValidator } from '../src/schema/resource-schema/index.js';

const corpus = fileURLToPath(new URL('../../shared/corpus/aws-resource-schemas/', import.meta.url));
if (!existsSync(corpus)) {
  console.error(`corpus not found at ${corpus}`);
  process.exit(1);
}
const names = readdirSync(corpus).filter((f) => f.endsWith('.json'));
const ROUNDS = Number(process.env.ROUNDS ?? 7);

function bareAjv(): number {
  const validate = metaSchemaValidator();
  let invalid = 0;
  for (const name of names) if (!validate(JSON.parse(readFileSync(corpus + name, 'utf8')))) invalid++;
  return invalid;
}

function typeplane(): number {
  let invalid = 0;
  for (const name of names)
    if (!validateDocument(readFileSync(corpus + name), { file: name }).valid) invalid++;
  return invalid;
}

function time(fn: () => number): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// Warm both paths (JIT, meta-schema compile) before measuring; alternate to share machine noise.
const coldBare = time(bareAjv);
const coldFull = time(typeplane);
const bare: number[] = [];
const full: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  bare.push(time(bareAjv));
  full.push(time(typeplane));
}
const b = median(bare);
const f = median(full);
console.log(`files: ${names.length} (median of ${ROUNDS} rounds, read + parse + check in one process)`);
console.log(`bare ajv (meta-schema only):          ${b.toFixed(0)} ms`);
console.log(`typeplane validate (all checks):      ${f.toFixed(0)} ms`);
console.log(`ratio typeplane / bare ajv:           ${(f / b).toFixed(2)}x (target <= 2x)`);
console.log(
  `first (cold) round: bare ${coldBare.toFixed(0)} ms, typeplane ${coldFull.toFixed(0)} ms (includes compiling every pattern once with RE2; cached after)`,
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
    `CLI 'typeplane validate' wall (whole folder, median of 3): ${median(walls).toFixed(0)} ms (target < 3000 ms)`,
  );
} else {
  console.log('CLI wall time: skipped, run `npm run build` first');
}

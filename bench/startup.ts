/**
 * Benchmark (not a test): how long the built CLI takes to start and answer `typeplane --version`,
 * against a bare `node -e 0` measured in the same run. Runs alternate between the two so that load on
 * the machine falls on both alike; the verdict is the ratio of the medians (target: 2.5x or less).
 * `typeplane --help` (which loads every command) is printed as information.
 *
 *   npm run build && npm run bench:startup            (ROUNDS=21)
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  console.error('dist/ is not built: run npm run build first');
  process.exit(1);
}
const rounds = Number(process.env.ROUNDS ?? 21);

/** Wall time of one run of `node <args>`, in ms; a run that fails ends the benchmark. */
function run(args: string[]): number {
  const t = performance.now();
  const child = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const ms = performance.now() - t;
  if (child.status !== 0) {
    console.error(`node ${args.join(' ')} exited with ${child.status}:\n${child.stderr}`);
    process.exit(1);
  }
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const SIDES: Record<string, string[]> = {
  'node -e 0': ['-e', '0'],
  'typeplane --version': [main, '--version'],
  'typeplane --help': [main, '--help'],
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(SIDES).map((k) => [k, []]));
for (const args of Object.values(SIDES)) run(args); // warm the file system cache
for (let i = 0; i < rounds; i++)
  for (const [name, args] of Object.entries(SIDES)) times[name]!.push(run(args));

const bare = median(times['node -e 0']!);
for (const [name, xs] of Object.entries(times))
  console.log(
    `${name.padEnd(22)} median ${median(xs).toFixed(1).padStart(7)} ms   ${(median(xs) / bare).toFixed(2)}x`,
  );
const ratio = median(times['typeplane --version']!) / bare;
console.log(
  `verdict: typeplane --version is ${ratio.toFixed(2)}x node -e 0 (target 2.5x): ${ratio <= 2.5 ? 'met' : 'NOT met'}`,
);

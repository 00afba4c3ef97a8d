/**
 * Benchmark (not a test): how long the built CLI takes to start and answer `typeplane --version`,
 * against a bare `node -e 0` measured in the same run. Runs alternate between the two so that load on
 * the machine falls on both alike; the verdict is the ratio of the medians (target: 2.5x or less).
 * `typeplane --help` (which loads every command) is printed as information.
 *
 * Then, where the AWS corpus is present, `typeplane serve --types <corpus>` until it listens: its first
 * start (1,489 types registered, each compiled) and restarts on the same data folder (every type found
 * unchanged, none compiled again), against the same server started on that folder without `--types`
 * (information: SERVE_ROUNDS=3).
 *
 *   npm run build && npm run bench:startup            (ROUNDS=21)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** Wall time until `typeplane serve <args>` prints that it listens, in ms; the server is then stopped. */
async function serveUntilListening(args: string[]): Promise<number> {
  const t = performance.now();
  const child = spawn(process.execPath, [main, 'serve', '--port', '0', '--log-level', 'warn', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TYPEPLANE_ADMIN_TOKEN: 'b'.repeat(43) },
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const ms = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/listening on /.test(out)) resolve(performance.now() - t);
    });
    child.once('exit', (code) => reject(new Error(`typeplane serve exited with ${code}:\n${err}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return ms;
}

const corpus = fileURLToPath(new URL('../../shared/corpus/aws-resource-schemas/', import.meta.url));
if (existsSync(corpus)) {
  const serveRounds = Number(process.env.SERVE_ROUNDS ?? 3);
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-bench-startup-'));
  try {
    const data = ['--data-dir', join(dir, 'data')];
    const first = await serveUntilListening([...data, '--types', corpus]);
    const again: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < serveRounds; i++) {
      again.push(await serveUntilListening([...data, '--types', corpus]));
      plain.push(await serveUntilListening(data));
    }
    console.log(`serve --types <AWS corpus>, first start      ${first.toFixed(0).padStart(7)} ms`);
    console.log(
      `serve --types <AWS corpus>, restart (median) ${median(again).toFixed(0).padStart(7)} ms   ${(median(again) / first).toFixed(2)}x the first start, ${(median(again) / median(plain)).toFixed(2)}x a restart without --types (${median(plain).toFixed(0)} ms)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

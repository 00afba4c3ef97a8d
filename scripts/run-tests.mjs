#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's test runner (Node 20's runner does not expand globs), in
// three groups: first the files that may share the machine, several at a time; then the heavy ones
// (PAIRED: they load the machine but assert no durations), two at a time; then, one at a time, the
// files that assert how long something takes in wall time (ALONE). At the end it lists what was
// skipped, and why, the files that took longest and those that cost most CPU time (children included:
// on a shared machine, the figure to compare between runs).
// Extra arguments are passed through, e.g. `npm test -- --test-name-pattern=manifest`; files named
// on the command line run instead of all. TEST_CONCURRENCY sets how many files share the machine.
// The TypeScript runs without tsx: first the run brings a JavaScript mirror of the tree up to date
// (scripts/ts-mirror.mjs: only the files changed since the last run are transformed), then every
// test process is started with `--require scripts/ts-run.cjs`, which runs its .ts file from the
// mirror, with no module hooks. Through tsx, a test that starts a service spent about 1.4 s of CPU
// more loading its ~400 modules (2.5 s, not 1.1 s): tsx itself, and its hooks thread, which every
// import crosses both ways. test/helpers/typescript.ts starts the tests' own node children (the CLI
// from src/, providers, worker processes) the same way. Source maps point stack traces at the .ts lines, and
// scripts/test-source-reporter.mjs each test's location. Tests started by hand (`node --import tsx
// --test test/x.test.ts`) run through tsx as before.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { distIsCurrent } from './dist-current.mjs';
import { prepareMirror } from './ts-mirror.mjs';

/**
 * Heavy: tens of thousands of requests, servers killed and restarted under a burst of writes, a
 * replica stopped past its lease. They check outcomes, not durations (their deadlines are far).
 */
const PAIRED = new Set([
  'test/faults/crash-during-creates.test.ts',
  'test/security/fuzz.test.ts',
  'test/faults/lease-fencing.test.ts',
  // A browser (Chromium) and a server beside the test: about 10 s of CPU, no duration asserted.
  'test/console/console.test.ts',
]);

/** Time budgets: the corpus in 5 s, hostile inputs refused within a second or two, latencies. */
const ALONE = new Set([
  'test/schema/resource-schema-corpus.test.ts',
  'test/schema/source-bad-input.test.ts',
  'test/registry/schema-limits.test.ts',
  'test/registry/compile.test.ts',
  'test/faults/bad-providers.test.ts',
  'test/contract/state-provider.test.ts',
  'test/providers/remote-protocol.test.ts',
  'test/store/sqlite-checkpointer.test.ts',
  // Attacks under way while /healthz must answer within a second.
  'test/security/denial-of-service.test.ts',
  // Artifacts made for the whole corpus while /healthz must answer within 500 ms.
  'test/api/artifact-generation-keeps-server-responsive.test.ts',
  // A quiet token's latency beside a saturating one.
  'test/fairness/noisy-neighbour.test.ts',
]);

/** The longest of the others (measured), started first so that none of them ends the run alone. */
const LONGEST = [
  'test/package/packed-package.test.ts',
  'test/codegen/typescript.test.ts',
  'test/cli/readme-walkthroughs.test.ts',
  'test/recipes/example-walkthrough.test.ts',
  'test/cli/recipe-commands.test.ts',
  'test/cloudcontrol/aws-cli.test.ts',
  'test/contract/cli.test.ts',
  'test/schema/pattern-verdicts.test.ts',
  'test/contract/builtin-providers.test.ts',
  'test/cli/first-use.test.ts',
  'test/cli/api-parity.test.ts',
  'test/policy/policy-commands.test.ts',
  'test/contract/broken-providers.test.ts',
  'test/stacks/sigkill-mid-deploy.test.ts',
  'test/recipes/sigkill-mid-recipe.test.ts',
  'test/recipes/secrets.test.ts',
  'test/store/store-operations.test.ts',
  'test/cli/api-commands.test.ts',
  'test/auth/cli-token-commands.test.ts',
  'test/api/type-version-races.test.ts',
  'test/api/postgresql-replicas.test.ts',
  'test/auth/serve-admin-token.test.ts',
];

const passthrough = process.argv.slice(2);
const only = passthrough.filter((a) => !a.startsWith('-'));
const flags = passthrough.filter((a) => a.startsWith('-'));
const files =
  only.length > 0
    ? only
    : readdirSync('test', { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => `test/${f}`)
        .sort();
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, availableParallelism() * 2));
const records = mkdtempSync(join(tmpdir(), 'typeplane-test-run-'));
// The CLI starts from dist/ when it is built from the sources as they are (test/helpers/cli.ts).
const fromDist = distIsCurrent();
const mirror = await prepareMirror();

/** One `node --test` run over `group`; resolves to its exit status. */
function run(name, group, groupConcurrency) {
  if (group.length === 0) return Promise.resolve(0);
  const args = ['--require', new URL('./ts-run.cjs', import.meta.url).pathname];
  args.push('--import', new URL('./test-cpu-record.mjs', import.meta.url).pathname);
  args.push('--test', `--test-concurrency=${groupConcurrency}`);
  args.push(`--test-reporter=${new URL('./test-source-reporter.mjs', import.meta.url).pathname}`);
  args.push('--test-reporter-destination=stdout');
  args.push(`--test-reporter=${new URL('./test-record-reporter.mjs', import.meta.url).pathname}`);
  args.push(`--test-reporter-destination=${join(records, `${name}.jsonl`)}`);
  const child = spawn(process.execPath, [...args, ...flags, ...group], {
    stdio: 'inherit',
    env: { ...process.env, TYPEPLANE_TEST_RECORDS: records },
  });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ? 1 : (code ?? 1))));
}

const started = Date.now();
const rank = (f) => (LONGEST.includes(f) ? LONGEST.indexOf(f) : LONGEST.length);
const together = files.filter((f) => !ALONE.has(f) && !PAIRED.has(f)).sort((a, b) => rank(a) - rank(b));
const groups = [
  { name: 'together', files: together, concurrency },
  // The two longest (fuzz, crash) first; lease fencing, mostly waiting, fills the shorter one's place.
  { name: 'paired', files: [...PAIRED].filter((f) => files.includes(f)), concurrency: 2 },
  { name: 'alone', files: files.filter((f) => ALONE.has(f)), concurrency: 1 },
];
const statuses = [];
for (const group of groups) {
  const start = Date.now();
  statuses.push(await run(group.name, group.files, group.concurrency));
  group.seconds = (Date.now() - start) / 1000;
}
const seconds = (Date.now() - started) / 1000;

const lines = readdirSync(records).flatMap((f) =>
  readFileSync(join(records, f), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l)),
);
rmSync(records, { recursive: true, force: true });

const report = [
  '',
  `${files.length} files in ${seconds.toFixed(0)} s: ${groups
    .filter((g) => g.files.length > 0)
    .map((g) => `${g.files.length} ${g.name}, ${g.concurrency} at a time (${g.seconds.toFixed(0)} s)`)
    .join('; ')}`,
  `TypeScript run from its mirror (${mirror.transformed} of ${mirror.files} files transformed for this run); ${
    fromDist
      ? 'the CLI from dist/ (current with src/)'
      : 'the CLI from the sources (dist/ is absent or older than src/: `npm run build` makes the run faster)'
  }`,
];
// Time in each file's tests (its start-up aside), to keep LONGEST, PAIRED and ALONE current. A test
// counts for the file that defines it: test/store/fixtures.ts stands for the store tests it defines.
const busy = new Map();
for (const { kind, file, ms } of lines) if (kind === 'time') busy.set(file, (busy.get(file) ?? 0) + ms);
const slowest = [...busy].sort((a, b) => b[1] - a[1]).slice(0, 10);
if (slowest.length > 0)
  report.push(
    `longest: ${slowest.map(([file, ms]) => `${relative('.', file)} ${(ms / 1000).toFixed(1)} s`).join(', ')}`,
  );
// CPU time per file (its processes', children included): unlike wall time, not raised by a busy machine.
const cpu = lines.filter((l) => l.kind === 'cpu').sort((a, b) => b.ms - a.ms);
if (cpu.length > 0)
  report.push(
    `most CPU: ${cpu
      .slice(0, 10)
      .map(({ file, ms }) => `${relative('.', file)} ${(ms / 1000).toFixed(1)} s`)
      .join(', ')}; ${(cpu.reduce((sum, { ms }) => sum + ms, 0) / 1000).toFixed(0)} s of CPU in all`,
  );
const skips = new Map();
for (const { kind, reason, name } of lines)
  if (kind === 'skip') skips.set(reason, [...(skips.get(reason) ?? []), name]);
const skipped = [...skips.values()].reduce((n, names) => n + names.length, 0);
report.push(skipped === 0 ? 'nothing skipped' : `${skipped} skipped:`);
for (const [reason, names] of skips)
  report.push(
    `  ${names.length} × ${reason}`,
    `      e.g. ${names.slice(0, 2).join('; ')}${names.length > 2 ? '; …' : ''}`,
  );
const failed = lines.filter((l) => l.kind === 'fail');
// Each failure with its error, last, where a reader of only the run's tail still finds it.
if (failed.length > 0)
  report.push(
    `${failed.length} failed:`,
    ...failed.flatMap((l) => [
      `  ${l.name}${l.file ? ` (${relative('.', l.file)})` : ''}`,
      ...(l.error ? l.error.split('\n').map((e) => `      ${e}`) : []),
    ]),
  );
console.log(report.join('\n'));
process.exit(statuses.every((s) => s === 0) ? 0 : 1);

#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's test runner (Node 20's runner does not expand globs), in
// two groups: first the files that may share the machine, several at a time; then, one at a time,
// the files that must run alone (ALONE: heavy, or asserting how long something takes). At the end
// it lists what was skipped, and why.
// Extra arguments are passed through, e.g. `npm test -- --test-name-pattern=manifest`; files named
// on the command line run instead of all. TEST_CONCURRENCY sets how many files share the machine.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

/** Files that must have the machine to themselves. */
const ALONE = new Set([
  // Heavy: tens of thousands of requests, or servers killed and restarted under a burst of writes.
  'test/security/fuzz.test.ts',
  'test/faults/crash-during-creates.test.ts',
  // A replica stopped past its one-second lease: the other must take over in time.
  'test/faults/lease-fencing.test.ts',
  // Time budgets: the corpus in 5 s, hostile inputs refused within a second or two, latencies.
  'test/schema/resource-schema-corpus.test.ts',
  'test/schema/source-bad-input.test.ts',
  'test/registry/schema-limits.test.ts',
  'test/registry/compile.test.ts',
  'test/faults/bad-providers.test.ts',
  'test/contract/state-provider.test.ts',
  'test/providers/remote-protocol.test.ts',
  'test/store/sqlite-checkpointer.test.ts',
  'test/api/artifact-generation-keeps-server-responsive.test.ts',
]);

/** The longest of the others (measured), started first so that none of them ends the run alone. */
const LONGEST = [
  'test/codegen/typescript.test.ts',
  'test/cli/api-commands.test.ts',
  'test/contract/cli.test.ts',
  'test/cli/validate-command.test.ts',
  'test/auth/serve-admin-token.test.ts',
  'test/contract/builtin-providers.test.ts',
  'test/auth/cli-token-commands.test.ts',
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
const reporter = process.stdout.isTTY ? 'spec' : 'tap';

/** One `node --test` run over `group`; resolves to its exit status. */
function run(name, group, groupConcurrency) {
  if (group.length === 0) return Promise.resolve(0);
  const args = ['--import', 'tsx', '--test', `--test-concurrency=${groupConcurrency}`];
  args.push(`--test-reporter=${reporter}`, '--test-reporter-destination=stdout');
  args.push(`--test-reporter=${new URL('./test-record-reporter.mjs', import.meta.url).pathname}`);
  args.push(`--test-reporter-destination=${join(records, `${name}.jsonl`)}`);
  const child = spawn(process.execPath, [...args, ...flags, ...group], { stdio: 'inherit' });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ? 1 : (code ?? 1))));
}

const started = Date.now();
const rank = (f) => (LONGEST.includes(f) ? LONGEST.indexOf(f) : LONGEST.length);
const together = files.filter((f) => !ALONE.has(f)).sort((a, b) => rank(a) - rank(b));
const alone = files.filter((f) => ALONE.has(f));
const statuses = [await run('together', together, concurrency)];
const togetherSeconds = (Date.now() - started) / 1000;
statuses.push(await run('alone', alone, 1));
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
  `${files.length} files in ${seconds.toFixed(0)} s: ${together.length} at ${concurrency} at a time (${togetherSeconds.toFixed(0)} s), ${alone.length} alone (${(seconds - togetherSeconds).toFixed(0)} s)`,
];
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
if (failed.length > 0) report.push(`${failed.length} failed:`, ...failed.map((l) => `  ${l.name}`));
console.log(report.join('\n'));
process.exit(statuses.every((s) => s === 0) ? 0 : 1);

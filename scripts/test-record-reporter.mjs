// A node:test reporter for scripts/run-tests.mjs: one JSON line per test that was skipped (with its
// reason) or failed (with its error), and the duration of each top-level test, so the runner can say
// at the end what was skipped and why, what failed and how, and which files took longest. A test run
// from the TypeScript mirror (scripts/ts-mirror.mjs) is located in it: it counts for its .ts file.
import { sourceOf } from './ts-source-map.cjs';

export default async function* recordReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, skip, details, nesting } = event.data;
    const { file } = sourceOf(event.data.file);
    if (nesting === 0 && file !== undefined)
      yield `${JSON.stringify({ kind: 'time', file, ms: details?.duration_ms ?? 0 })}\n`;
    // A name filter skips what it does not match: that is what was asked, not a missing need.
    if (skip !== undefined && skip !== false && skip !== 'test name does not match pattern')
      yield `${JSON.stringify({ kind: 'skip', name, reason: skip === true ? 'skipped' : String(skip) })}\n`;
    if (event.type === 'test:fail' && !details?.error?.failureType?.startsWith('subtest'))
      yield `${JSON.stringify({ kind: 'fail', name, file, error: describe(details?.error) })}\n`;
  }
}

/** The failure as a reader of the run's last lines needs it: the assertion's message and where. */
function describe(error) {
  const cause = error?.cause ?? error;
  if (cause === undefined || cause === null) return '';
  const text = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
  const own = text.split('\n').filter((l) => !/\(node:|^\s*at node:/.test(l));
  return own.slice(0, 24).join('\n').slice(0, 4000);
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runContractSuite, TEST_NAMES } from '../../src/contract/index.js';
import { explain, failedTests, fixture, widgetType } from './helpers.js';

/**
 * One fixture per contract clause, each breaking exactly that clause. The suite must fail each on the
 * test named after the clause. Breaking one clause can make other tests fail on the way (a resource
 * that is never deleted cannot be created again); those are listed, and nothing else may fail.
 */
const BROKEN: {
  fixture: string;
  fails: string;
  incidental?: string[];
  options?: {
    runs?: number;
    timeoutMs?: number;
    maxShrinks?: number;
    callLimitsMs?: { change?: number; read?: number };
  };
}[] = [
  {
    // It refuses no duplicate at all, so none by an additional identifier either.
    fixture: 'create-succeeds-twice',
    fails: 'create→create',
    incidental: ['create→create by additional identifiers'],
  },
  { fixture: 'create-retry-refused', fails: 'create replayed' },
  { fixture: 'create-replay-duplicates', fails: 'create replayed' },
  { fixture: 'create-replay-hides-copy', fails: 'create replayed' },
  { fixture: 'read-by-name-only', fails: 'read by additional identifiers' },
  { fixture: 'create-ignores-owner', fails: 'create→create by additional identifiers' },
  {
    fixture: 'read-returns-write-only',
    fails: 'create→read',
    incidental: ['write-only values never returned'],
  },
  { fixture: 'list-returns-write-only', fails: 'write-only values never returned' },
  { fixture: 'failed-without-message', fails: 'FAILED answers carry a message' },
  {
    fixture: 'delete-leaves-resource',
    fails: 'delete→read',
    incidental: ['delete→update', 'delete→delete', 'delete→list', 'delete→create'],
  },
  { fixture: 'delete-twice-succeeds', fails: 'delete→delete' },
  { fixture: 'delete-returns-model', fails: 'delete SUCCESS carries no model' },
  { fixture: 'list-ignores-next-token', fails: 'list pagination' },
  // The ghost makes the page one longer than asked for, too.
  { fixture: 'list-shows-ghost', fails: 'list→read', incidental: ['list pagination'] },
  { fixture: 'list-misses-resources', fails: 'create→list', incidental: ['update→list', 'list pagination'] },
  {
    fixture: 'model-without-identifier',
    fails: 'models carry the primary identifier',
    incidental: [
      'read by additional identifiers',
      'create→read',
      'update→read',
      'create-only and read-only properties respected',
    ],
  },
  { fixture: 'in-progress-without-identifier', fails: 'IN_PROGRESS models carry the primary identifier' },
  {
    // The extra member is also a property nobody asked for.
    fixture: 'model-off-schema',
    fails: 'models match the schema',
    incidental: ['create→read', 'update→read'],
  },
  { fixture: 'update-creates-resource', fails: 'update without create', incidental: ['delete→update'] },
  { fixture: 'update-appends-lists', fails: 'update→read', incidental: ['models match the schema'] },
  { fixture: 'create-drops-property', fails: 'create→read' },
  { fixture: 'list-returns-null', fails: 'models carry no null', incidental: ['models match the schema'] },
  { fixture: 'update-keeps-removed', fails: 'update→read' },
  {
    fixture: 'update-drops-read-only',
    fails: 'create-only and read-only properties respected',
    incidental: ['read-only properties returned'],
  },
  { fixture: 'read-only-never-returned', fails: 'read-only properties returned' },
  {
    fixture: 'read-in-progress',
    fails: 'read and list never IN_PROGRESS',
    incidental: [
      'read by additional identifiers',
      'create→read',
      'list→read',
      'update→read',
      'create-only and read-only properties respected',
    ],
  },
  {
    fixture: 'never-stabilizes',
    fails: 'IN_PROGRESS reaches a terminal status in time',
    incidental: ['update→read', 'update→list', 'create-only and read-only properties respected'],
    options: { runs: 2, timeoutMs: 100, maxShrinks: 2 },
  },
  {
    fixture: 'update-too-slow',
    fails: 'each answer within its time limit',
    incidental: ['update→read', 'update→list', 'create-only and read-only properties respected'],
    options: { runs: 2, maxShrinks: 2, callLimitsMs: { change: 300 } },
  },
  { fixture: 'invalid-error-code', fails: 'answers are valid events', incidental: ['delete→read'] },
  {
    // A deleted name stays taken, so any later create that happens to reuse a name fails too.
    fixture: 'recreate-refused',
    fails: 'delete→create',
    incidental: TEST_NAMES.filter((n) => n !== 'delete→create'),
  },
];

test('the correct widget provider passes every test', async () => {
  const report = await runContractSuite({
    type: await widgetType(),
    provider: await fixture('correct'),
    seed: 1,
  });
  assert.deepEqual(failedTests(report), [], explain(report));
  assert.equal(report.ok, true);
  const skipped = report.results.filter((r) => r.status === 'skip').map((r) => r.name);
  assert.deepEqual(skipped, ['invalid inputs refused by the schema'], 'only the inputs-file test is skipped');
  // The correct provider answers create with IN_PROGRESS first: the suite followed it.
  const inProgress = report.results.find((r) => r.name === 'IN_PROGRESS reaches a terminal status in time')!;
  assert.match(inProgress.notes.join(), /IN_PROGRESS sequences followed/);
});

test('every clause named in a fixture is a test of the suite', () => {
  for (const b of BROKEN) assert.ok(TEST_NAMES.includes(b.fails), b.fails);
});

for (const broken of BROKEN) {
  test(`${broken.fixture} fails on ${broken.fails}`, async (t) => {
    const report = await runContractSuite({
      type: await widgetType(),
      provider: await fixture(broken.fixture),
      seed: 1,
      timeoutMs: 2000,
      ...broken.options,
    });
    const failed = failedTests(report);
    t.diagnostic(`the suite failed it on: ${failed.join(', ')}`);
    assert.ok(
      failed.includes(broken.fails),
      `expected ${broken.fails} to fail; failed: ${failed.join(', ') || 'none'}`,
    );
    const result = report.results.find((r) => r.name === broken.fails)!;
    assert.equal(result.status, 'fail');
    assert.ok(result.failures.length > 0 && result.failures[0]!.message.length > 0);
    const allowed = new Set([broken.fails, ...(broken.incidental ?? [])]);
    const unexpected = failed.filter((name) => !allowed.has(name));
    assert.deepEqual(unexpected, [], `unexpected failures:\n${explain(report)}`);
    assert.equal(report.ok, false);
  });
}

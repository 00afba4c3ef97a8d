/**
 * AllowedPatterns with lookaround, matched without backtracking (src/stacks/lookaround.ts): the same
 * verdicts as a backtracking engine (ECMAScript's, which reads these patterns as Java does) on the
 * patterns published templates use and on the constructs the parser takes, within a work budget.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  LOOKAROUND_WORK_LIMIT,
  LookaroundWorkExceeded,
  lookaroundProblem,
  matchesLookaround,
} from '../../src/stacks/lookaround.js';

const PATTERNS = [
  // Published: S3 bucket names, passwords of three kinds of character, directory ids.
  String.raw`^$|^(?=^.{3,63}$)(?!.*[.-]{2})(?!.*[--]{2})(?!^(?:(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\.(?!$)|$)){4}$)(^(([a-z0-9]|[a-z0-9][a-z0-9\-]*[a-z0-9])\.)*([a-z0-9]|[a-z0-9][a-z0-9\-]*[a-z0-9])$)`,
  String.raw`(?=^.{6,255}$)((?=.*\d)(?=.*[A-Z])(?=.*[a-z])|(?=.*\d)(?=.*[^A-Za-z0-9])(?=.*[a-z])|(?=.*[^A-Za-z0-9])(?=.*[A-Z])(?=.*[a-z])|(?=.*\d)(?=.*[A-Z])(?=.*[^A-Za-z0-9]))^.*`,
  String.raw`^$|^(?!d-)([\da-zA-Z]+)([-]*[\da-zA-Z])*$`,
  // Lookbehind, word boundaries, lazy and counted repeats, escapes in and out of classes.
  String.raw`(?<![-.])\b[a-z]{2,4}?(?<=[a-c])(?:-\d{1,3})*`,
  String.raw`(?!.*\x2e\x2e)[\w.\-]+(?<!\.)`,
  String.raw`(?=.{0,8}$)(a|ab|abc)+?c?`,
];

const VALUES = [
  '',
  'a',
  'ab',
  'abc',
  'abcc',
  'my-bucket',
  'my..bucket',
  'a.b-c',
  'a-',
  '192.168.1.1',
  '1.2.3',
  'x'.repeat(63),
  'x'.repeat(64),
  'Passw0rd',
  'password',
  'PASSWORD!x',
  'Pa1',
  'd-123',
  'abc-def',
  'ab-1-22-333',
  '-ab',
  'bc',
  'file.name_1',
  'file.',
  'abababab',
  'abababababc',
];

test('the same verdicts as a backtracking engine, on published patterns and every construct taken', () => {
  for (const pattern of PATTERNS) {
    assert.equal(lookaroundProblem(pattern), undefined, pattern);
    const native = new RegExp(`^(?:${pattern})$`);
    for (const value of VALUES)
      assert.equal(
        matchesLookaround(pattern, value, { left: LOOKAROUND_WORK_LIMIT }),
        native.test(value),
        `${pattern} against ${JSON.stringify(value)}`,
      );
  }
});

test('a pattern whose work would grow without bound is stopped by the budget, not run', () => {
  const budget = { left: LOOKAROUND_WORK_LIMIT };
  assert.throws(
    () => matchesLookaround(String.raw`(?=.)(.*)*(.*)*x`, 'a'.repeat(4096), budget),
    LookaroundWorkExceeded,
  );
  assert.ok(budget.left < 0);
  // The budget is shared: once spent, the next check is refused at its first step.
  assert.throws(() => matchesLookaround(String.raw`(?=a)a`, 'a', budget), LookaroundWorkExceeded);
});

test('constructs that are not taken are named', () => {
  for (const [pattern, named] of [
    [String.raw`(?i)(?=a)a`, /inline flags/],
    [String.raw`(?=a)(a)\1`, /back-references/],
    [String.raw`(?=a)a*+`, /possessive repeats/],
    [String.raw`(?=a)[a[b]]`, /nested classes/],
    [String.raw`(?=a)[a&&b]`, /class intersections/],
    [String.raw`(?=a)a{2000}`, /a repeat count over 1000/],
    [String.raw`(?=a)(a`, /a '\(' without its '\)'/],
    [`(?=a)${'('.repeat(60)}a${')'.repeat(60)}`, /nest over 50 deep/],
  ] as const)
    assert.match(lookaroundProblem(pattern) ?? 'accepted', named, pattern);
});

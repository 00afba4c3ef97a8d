/**
 * Type globs: matched against the whole type name, case-sensitively; `*` matches any run of
 * characters (separators `::`, `.` and `/` included); everything else is literal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { globMatches, parseTypeGlobs, typeVisible } from '../../src/auth/index.js';

test('* matches any run of characters, across :: and / separators', () => {
  const cases: [string, string, boolean][] = [
    ['AWS::S3::*', 'AWS::S3::Bucket', true],
    ['AWS::S3::*', 'AWS::S3::Bucket::Policy', true],
    ['AWS::S3::*', 'AWS::SQS::Queue', false],
    ['AWS::*', 'AWS::SQS::Queue', true],
    ['AWS::S3::Bucket', 'AWS::S3::Bucket', true],
    ['AWS::S3::Bucket', 'AWS::S3::BucketPolicy', false],
    ['AWS::S3::Bucket', 'aws::s3::bucket', false],
    ['Applications.Datastores/*', 'Applications.Datastores/redisCaches', true],
    ['Applications.Datastores/*', 'Applications.Core/containers', false],
    ['*/redisCaches', 'Applications.Datastores/redisCaches', true],
    ['Applications.*', 'Applications.Core/containers', true],
    ['A.B/x', 'AxB/x', false], // '.' is literal
    ['*', 'Anything::At::All', true],
    ['*::Bucket', 'AWS::S3::Bucket', true],
  ];
  for (const [glob, name, expected] of cases)
    assert.equal(globMatches(glob, name), expected, `${glob} vs ${name}`);
});

test('globs come as a list or comma-separated, are trimmed and de-duplicated; junk is refused', () => {
  assert.deepEqual(parseTypeGlobs(['AWS::S3::*, AWS::SQS::*', 'AWS::S3::*']), ['AWS::S3::*', 'AWS::SQS::*']);
  assert.deepEqual(parseTypeGlobs('Applications.Core/*'), ['Applications.Core/*']);
  for (const bad of [[], [''], ['a b'], ['AWS::S3::[ab]'], ['x'.repeat(300)], [1], {}])
    assert.throws(
      () => parseTypeGlobs(bad),
      { name: 'TypeplaneError', code: 'InvalidRequest' },
      JSON.stringify(bad),
    );
});

test('a token without globs reaches every type', () => {
  assert.equal(typeVisible({ tokenId: 'a', role: 'reader' }, 'Any::Type::Name'), true);
  assert.equal(typeVisible({ tokenId: 'a', role: 'reader', types: ['Other::*'] }, 'Any::Type::Name'), false);
});

test('the glob matcher agrees with a regular-expression reading of * on random globs and names', () => {
  const alphabet = fc.constantFrom('a', 'b', ':', '*');
  const reference = (glob: string, name: string) =>
    new RegExp(
      `^${glob
        .split('*')
        .map((p) => p.replace(/[.:]/g, '\\$&'))
        .join('.*')}$`,
      's',
    ).test(name);
  fc.assert(
    fc.property(
      fc.array(alphabet, { maxLength: 8 }).map((c) => c.join('')),
      fc.array(fc.constantFrom('a', 'b', ':'), { maxLength: 10 }).map((c) => c.join('')),
      (glob, name) => assert.equal(globMatches(glob, name), reference(glob, name), `${glob} vs ${name}`),
    ),
    { numRuns: 5000 },
  );
});

test('globs built to backtrack match long names in well under a millisecond each', () => {
  const cases: [string, string][] = [
    ['Aa::*::*::*::*Zz', `Aa::${'x:'.repeat(500)}`],
    ['*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(2048)],
    ['AWS::*::*::*Bucket', `AWS::${':'.repeat(2040)}`],
  ];
  for (const [glob, name] of cases) {
    const started = performance.now();
    for (let i = 0; i < 100; i++) assert.equal(globMatches(glob, name), false);
    const each = (performance.now() - started) / 100;
    assert.ok(each < 1, `${glob} against ${name.length} characters took ${each.toFixed(2)} ms`);
  }
});

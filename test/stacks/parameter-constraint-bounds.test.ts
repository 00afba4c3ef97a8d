/**
 * A parameter's constraints cost what a schema's do: `AllowedValues` is read once into a set (not
 * scanned again for each item of a list), and `AllowedPattern` is bounded as a schema's `pattern`:
 * its program size when the template is checked (a large one is refused without being compiled),
 * and RE2 instructions × characters, all parameters together, when values are checked. Each refusal
 * is a located 400, quickly.
 */
import assert from 'node:assert/strict';
import { before, after, test } from 'node:test';
import { PATTERN_WORK_LIMIT } from '../../src/registry/re2.js';
import { startTestService, WIDGET, type TestService } from '../helpers/service.js';

let s: TestService;
before(async () => {
  s = await startTestService();
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
});
after(() => s.close());

interface Diagnostic {
  rule: string;
  pointer: string;
  message: string;
}

/** A plan of a one-widget template whose Color is `Ref P`: its status, time and diagnostics. */
async function plan(
  stack: string,
  parameter: object,
  value: string,
): Promise<{ status: number; ms: number; diagnostics: Diagnostic[] }> {
  const template = JSON.stringify({
    Parameters: { P: parameter },
    Resources: {
      W: {
        Type: 'Test::Shop::Widget',
        Properties: { Name: 'w', Color: { 'Fn::Join': ['', [{ 'Fn::Select': [0, { Ref: 'P' }] }]] } },
      },
    },
  });
  const started = performance.now();
  const r = await s.call('POST', `/v1/stacks/${stack}/plans`, { template, parameters: { P: value } });
  return { status: r.status, ms: performance.now() - started, diagnostics: r.body.details ?? [] };
}

test('a long list against long AllowedValues is checked in linear time', async () => {
  const allowed = Array.from({ length: 20_000 }, (_, i) => `v${i}`);
  const fine = await plan(
    'values',
    { Type: 'CommaDelimitedList', AllowedValues: allowed },
    allowed.join(','),
  );
  assert.equal(fine.status, 201, JSON.stringify(fine.diagnostics).slice(0, 400));
  assert.ok(fine.ms < 2000, `${fine.ms} ms`);
  const one = await plan(
    'values-off',
    { Type: 'CommaDelimitedList', AllowedValues: allowed },
    [...allowed.slice(1), 'nope'].join(','),
  );
  assert.equal(one.status, 400);
  assert.equal(one.diagnostics[0]!.pointer, '/Parameters/P');
  assert.match(one.diagnostics[0]!.message, /"nope" is not one of the AllowedValues/);
  assert.ok(one.ms < 2000, `${one.ms} ms`);
});

test('an AllowedPattern compiling past the program limit is refused at the template, without being compiled', async () => {
  // 4 KB compiling to 570,000 instructions: seconds to compile.
  const pattern = 'x{1000}'.repeat(570);
  const r = await plan('pattern-size', { Type: 'CommaDelimitedList', AllowedPattern: pattern }, 'x');
  assert.equal(r.status, 400);
  const d = r.diagnostics.find((x) => x.pointer === '/Parameters/P/AllowedPattern');
  assert.ok(d, JSON.stringify(r.diagnostics).slice(0, 400));
  assert.equal(d.rule, 'TP4011');
  assert.match(d.message, /compiles to over 570000 RE2 instructions; at most 100000 are allowed/);
  assert.ok(r.ms < 2000, `${r.ms} ms`);
});

test('values matched against AllowedPattern share the pattern work limit, and the one over it is named', async () => {
  // 12,000 characters against 2,005 instructions: 24 million units, refused before RE2 runs.
  const pattern = '[a-z]{0,500}x[a-z]{0,500}';
  const r = await plan('pattern-work', { Type: 'String', AllowedPattern: pattern }, 'a'.repeat(12_000));
  assert.equal(r.status, 400);
  const constraints = r.diagnostics.filter((d) => d.rule === 'TP4012');
  assert.equal(constraints.length, 1, JSON.stringify(r.diagnostics).slice(0, 400));
  assert.equal(constraints[0]!.pointer, '/Parameters/P');
  assert.match(
    constraints[0]!.message,
    new RegExp(
      `a string of 12,000 characters, too long to check against its AllowedPattern .*at most ${PATTERN_WORK_LIMIT.toLocaleString('en-US')}`,
    ),
  );
  assert.ok(r.ms < 2000, `${r.ms} ms`);
  // Many short items, each within reach, are checked as usual: the whole value must match.
  const list = await plan(
    'pattern-list',
    { Type: 'CommaDelimitedList', AllowedPattern: '[a-z]+' },
    'abc,def,gh1',
  );
  assert.equal(list.status, 400);
  assert.match(list.diagnostics[0]!.message, /"gh1" does not match AllowedPattern \[a-z\]\+/);
  const ok = await plan('pattern-ok', { Type: 'CommaDelimitedList', AllowedPattern: '[a-z]+' }, 'abc,def');
  assert.equal(ok.status, 201, JSON.stringify(ok.diagnostics).slice(0, 400));
});

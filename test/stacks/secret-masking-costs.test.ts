/**
 * Masking NoEcho values costs a pass over each text, not one per secret: a stack may have at most
 * 100 NoEcho values (each item of a list counts), of 16,384 characters together, refused at
 * validation with a located TP4024 — a NoEcho list of 20,000 items made every string of a plan be
 * scanned 20,000 times (a plan took over a minute). A message quoting overlapping secrets shows no
 * piece of either, and a parameter diagnostic quotes a long list or value only in part.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WIDGET_TYPE } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { watchedService } from './helpers.js';

const ITEMS = Array.from({ length: 20_000 }, (_, i) => `item-${String(i).padStart(5, '0')}`);

/** Widgets and outputs picking items of the NoEcho list P, and widgets handed a 600 KB string. */
function attack(): string {
  const resources: Record<string, unknown> = {};
  const outputs: Record<string, unknown> = {};
  for (let i = 0; i < 20; i++)
    resources[`W${i}`] = {
      Type: WIDGET_TYPE,
      Properties: { Name: `w${i}`, Color: i < 5 ? { Ref: 'Big' } : { 'Fn::Select': [i, { Ref: 'P' }] } },
    };
  for (let i = 0; i < 50; i++) outputs[`O${i}`] = { Value: { 'Fn::Select': [i, { Ref: 'P' }] } };
  return JSON.stringify({
    Parameters: { P: { Type: 'CommaDelimitedList', NoEcho: true }, Big: { Type: 'String' } },
    Resources: resources,
    Outputs: outputs,
  });
}

test('a NoEcho list of 20,000 items is refused at validation, plan and deploy with a located TP4024, quickly', async (t) => {
  const { call, answers } = await watchedService(t);
  const body = { template: attack(), parameters: { P: ITEMS.join(','), Big: 'item-'.repeat(120_000) } };
  // CPU time of this process (the server runs in it), not wall time: other test files running at
  // once on a loaded machine slow the wall clock, not the work done.
  const started = process.cpuUsage();
  const validated = await call('POST', '/v1/stacks/validate', body);
  const planned = await call('POST', '/v1/stacks/a/plans', body);
  const deployed = await call('PUT', '/v1/stacks/a?wait=20', body);
  const used = process.cpuUsage(started);
  const ms = (used.user + used.system) / 1000;
  assert.equal(validated.body.valid, false, JSON.stringify(validated.body).slice(0, 400));
  for (const diagnostics of [validated.body.diagnostics, planned.body.details, deployed.body.details]) {
    const d = diagnostics.find((x: { rule: string }) => x.rule === 'TP4024');
    assert.ok(d, JSON.stringify(diagnostics).slice(0, 400));
    assert.equal(d.pointer, '/Parameters/P');
    assert.ok(d.line >= 1, 'located');
    assert.match(d.message, /makes 20,000 NoEcho values .* at most 100 of 16,384 characters together/);
  }
  assert.equal(planned.status, 400);
  assert.equal(deployed.status, 400);
  assert.ok(ms < 2000, `${Math.round(ms)} ms of CPU for validate, plan and deploy`);
  assert.equal((await call('GET', '/v1/stacks/a')).status, 404, 'nothing was deployed');
  // The values refused are quoted nowhere.
  assert.deepEqual(
    answers.filter((a) => a.includes('item-00042')),
    [],
  );

  // 100 values are allowed, across parameters; the 101st (or more characters) is refused where it is given.
  const two = JSON.stringify({
    Parameters: {
      A: { Type: 'CommaDelimitedList', NoEcho: true },
      B: { Type: 'CommaDelimitedList', NoEcho: true },
    },
    Resources: {
      W: {
        Type: WIDGET_TYPE,
        Properties: { Name: 'w', Labels: { 'Fn::Select': [0, [{ Ref: 'A' }, { Ref: 'B' }]] } },
      },
    },
  });
  const within = await call('POST', '/v1/stacks/validate', {
    template: two,
    parameters: { A: ITEMS.slice(0, 60).join(','), B: ITEMS.slice(40, 100).join(',') },
  });
  assert.equal(within.body.valid, true, JSON.stringify(within.body).slice(0, 400));
  const over = await call('POST', '/v1/stacks/validate', {
    template: two,
    parameters: { A: ITEMS.slice(0, 60).join(','), B: ITEMS.slice(40, 101).join(',') },
  });
  assert.deepEqual(
    over.body.diagnostics
      .filter((d: { rule: string }) => d.rule === 'TP4024')
      .map((d: { pointer: string }) => d.pointer),
    ['/Parameters/B'],
  );
  const long = await call('POST', '/v1/stacks/validate', {
    template: two,
    parameters: { A: 'x'.repeat(16_384), B: 'y' },
  });
  assert.deepEqual(
    long.body.diagnostics
      .filter((d: { rule: string }) => d.rule === 'TP4024')
      .map((d: { pointer: string }) => d.pointer),
    ['/Parameters/B'],
  );
});

test("a provider's message quoting two overlapping NoEcho values shows no piece of either", async (t) => {
  const provider = memoryProvider({
    create: (req) => ({
      status: 'FAILED',
      errorCode: 'InvalidRequest',
      message: `color ${String(req.desiredState.Color)} is out of stock`,
    }),
  });
  const { s, answers } = await watchedService(t, { providers: new Map([[WIDGET_TYPE, provider]]) });
  const put = await s.call('PUT', '/v1/stacks/s?wait=20', {
    template: `
Parameters:
  Shades: { Type: CommaDelimitedList, NoEcho: true }
  Shown: { Type: String }
Resources:
  A: { Type: Test::Shop::Widget, Properties: { Name: a, Color: !Ref Shown } }
`,
    // The color quotes the end of one secret and the start of the other, overlapping.
    parameters: { Shades: 'Kq7w-Zr81,Zr81-Jm40', Shown: 'Kq7w-Zr81-Jm40' },
  });
  assert.equal(put.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(put.body));
  assert.equal(put.body.stack.statusReason, 'A: InvalidRequest: color **** is out of stock');
  const events = await s.call('GET', '/v1/stacks/s/events?maxResults=1000');
  const failed = events.body.events.find((e: { status: string }) => e.status === 'CREATE_FAILED');
  assert.equal(failed.reason, 'InvalidRequest: color **** is out of stock');
  assert.deepEqual(
    [...answers, JSON.stringify(events.body)].filter((a) => a.includes('Jm40') || a.includes('Kq7w')),
    [],
  );
});

test('a parameter diagnostic quotes a long AllowedValues list and a long value only in part', async (t) => {
  const { call } = await watchedService(t);
  const allowed = Array.from({ length: 20_000 }, (_, i) => `v${i}`);
  const template = (parameter: object) =>
    JSON.stringify({
      Parameters: { P: parameter },
      Resources: { W: { Type: WIDGET_TYPE, Properties: { Name: 'w', Color: { Ref: 'P' } } } },
    });
  const values = await call('POST', '/v1/stacks/validate', {
    template: template({ Type: 'String', AllowedValues: allowed }),
    parameters: { P: 'nope' },
  });
  const [d] = values.body.diagnostics;
  assert.equal(d.rule, 'TP4012');
  assert.match(d.message, /"nope" is not one of the AllowedValues \["v0", "v1", .*"v9", and 19,990 more\]/);
  assert.ok(d.message.length < 1024, `${d.message.length} characters`);
  const number = await call('POST', '/v1/stacks/validate', {
    template: template({ Type: 'Number' }),
    parameters: { P: `${'1'.repeat(900_000)}x` },
  });
  const [n] = number.body.diagnostics;
  assert.equal(n.rule, 'TP4012', JSON.stringify(n).slice(0, 400));
  assert.ok(n.message.length < 1024, `${n.message.length} characters`);
  assert.match(n.message, /"1{100}"… \(900,001 characters\) is not a number/);
  const secret = await call('POST', '/v1/stacks/validate', {
    template: template({ Type: 'String', NoEcho: true, AllowedValues: ['a', 'b'] }),
    parameters: { P: 'Hq93-secret' },
  });
  assert.ok(!JSON.stringify(secret.body).includes('Hq93'), JSON.stringify(secret.body));
});

/**
 * `stack validate` reports exactly the template's real problems: a parameter whose value is refused
 * is declared (its references are not TP4007), and a missing parameter is an error when parameters
 * are given (as plan refuses it) and a warning (TP4025) when none are. Over real HTTP and through the
 * CLI as a child process, with the README's example template.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { startTestService } from '../helpers/service.js';
import { exits, typeplaneCli } from './helpers.js';

const TEMPLATE = 'examples/stacks/app.template';
const TEXT = readFileSync(TEMPLATE, 'utf8');

interface Checked {
  valid: boolean;
  diagnostics: { severity: string; rule: string; pointer: string }[];
}

// TP4026 warns of the database's read-only outputs, which the state provider serving these types here never sets.
const summary = (out: Checked) =>
  out.diagnostics
    .filter((d) => d.rule !== 'TP4026')
    .map((d) => `${d.severity} ${d.rule} ${d.pointer}`)
    .sort();

test('validate and plan report a refused or missing parameter once, and nothing false about its references', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  for (const file of ['examples/postgresDatabases.yaml', 'examples/typeplane-local-file.yaml']) {
    const r = await s.call('POST', '/v1/types', readFileSync(file, 'utf8'), {
      'content-type': 'application/yaml',
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  const cli = (...args: string[]) => typeplaneCli(s.url, s.token, ['stack', ...args]);
  const validate = async (body: Record<string, unknown>) => {
    const r = await s.call('POST', '/v1/stacks/validate', { template: TEXT, ...body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as Checked;
  };

  const [short, twoBad, none, empty, noPassword, overSecret] = await Promise.all([
    validate({ parameters: { DatabasePassword: 'short' } }),
    validate({ parameters: { DatabasePassword: 'short', Size: 'XXL' } }),
    validate({}),
    validate({ parameters: {} }),
    validate({ parameters: { DatabaseName: 'orders' } }),
    // Refused by the NoEcho bound (TP4024): as unknown to its references as a value its constraints refuse.
    validate({ parameters: { DatabasePassword: 'x'.repeat(20_000) } }),
  ]);
  assert.deepEqual(summary(short), ['error TP4012 /Parameters/DatabasePassword']);
  assert.equal(short.valid, false);
  assert.deepEqual(summary(twoBad), [
    'error TP4012 /Parameters/DatabasePassword',
    'error TP4012 /Parameters/Size',
  ]);
  assert.deepEqual(summary(overSecret), ['error TP4024 /Parameters/DatabasePassword']);
  // No parameters at all: the template is valid, and the missing value is said, as a warning.
  assert.equal(none.valid, true);
  assert.deepEqual(summary(none), ['warning TP4025 /Parameters/DatabasePassword']);
  // Parameters given: checked as plan checks them.
  for (const given of [empty, noPassword]) {
    assert.equal(given.valid, false);
    assert.deepEqual(summary(given), ['error TP4012 /Parameters/DatabasePassword']);
  }
  const plan = await s.call('POST', '/v1/stacks/orders/plans', {
    template: TEXT,
    parameters: { DatabasePassword: 'short', Size: 'XXL' },
  });
  assert.equal(plan.status, 400, JSON.stringify(plan.body));
  assert.deepEqual(
    summary({ valid: false, diagnostics: (plan.body as { details: Checked['diagnostics'] }).details }),
    ['error TP4012 /Parameters/DatabasePassword', 'error TP4012 /Parameters/Size'],
  );

  const [cliShort, cliNone, cliMissing] = await Promise.all([
    cli('validate', TEMPLATE, '--parameters', 'DatabasePassword=short'),
    cli('validate', TEMPLATE),
    cli('validate', TEMPLATE, '--parameters', 'Size=M'),
  ]);
  exits(cliShort, 1);
  assert.doesNotMatch(cliShort.stdout, /TP4007/);
  assert.equal(cliShort.stdout.match(/ error /g)?.length, 1, cliShort.stdout);
  assert.match(
    cliShort.stdout,
    /^examples\/stacks\/app\.template:\d+:\d+ error TP4012 parameter DatabasePassword/m,
  );
  exits(cliNone, 0);
  assert.match(
    cliNone.stdout,
    /^examples\/stacks\/app\.template:\d+:\d+ warning TP4025 parameter DatabasePassword has no value and no Default: plan and deploy need one/m,
  );
  assert.match(cliNone.stdout, /app\.template: valid/);
  exits(cliMissing, 1);
  assert.match(cliMissing.stdout, /error TP4012 parameter DatabasePassword has no value and no Default/);
  assert.match(cliMissing.stdout, /app\.template: invalid/);
});

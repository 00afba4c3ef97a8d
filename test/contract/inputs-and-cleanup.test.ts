import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractSetupError, readInputs, runContractSuite } from '../../src/contract/index.js';
import type { Model } from '../../src/model/index.js';
import type { HandlerRequest } from '../../src/handler/types.js';
import { widgetProvider, type Widgets } from '../fixtures/broken-providers/widget-provider.js';
import { explain, failedTests, widgetType } from './helpers.js';

function inputsDir(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-contract-inputs-'));
  for (const [name, value] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(value));
  return dir;
}

/** A correct widget provider that records what it was asked and exposes what it holds. */
function recordingWidgets() {
  const requests: { action: string; request: HandlerRequest }[] = [];
  let held: Widgets['items'] | undefined;
  const record = (action: keyof Widgets['correct']) => (request: HandlerRequest, widgets: Widgets) => {
    held = widgets.items;
    requests.push({ action, request });
    return widgets.correct[action](request);
  };
  const provider = widgetProvider('recording', {
    create: record('create'),
    read: record('read'),
    update: record('update'),
    delete: record('delete'),
    list: record('list'),
  });
  return { provider, requests, held: () => held };
}

test('inputs/ files are used instead of generated inputs, in the layout cfn test uses', async () => {
  const type = await widgetType();
  const dir = inputsDir({
    'inputs_1_create.json': { Name: 'alpha', Region: 'eu', Secret: 'correct-horse' },
    'inputs_1_update.json': { Name: 'alpha', Region: 'eu', Size: 'L', Tags: [{ Key: 'team', Value: 'a' }] },
    'inputs_1_invalid.json': { Name: 'Not A Name!', Region: 'mars' },
    'inputs_2_create.json': { Name: 'beta', Region: 'us', Ports: [80, 443] },
    'README.md': 'not an input',
  });
  const inputs = await readInputs(dir, type);
  assert.deepEqual(
    inputs.map((s) => s.name),
    ['inputs_1', 'inputs_2'],
  );
  const widgets = recordingWidgets();
  const report = await runContractSuite({ type, provider: widgets.provider, inputs });
  assert.deepEqual(failedTests(report), [], explain(report));
  assert.deepEqual(report.inputs, { source: 'files', sets: ['inputs_1', 'inputs_2'] });
  const creates = widgets.requests.filter((r) => r.action === 'create').map((r) => r.request.desiredState);
  assert.ok(creates.length > 0);
  assert.deepEqual([...new Set(creates.map((m) => m.Name))].sort(), ['alpha', 'beta']);
  // Defaults applied, as the engine would.
  assert.ok(creates.every((m: Model) => m.Size !== undefined));
  const updates = widgets.requests.filter(
    (r) => r.action === 'update' && r.request.desiredState.Name === 'alpha',
  );
  assert.ok(updates.some((r) => r.request.desiredState.Size === 'L'));
  // Read-only values the provider set travel with the update, as the engine sends them.
  assert.ok(updates.some((r) => r.request.desiredState.Arn === 'arn:widget:eu:alpha'));
  const invalid = report.results.find((r) => r.name === 'invalid inputs refused by the schema')!;
  assert.equal(invalid.status, 'pass');
  const updateRead = report.results.find((r) => r.name === 'update→read')!;
  assert.equal(updateRead.runs, 1, 'one update input file');
});

test('an invalid input the schema accepts fails its test; a create input the schema refuses is a setup error', async () => {
  const type = await widgetType();
  const lenient = await readInputs(
    inputsDir({
      'inputs_1_create.json': { Name: 'gamma', Region: 'ap' },
      'inputs_1_invalid.json': { Name: 'fine', Region: 'eu' },
    }),
    type,
  );
  const report = await runContractSuite({
    type,
    provider: recordingWidgets().provider,
    inputs: lenient,
    only: ['invalid inputs refused by the schema', 'update→read'],
  });
  const result = (name: string) => report.results.find((r) => r.name === name)!;
  assert.equal(result('invalid inputs refused by the schema').status, 'fail');
  assert.equal(result('update→read').status, 'skip');
  assert.equal(result('update→read').reason, 'no inputs_N_update.json');
  await assert.rejects(
    readInputs(inputsDir({ 'inputs_1_create.json': { Name: 'delta' } }), type),
    (e: unknown) =>
      e instanceof ContractSetupError && /inputs_1_create\.json does not match the schema/.test(e.message),
  );
  await assert.rejects(
    readInputs(inputsDir({ 'inputs_1_create.json': { Name: 'delta', Region: 'eu', Arn: 'x' } }), type),
    /sets read-only properties \(\/properties\/Arn\)/,
  );
  await assert.rejects(readInputs(inputsDir({}), type), /holds no inputs_N_create\.json/);
});

test('an interruption stops the tests and still deletes everything the suite created', async () => {
  const type = await widgetType();
  const controller = new AbortController();
  let creates = 0;
  let held: Widgets['items'] | undefined;
  const provider = widgetProvider('interrupted', {
    async create(request, widgets) {
      held = widgets.items;
      const event = await widgets.correct.create(request);
      if (event.status === 'SUCCESS' && ++creates === 12) controller.abort();
      return event;
    },
  });
  const report = await runContractSuite({ type, provider, seed: 3, signal: controller.signal });
  assert.equal(report.interrupted, true);
  assert.equal(report.ok, false);
  assert.ok(report.results.some((r) => r.reason === 'interrupted'));
  assert.ok(held !== undefined && creates >= 12);
  assert.equal(held.size, 0, `left behind: ${[...held.keys()].join(', ')}`);
  assert.deepEqual(report.cleanup.leftovers, []);
});

test('resources a broken delete leaves behind are found and reported', async () => {
  const type = await widgetType();
  const provider = widgetProvider('sticky', {
    async delete() {
      return { status: 'SUCCESS' };
    },
  });
  const report = await runContractSuite({ type, provider, seed: 4, runs: 1, only: ['create→delete'] });
  assert.ok(report.cleanup.leftovers.length > 0);
  assert.match(
    report.cleanup.leftovers[0]!.problem,
    /delete answered SUCCESS, but the resource can still be read/,
  );
  assert.equal(report.ok, false);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_NAMES } from '../../src/contract/index.js';
import { fixtures, root, widgetSchema } from './helpers.js';
import { CLI } from '../helpers/cli.js';

function typeplane(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [...CLI, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const provider = (name: string) => join(fixtures, `${name}.ts`);
const tmp = () => mkdtempSync(join(tmpdir(), 'typeplane-test-cli-'));

/**
 * A strict check that `xml` is well-formed XML 1.0 (elements nest and close, attributes are quoted,
 * every `&` starts an entity, no characters XML cannot hold); returns the element names in order.
 */
function parseXml(xml: string): { name: string; attributes: Record<string, string>; text: string }[] {
  assert.ok(
    !/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.test(xml),
    'characters XML cannot hold',
  );
  const elements: { name: string; attributes: Record<string, string>; text: string }[] = [];
  const stack: string[] = [];
  const entity = /&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;
  const checkText = (text: string) => {
    for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1)) {
      entity.lastIndex = i;
      assert.ok(entity.test(text), `bad entity at ${text.slice(i, i + 12)}`);
    }
    assert.ok(!text.includes('<'), 'raw < in text');
  };
  let rest = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const tag = /^<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>/;
  while (rest.length > 0) {
    const open = rest.indexOf('<');
    if (open < 0) {
      checkText(rest);
      break;
    }
    const text = rest.slice(0, open);
    checkText(text);
    if (elements.length > 0 && text.trim()) elements.at(-1)!.text += text;
    rest = rest.slice(open);
    const m = tag.exec(rest);
    assert.ok(m, `malformed tag at: ${rest.slice(0, 60)}`);
    const [whole, closing, name, attrs, selfClosing] = m;
    if (closing) assert.equal(stack.pop(), name, `</${name}> closes the wrong element`);
    else {
      const attributes: Record<string, string> = {};
      for (const [, key, value] of attrs!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
        checkText(value!);
        assert.ok(!(key! in attributes), `duplicate attribute ${key}`);
        attributes[key!] = value!;
      }
      elements.push({ name: name!, attributes, text: '' });
      if (!selfClosing) stack.push(name!);
    }
    rest = rest.slice(whole.length);
  }
  assert.deepEqual(stack, [], 'unclosed elements');
  return elements;
}

test('a provider that keeps the contract: exit 0, a line per test, valid JUnit XML', () => {
  const junit = join(tmp(), 'reports', 'contract.xml');
  const run = typeplane([
    'test',
    '--schema',
    widgetSchema,
    '--provider',
    provider('correct'),
    '--seed',
    '5',
    '--junit',
    junit,
  ]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /typeplane test: Test::Contract::Widget with provider correct/);
  assert.match(run.stdout, /inputs: generated \(seed 5, 5 per test\)/);
  assert.match(run.stdout, /^ {2}PASS {2}create→read/m);
  assert.match(run.stdout, /^ {2}SKIP {2}invalid inputs refused by the schema — /m);
  // Every test passes but the one that needs an inputs_N_invalid.json.
  assert.match(run.stdout, new RegExp(`${TEST_NAMES.length - 1} passed, 0 failed, 1 skipped in [\\d.]+ s`));
  const elements = parseXml(readFileSync(junit, 'utf8'));
  const cases = elements.filter((e) => e.name === 'testcase');
  assert.equal(cases.length, TEST_NAMES.length);
  assert.ok(cases.some((c) => c.attributes.name === 'create→read'));
  const suite = elements.find((e) => e.name === 'testsuite')!;
  assert.deepEqual(
    [suite.attributes.tests, suite.attributes.failures, suite.attributes.errors, suite.attributes.skipped],
    [String(TEST_NAMES.length), '0', '0', '1'],
  );
});

test('a broken provider: exit 1, the failing test with request, response and diff; JUnit has the failure', () => {
  const junit = join(tmp(), 'contract.xml');
  const run = typeplane([
    'test',
    '--schema',
    widgetSchema,
    '--provider',
    provider('read-returns-write-only'),
    '--seed',
    '5',
    '--runs',
    '3',
    '--junit',
    junit,
  ]);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /^ {2}FAIL {2}create→read/m);
  assert.match(run.stdout, /✗ read returned write-only properties: \/properties\/Secret/);
  assert.match(run.stdout, /request: {2}read \{"desiredState":\{"Name":"/);
  assert.match(run.stdout, /response: SUCCESS \{"resourceModel":/);
  assert.match(run.stdout, /^ {12}\+ {3}"Secret": /m);
  assert.match(run.stdout, /input \(after \d+ runs, shrunk \d+ times\): \{/);
  assert.match(run.stdout, /reproduce with: --seed 5 --runs 3/);
  const elements = parseXml(readFileSync(junit, 'utf8'));
  const failure = elements.find((e) => e.name === 'failure')!;
  assert.match(failure.attributes.message!, /read returned write-only properties/);
  assert.match(failure.text, /request: {2}read/);
  const suite = elements.find((e) => e.name === 'testsuite')!;
  // create→read, and 'write-only values never returned', which judges every answer.
  assert.equal(suite.attributes.failures, '2');
});

test('--format json prints the whole report as JSON', () => {
  const run = typeplane([
    'test',
    '--schema',
    widgetSchema,
    '--provider',
    provider('delete-twice-succeeds'),
    '--seed',
    '9',
    '--format',
    'json',
    '--only',
    'create->delete',
    'delete->delete',
  ]);
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.typeName, 'Test::Contract::Widget');
  assert.deepEqual(report.inputs, { source: 'generated', seed: 9, runs: 5 });
  assert.deepEqual(
    report.results.map((r: any) => [r.name, r.status]),
    [
      ['create→delete', 'pass'],
      ['delete→delete', 'fail'],
    ],
  );
  const failure = report.results[1].failures[0];
  assert.equal(failure.action, 'delete');
  assert.deepEqual(failure.expected, { status: 'FAILED', errorCode: 'NotFound' });
  assert.equal(failure.response.status, 'SUCCESS');
  assert.equal(report.ok, false);
});

test('the same seed reproduces the same run', () => {
  const args = [
    'test',
    '--schema',
    widgetSchema,
    '--provider',
    provider('update-appends-lists'),
    '--seed',
    '77',
    '--format',
    'json',
    '--only',
    'update→read',
  ];
  const first = JSON.parse(typeplane(args).stdout);
  const second = JSON.parse(typeplane(args).stdout);
  assert.equal(first.results[0].status, 'fail');
  assert.deepEqual(first.results[0].input, second.results[0].input);
  assert.deepEqual(first.results[0].failures[0].request, {
    ...second.results[0].failures[0].request,
    clientRequestToken: first.results[0].failures[0].request.clientRequestToken,
  });
});

test('--inputs reads the inputs_N_*.json files', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'inputs_1_create.json'), JSON.stringify({ Name: 'from-file', Region: 'us' }));
  writeFileSync(
    join(dir, 'inputs_1_update.json'),
    JSON.stringify({ Name: 'from-file', Region: 'us', Size: 'M' }),
  );
  writeFileSync(join(dir, 'inputs_1_invalid.json'), JSON.stringify({ Name: 'FROM FILE' }));
  const run = typeplane([
    'test',
    '--schema',
    widgetSchema,
    '--provider',
    provider('correct'),
    '--inputs',
    dir,
  ]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /inputs: from files \(inputs_1\)/);
  assert.match(run.stdout, /PASS {2}invalid inputs refused by the schema/);
});

test('usage and setup errors exit 2 with a message', () => {
  const both = typeplane([
    'test',
    '--schema',
    widgetSchema,
    '--provider',
    provider('correct'),
    '--endpoint',
    'http://127.0.0.1:9/',
  ]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /exactly one of --provider <module>, --endpoint <url> and --api <url>/);
  const noSchema = typeplane([
    'test',
    '--schema',
    join(tmp(), 'missing.json'),
    '--provider',
    provider('correct'),
  ]);
  assert.equal(noSchema.code, 2);
  assert.match(noSchema.stderr, /cannot read the schema .*missing\.json: ENOENT/);
  const wrongType = typeplane([
    'test',
    '--schema',
    join(root, 'examples/queues.yaml'),
    '--provider',
    provider('correct'),
  ]);
  assert.equal(wrongType.code, 2);
  assert.match(wrongType.stderr, /serves Test::Contract::Widget, not Typeplane\.Messaging\/queues/);
  const badRuns = typeplane([
    'test',
    '--schema',
    widgetSchema,
    '--provider',
    provider('correct'),
    '--runs',
    '0',
  ]);
  assert.equal(badRuns.code, 2);
  assert.match(badRuns.stderr, /--runs must be a whole number from 1/);
  const unknown = typeplane([
    'test',
    '--schema',
    widgetSchema,
    '--provider',
    provider('correct'),
    '--only',
    'read→read',
  ]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown tests: read→read/);
});

test('an --endpoint that cannot be reached is a setup error (exit 2)', () => {
  const run = typeplane(['test', '--schema', widgetSchema, '--endpoint', 'http://127.0.0.1:9/']);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.match(run.stderr, /cannot reach the provider at http:\/\/127\.0\.0\.1:9\/: .*connection refused/);
});

test('Ctrl-C stops the tests, deletes what they created, and exits 130', async () => {
  const state = join(tmp(), 'widgets.json');
  const child = spawn(
    process.execPath,
    [
      ...CLI,
      'test',
      '--schema',
      widgetSchema,
      '--provider',
      join(root, 'test/contract/fixtures/persistent-widgets.ts'),
      '--seed',
      '3',
    ],
    { cwd: root, env: { ...process.env, NO_COLOR: '1', WIDGETS_FILE: state } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // 'close', not 'exit': what it printed last may still be unread when it exits.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  // Wait until a widget exists, then interrupt.
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (existsSync(state) && (JSON.parse(readFileSync(state, 'utf8')) as string[]).length > 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok((JSON.parse(readFileSync(state, 'utf8')) as string[]).length > 0, 'a widget was created');
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 130, stdout + stderr);
  assert.match(stderr, /interrupted: stopping the tests and deleting what they created/);
  assert.match(stdout, /interrupted: the remaining tests did not run/);
  assert.deepEqual(JSON.parse(readFileSync(state, 'utf8')), [], 'every widget was deleted');
});

/**
 * The CLI reaches what the API offers: list filters, create-or-replace, a resource's references,
 * contract report upload, which tokens carry AWS access keys, and --query (JMESPath) on what a
 * command prints. Each runs `typeplane` as a child process against a real server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WIDGET, WIDGET_TYPE, startTestService, tempDir, type TestService } from '../helpers/service.js';
import { exits, runCli } from '../helpers/cli.js';
import { runContractSuite } from '../../src/contract/index.js';
import { fixture, widgetType } from '../contract/helpers.js';

const DB = 'Test::Data::Db';
const APP = 'Test::App::Service';
const CONTRACT = 'Test::Contract::Widget';
const schema = (typeName: string, properties: Record<string, unknown>) =>
  JSON.stringify({
    typeName,
    description: `${typeName} for tests.`,
    properties,
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
  });
let svc: TestService;
const files = tempDir();

before(async () => {
  svc = await startTestService({ providerDefinitions: [await fixture('correct')] });
  for (const doc of [
    WIDGET,
    schema(DB, { Name: { type: 'string' } }),
    schema(APP, {
      Name: { type: 'string' },
      Database: { type: 'string', relationshipRef: { typeName: DB, propertyPath: '/properties/Name' } },
    }),
  ])
    assert.equal((await svc.call('POST', '/v1/types', doc)).status, 201);
  const create = async (typeName: string, desiredState: Record<string, unknown>) =>
    assert.equal(
      (await svc.call('POST', `/v1/resources/${encodeURIComponent(typeName)}?wait=5`, { desiredState })).body
        .progressEvent.operationStatus,
      'SUCCESS',
    );
  await create(WIDGET_TYPE, { Name: 'small', Size: 'S', Color: 'red' });
  await create(WIDGET_TYPE, { Name: 'large-red', Size: 'L', Color: 'red' });
  await create(WIDGET_TYPE, { Name: 'large-blue', Size: 'L', Color: 'blue' });
  await create(DB, { Name: 'orders' });
  await create(APP, { Name: 'shop', Database: 'orders' });
});
after(() => svc.close());

const typeplane = (args: string[]) =>
  runCli(args, {
    env: { ...process.env, NO_COLOR: '1', TYPEPLANE_TOKEN: svc.token, TYPEPLANE_ENDPOINT: svc.url },
  });
const identifiers = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(/\s+/)[0]);

test('resource list --filter lists only resources whose properties equal every filter', async () => {
  const large = await typeplane(['resource', 'list', WIDGET_TYPE, '--filter', 'Size=L']);
  exits(large, 0);
  assert.deepEqual(identifiers(large.stdout).sort(), ['large-blue', 'large-red']);
  const both = await typeplane([
    'resource',
    'list',
    WIDGET_TYPE,
    '--filter',
    'Size=L',
    '--filter',
    'Color=red',
  ]);
  exits(both, 0);
  assert.deepEqual(identifiers(both.stdout), ['large-red']);

  const malformed = await typeplane(['resource', 'list', WIDGET_TYPE, '--filter', 'Size']);
  exits(malformed, 2);
  assert.match(malformed.stderr, /--filter takes <Property>=<value>, e\.g\. --filter Size=L, not 'Size'/);
  const unknown = await typeplane(['resource', 'list', WIDGET_TYPE, '--filter', 'Sise=L']);
  exits(unknown, 1);
  assert.match(unknown.stderr, /InvalidRequest.*Sise/);
});

test('resource put creates a resource, then replaces its desired state whole', async () => {
  const made = await typeplane([
    'resource',
    'put',
    WIDGET_TYPE,
    'putme',
    '--properties',
    '{"Name": "putme", "Size": "M", "Color": "green"}',
    '--wait',
    '10',
  ]);
  exits(made, 0);
  assert.match(made.stdout, /^operation\s+CREATE$/m);
  assert.match(made.stdout, /^status\s+SUCCESS$/m);
  const file = join(files, 'putme.yaml');
  writeFileSync(file, 'Name: putme\nSize: L\n');
  const replaced = await typeplane(['resource', 'put', WIDGET_TYPE, 'putme', '--file', file, '--wait', '10']);
  exits(replaced, 0);
  assert.match(replaced.stdout, /^operation\s+UPDATE$/m);
  const got = await svc.call('GET', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}/putme`);
  assert.deepEqual(got.body.properties, { Name: 'putme', Size: 'L' }, 'Color was removed');

  const neither = await typeplane(['resource', 'put', WIDGET_TYPE, 'putme']);
  exits(neither, 2);
  assert.match(neither.stderr, /exactly one of --properties <json> or --file <path>/);
});

test('resource references shows what a resource refers to and what refers to it', async () => {
  const app = await typeplane(['resource', 'references', APP, 'shop']);
  exits(app, 0);
  assert.match(app.stdout, /^DIRECTION\s+TYPE\s+IDENTIFIER$/m);
  assert.match(app.stdout, /^refers to\s+Test::Data::Db\s+orders$/m);
  const db = await typeplane(['resource', 'references', DB, 'orders', '-o', 'json']);
  exits(db, 0);
  assert.deepEqual(JSON.parse(db.stdout).referencedBy, [{ typeName: APP, identifier: 'shop' }]);
  const alone = await typeplane(['resource', 'references', WIDGET_TYPE, 'small']);
  exits(alone, 0);
  assert.match(alone.stdout, /refers to nothing and nothing refers to it/);
});

test("type report upload attaches a 'typeplane test -o json' report to the report's type", async () => {
  const report = await runContractSuite({
    type: await widgetType(),
    provider: await fixture('correct'),
    seed: 1,
    runs: 1,
  });
  const file = join(files, 'report.json');
  writeFileSync(file, JSON.stringify(report));
  const before = await svc.call('GET', `/v1/types/${encodeURIComponent(CONTRACT)}`);
  assert.equal(before.body.contract, null);
  const uploaded = await typeplane(['type', 'report', 'upload', file]);
  exits(uploaded, 0);
  assert.match(uploaded.stdout, /attached the contract report to Test::Contract::Widget \(passed\)/);
  const after = await svc.call('GET', `/v1/types/${encodeURIComponent(CONTRACT)}`);
  assert.equal(after.body.contract.passed, true);

  writeFileSync(join(files, 'not-a-report.json'), '{"ok": true}');
  const wrong = await typeplane(['type', 'report', 'upload', join(files, 'not-a-report.json')]);
  exits(wrong, 2);
  assert.match(wrong.stderr, /names no typeName/);
});

test('token list shows which tokens carry an AWS access key', async () => {
  const keyed = await svc.call('POST', '/v1/tokens', { role: 'reader', awsKeys: true, description: 'keyed' });
  await svc.call('POST', '/v1/tokens', { role: 'reader', description: 'plain' });
  const list = await typeplane(['token', 'list']);
  exits(list, 0);
  assert.match(list.stdout, /^ID\s+ROLE\s+TYPES\s+AWS ACCESS KEY\s+RATE\s+CREATED\s+DESCRIPTION$/m);
  assert.match(
    list.stdout,
    new RegExp(`^${keyed.body.id}\\s+reader\\s+\\*\\s+${keyed.body.accessKeyId}\\s+-\\s+\\S+\\s+keyed$`, 'm'),
  );
  assert.match(list.stdout, /^\S+\s+reader\s+\*\s+-\s+-\s+\S+\s+plain$/m);
});

test('--query prints what a JMESPath expression selects: text by default, JSON or YAML with -o', async () => {
  const size = await typeplane(['resource', 'get', WIDGET_TYPE, 'large-red', '--query', 'properties.Size']);
  exits(size, 0);
  assert.equal(size.stdout, 'L\n');
  const names = await typeplane([
    'resource',
    'list',
    WIDGET_TYPE,
    '--filter',
    'Color=red',
    '--query',
    'resourceDescriptions[].identifier',
  ]);
  exits(names, 0);
  assert.deepEqual(names.stdout.trim().split('\n').sort(), ['large-red', 'small']);
  const rows = await typeplane([
    'resource',
    'list',
    WIDGET_TYPE,
    '--filter',
    'Color=red',
    '--query',
    'resourceDescriptions[].[identifier, properties.Size]',
  ]);
  exits(rows, 0);
  assert.deepEqual(rows.stdout.trim().split('\n').sort(), ['large-red\tL', 'small\tS']);
  const json = await typeplane([
    'resource',
    'get',
    WIDGET_TYPE,
    'small',
    '--query',
    'properties',
    '-o',
    'json',
  ]);
  exits(json, 0);
  assert.deepEqual(JSON.parse(json.stdout), { Name: 'small', Size: 'S', Color: 'red' });
  const yaml = await typeplane([
    'resource',
    'get',
    WIDGET_TYPE,
    'small',
    '--query',
    'properties.Color',
    '-o',
    'yaml',
  ]);
  exits(yaml, 0);
  assert.equal(yaml.stdout, 'red\n');
  const keyed = await typeplane(['token', 'list', '--query', 'length(tokens[?accessKeyId])']);
  exits(keyed, 0);
  assert.match(keyed.stdout, /^\d+\n$/);
});

test('--query with an expression that does not parse is a usage error before anything is sent', async () => {
  const bad = await typeplane([
    'resource',
    'create',
    WIDGET_TYPE,
    '--properties',
    '{"Name": "never"}',
    '--query',
    'progressEvent.[',
  ]);
  exits(bad, 2);
  assert.match(bad.stderr, /--query 'progressEvent\.\[' is not a JMESPath expression/);
  const got = await svc.call('GET', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}/never`);
  assert.equal(got.status, 404, 'nothing was created');
  const wrongType = await typeplane([
    'resource',
    'get',
    WIDGET_TYPE,
    'small',
    '--query',
    'length(properties.Count)',
  ]);
  exits(wrongType, 2);
  assert.match(
    wrongType.stderr,
    /--query 'length\(properties\.Count\)': (TypeError: )?length\(\) expected argument 1/,
  );
});

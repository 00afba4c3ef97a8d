/**
 * What a new user meets in the first hour: how --wait ends, one meaning of -o, usage errors that
 * exit 2 and name the flag, registering folders, tables where tables are claimed, empty lists,
 * Examples in every help, and messages that say what went wrong once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineProvider, progress } from '../../src/providers/sdk.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';
import { CLI, exits, runCli, type CliRun } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SLOW = 'Test::FirstUse::Slow';
const PG = 'Typeplane.Data/postgresDatabases';

let svc: TestService;
let types: string;

before(async () => {
  types = tempDir('typeplane-first-use-');
  // A provider whose creates never finish while a test waits: IN_PROGRESS, called back in a minute.
  writeFileSync(
    join(types, 'slow.json'),
    JSON.stringify({
      typeName: SLOW,
      description: 'Creates that take their time.',
      properties: { Name: { type: 'string' } },
      additionalProperties: false,
      required: ['Name'],
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
    }),
  );
  const slow = defineProvider({
    name: 'slow',
    types: [SLOW],
    schemas: [join(types, 'slow.json')],
    create: async () =>
      progress.inProgress(undefined, { callbackContext: { step: 1 }, callbackDelaySeconds: 60 }),
    read: async () => progress.failed('NotFound', 'never made'),
    update: async () => progress.failed('NotFound', 'never made'),
    delete: async () => progress.failed('NotFound', 'never made'),
    list: async () => progress.list([], null),
  });
  // The types `npm start` registers.
  svc = await startTestService({
    providerDefinitions: [slow],
    types: [join(root, 'examples/postgresDatabases.yaml'), join(root, 'examples/queues.yaml')],
  });
});
after(() => svc.close());

/** The CLI against the test server; `onStart` gets the child (to interrupt it). */
function typeplane(args: string[], onStart?: (child: ChildProcess) => void): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TYPEPLANE_TOKEN: svc.token };
  env.TYPEPLANE_ENDPOINT = svc.url;
  return runCli(args, { env, ...(onStart ? { onStart } : {}) });
}

test('--wait that runs out with the operation still going exits 3 and says how to follow it', async () => {
  const run = await typeplane(['resource', 'create', SLOW, '--properties', '{"Name": "a"}', '--wait', '1']);
  exits(run, 3);
  assert.match(run.stdout, /^status\s+IN_PROGRESS$/m);
  const token = /^request token\s+(\S+)$/m.exec(run.stdout)?.[1];
  assert.ok(token);
  assert.equal(
    run.stderr,
    `note: still IN_PROGRESS after 1 s; follow it with 'typeplane request get ${token} --wait'\n`,
  );
  // The exit codes are in the help.
  const help = await typeplane(['resource', 'create', '--help']);
  assert.match(help.stdout, /3 --wait ran out with the operation still PENDING or\s+IN_PROGRESS/);
});

test('Ctrl-C while waiting stops the waiting, not the operation, and prints the request token', async () => {
  let child: ReturnType<typeof spawn> | undefined;
  const running = typeplane(
    ['resource', 'create', SLOW, '--properties', '{"Name": "b"}', '--wait', '60'],
    (c) => {
      child = c;
    },
  );
  // Once the operation exists, the CLI is waiting on it.
  let token: string | undefined;
  for (let i = 0; i < 200 && !token; i++) {
    const { body } = await svc.call('GET', '/v1/requests?maxResults=100');
    token = (body.progressEvents as { requestToken: string; identifier?: string }[]).find(
      (e) => e.identifier === 'b',
    )?.requestToken;
    if (!token) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(token, 'the create was accepted');
  await new Promise((r) => setTimeout(r, 700));
  child!.kill('SIGINT');
  const run = await running;
  exits(run, 130);
  assert.match(
    run.stderr,
    new RegExp(
      `interrupted: stopped waiting; the operation goes on\\. Follow it with 'typeplane request get ${token} --wait'`,
    ),
  );
  const { body } = await svc.call('GET', `/v1/requests/${token}`);
  assert.equal(body.progressEvent.operationStatus, 'IN_PROGRESS', 'the operation was not cancelled');
});

test('-o is the output format everywhere; a file is --out', async () => {
  const dir = tempDir('typeplane-first-use-out-');
  const [generate, validateYaml, validateJson, testJson] = await Promise.all([
    typeplane(['generate', 'examples/postgresDatabases.yaml', '-o', 'json']),
    typeplane(['validate', 'examples/queues.yaml', '-o', 'yaml']),
    typeplane(['validate', 'examples/queues.yaml', '--output', 'json']),
    typeplane(['test', '--schema', 'nope.json', '--provider', 'nope.ts', '-o', 'xml']),
  ]);
  // generate has no -o: nothing is written to a file called 'json'.
  exits(generate, 2);
  assert.match(generate.stderr, /unknown option '-o'/);
  assert.equal(existsSync(join(root, 'json')), false);
  exits(validateYaml, 0);
  assert.match(validateYaml.stdout, /^valid: true$/m);
  exits(validateJson, 0);
  assert.equal((JSON.parse(validateJson.stdout) as { valid: boolean }).valid, true);
  exits(testJson, 2);
  assert.match(testJson.stderr, /option '-o, --output <format>' argument 'xml' is invalid/);
  const out = join(dir, 'types.ts');
  exits(await typeplane(['generate', 'examples/postgresDatabases.yaml', '--out', out]), 0);
  assert.ok(existsSync(out));
});

test('usage errors exit 2 and name the flag', async () => {
  const runs = await Promise.all([
    typeplane(['resource', 'list', PG, '--max-results', 'abc']),
    typeplane(['request', 'list', '--max-results', '0']),
    typeplane(['resource', 'create', PG, '--properties', '{bad']),
    typeplane(['resource', 'delete', PG, 'x', '--wait', 'soon']),
    typeplane(['serve', '--log-level', 'loud']),
    typeplane(['request', 'get', 'some-token', '--client-token', 'x']),
    typeplane(['test', '--endpoint', 'http://127.0.0.1:9/']),
  ]);
  const [maxResults, zero, properties, wait, logLevel, clientToken, schemaless] = runs;
  for (const run of runs) {
    exits(run, 2);
    assert.equal(run.stdout, '');
    assert.doesNotMatch(run.stderr, /InvalidRequest|maxResults/, 'the flag, not the API parameter');
  }
  assert.equal(maxResults!.stderr, "error: --max-results takes a whole number from 1 to 1000, not 'abc'\n");
  assert.equal(zero!.stderr, "error: --max-results takes a whole number from 1 to 1000, not '0'\n");
  assert.match(properties!.stderr, /^error: --properties is not valid JSON: /);
  assert.equal(wait!.stderr, "error: --wait takes a number of seconds, not 'soon'\n");
  assert.match(logLevel!.stderr, /^error: --log-level must be one of fatal, error, warn, info/);
  // --client-token belongs to the commands that start an operation.
  assert.match(clientToken!.stderr, /unknown option '--client-token'/);
  assert.match(schemaless!.stderr, /^error: --schema <file> is needed with --endpoint/);
});

test('a usage error prints its line and where the help is, not the whole help; a misspelt flag gets "did you mean"', async () => {
  const [port, misspelt, command, missing] = await Promise.all([
    typeplane(['serve', '--port', 'abc']),
    typeplane(['serve', '--prot', '4781']),
    typeplane(['stak', 'list']),
    typeplane(['stack', 'deploy', 'orders']),
  ]);
  for (const run of [port, misspelt, command, missing]) {
    exits(run, 2);
    assert.equal(run.stdout, '');
    assert.doesNotMatch(run.stderr, /Usage:|Options:/);
  }
  assert.equal(
    port!.stderr,
    "error: port must be a whole number from 0 to 65535, not 'abc'\n(see 'typeplane serve --help')\n",
  );
  assert.equal(
    misspelt!.stderr,
    "error: unknown option '--prot'\n(Did you mean --port?)\n(see 'typeplane serve --help')\n",
  );
  assert.equal(
    command!.stderr,
    "error: unknown command 'stak'\n(Did you mean stack?)\n(see 'typeplane --help')\n",
  );
  assert.equal(
    missing!.stderr,
    "error: missing required argument 'template'\n(see 'typeplane stack deploy --help')\n",
  );
});

test('type register takes folders and several files; one refused document does not stop the others', async () => {
  const dir = tempDir('typeplane-first-use-register-');
  mkdirSync(join(dir, 'nested'));
  const doc = (name: string) =>
    JSON.stringify({
      typeName: `Test::FirstUse::${name}`,
      description: name,
      properties: { Id: { type: 'string' } },
      additionalProperties: false,
      primaryIdentifier: ['/properties/Id'],
      createOnlyProperties: ['/properties/Id'],
      required: ['Id'],
    });
  writeFileSync(join(dir, 'one.json'), doc('One'));
  writeFileSync(join(dir, 'nested/two.json'), doc('Two'));
  writeFileSync(join(dir, 'three.json'), doc('Three'));
  writeFileSync(join(dir, 'readme.txt'), 'not a type document');
  // One after the other: the second registers three.json again, which the first registered.
  const folderAndFile = await typeplane(['type', 'register', dir, 'examples/queues.yaml']);
  const withBad = await typeplane(['type', 'register', join(dir, 'three.json'), 'package.json']);
  exits(folderAndFile, 0);
  assert.deepEqual(folderAndFile.stdout.trimEnd().split('\n').sort(), [
    // Registered already when the server started: the same document again changes nothing.
    'Typeplane.Messaging/queues@2025-01-01-preview unchanged (version 1)',
    'registered Test::FirstUse::One (version 1)',
    'registered Test::FirstUse::Three (version 1)',
    'registered Test::FirstUse::Two (version 1)',
  ]);
  exits(withBad, 1);
  assert.match(withBad.stdout, /^Test::FirstUse::Three unchanged \(version 1\)$/m);
  assert.match(withBad.stderr, /^package\.json: error: InvalidRequest: the type document is invalid/m);
});

test('lists: empty ones say so; resource list shows scalar columns, -o wide shows all', async () => {
  const type = 'Test::FirstUse::Listed';
  await svc.call('POST', '/v1/types', {
    typeName: type,
    description: 'Listed',
    properties: {
      Id: { type: 'string' },
      Size: { type: 'integer' },
      Tier: { type: 'string' },
      Tags: { type: 'array', items: { type: 'string' } },
    },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Id'],
  });
  const empty = await typeplane(['resource', 'list', type]);
  exits(empty, 0);
  assert.equal(empty.stdout, '');
  assert.equal(empty.stderr, `No resources found of ${type}.\n`);
  const emptyJson = await typeplane(['resource', 'list', type, '-o', 'json']);
  assert.deepEqual(JSON.parse(emptyJson.stdout), { resourceDescriptions: [], nextToken: null });

  exits(
    await typeplane([
      'resource',
      'create',
      type,
      '--properties',
      '{"Id": "a", "Size": 3, "Tier": "gold", "Tags": ["x", "y"]}',
      '--wait',
    ]),
    0,
  );
  const [table, wide] = await Promise.all([
    typeplane(['resource', 'list', type]),
    typeplane(['resource', 'list', type, '-o', 'wide']),
  ]);
  exits(table, 0);
  assert.equal(table.stdout, 'IDENTIFIER   ID   SIZE   TIER\na            a    3      gold\n');
  exits(wide, 0);
  assert.equal(
    wide.stdout,
    'IDENTIFIER   ID   SIZE   TIER   TAGS\na            a    3      gold   ["x","y"]\n',
  );
});

test('every command has an Examples section in its help', async () => {
  const commands = [
    ['validate'],
    ['serve'],
    ['generate'],
    ['generate', 'bicep'],
    ['generate', 'json-schema'],
    ['type', 'register'],
    ['type', 'list'],
    ['type', 'show'],
    ['type', 'delete'],
    ['resource', 'create'],
    ['resource', 'get'],
    ['resource', 'update'],
    ['resource', 'delete'],
    ['resource', 'list'],
    ['request', 'get'],
    ['request', 'list'],
    ['request', 'cancel'],
    ['token', 'create'],
    ['token', 'list'],
    ['token', 'revoke'],
    ['backup'],
    ['restore'],
    ['test'],
    ['diff'],
  ];
  // Every stack subcommand, as its help lists them (one added later is held to the same).
  const stackHelp = await typeplane(['stack', '--help']);
  const listed = stackHelp.stdout.slice(stackHelp.stdout.indexOf('Commands:'));
  const subcommands = [...listed.matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1]!);
  assert.ok(subcommands.includes('deploy') && subcommands.includes('drift'), stackHelp.stdout);
  for (const sub of subcommands) if (sub !== 'help') commands.push(['stack', sub]);
  const runs = await Promise.all(commands.map((c) => typeplane([...c, '--help'])));
  runs.forEach((run, i) => {
    exits(run, 0);
    assert.match(run.stdout, /\nExamples:\n {2}\$ typeplane /, commands[i]!.join(' '));
  });
});

test('a mistyped type name: the CLI says "did you mean …?" once', async () => {
  const run = await typeplane(['resource', 'list', 'Typeplane.Data/postgresDatabase']);
  exits(run, 1);
  assert.match(run.stderr, /^error: NotFound: .*did you mean Typeplane\.Data\/postgresDatabases\?/);
  assert.equal(run.stderr.match(/did you mean/g)?.length, 1, run.stderr);
});

test('an endpoint that is not an HTTP server is said so', async () => {
  const server = createTcpServer((socket) => socket.end('SSH-2.0-not-http\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as { port: number };
    const env = {
      ...process.env,
      TYPEPLANE_TOKEN: svc.token,
      TYPEPLANE_ENDPOINT: `http://127.0.0.1:${port}`,
    };
    const child = spawn(process.execPath, [...CLI, 'type', 'list'], { cwd: root, env });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((resolve) => child.once('close', resolve));
    assert.equal(code, 1);
    assert.match(
      stderr,
      new RegExp(
        `^error: NetworkFailure: http://127\\.0\\.0\\.1:${port} closed the connection without an HTTP answer; is it a Typeplane server`,
      ),
    );
    assert.doesNotMatch(stderr, /UND_ERR/);
  } finally {
    server.close();
  }
});

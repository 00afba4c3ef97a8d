/**
 * `typeplane type|resource|request …` and `typeplane serve`, driven as child processes against one
 * real server (in-process, loopback, temp SQLite). Each CLI child costs about a second of tsx start-up,
 * so independent calls run concurrently and setup the CLI is not tested on goes straight to HTTP.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';
import { CLI, exits, runCli, type CliRun } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

const PG = 'Typeplane.Data/postgresDatabases';
const PGSQL = 'Typeplane::PostgreSQL::Database';
const PASSWORD = 'correct-horse-battery';
const STACK_FRAME = /^\s+at /m;

let svc: TestService;

before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

/**
 * Run the CLI. `--endpoint <the test server>` is appended unless `endpoint` says otherwise (`null`: none).
 * TYPEPLANE_TOKEN is the test server's admin token unless `env` says otherwise.
 * TYPEPLANE_ENDPOINT / TYPEPLANE_PORT from the outer environment never leak in.
 */
function typeplane(
  args: string[],
  options: { endpoint?: string | null; env?: Record<string, string> } = {},
): Promise<CliRun> {
  const endpoint = options.endpoint === undefined ? svc.url : options.endpoint;
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.TYPEPLANE_ENDPOINT;
  delete env.TYPEPLANE_PORT;
  env.TYPEPLANE_TOKEN = svc.token;
  Object.assign(env, options.env);
  return runCli([...args, ...(endpoint === null ? [] : ['--endpoint', endpoint])], {
    env,
    timeoutMs: 30_000,
  });
}

/** The value of `label` in the key/value table printed for a progress event. */
function field(stdout: string, label: string): string | undefined {
  return new RegExp(`^${label}\\s+(.*)$`, 'm').exec(stdout)?.[1];
}

function noSecret(...runs: CliRun[]): void {
  for (const run of runs)
    assert.ok(
      !run.stdout.includes(PASSWORD) && !run.stderr.includes(PASSWORD),
      `password leaked:\n${run.stdout}\n${run.stderr}`,
    );
}

/** Request tokens of operations the tests below look up again. */
const tokens: { create?: string; update?: string; delete?: string } = {};

test('type register takes a YAML manifest and a JSON resource schema; list, show and delete', async () => {
  const [manifest, schema] = await Promise.all([
    typeplane(['type', 'register', 'examples/postgresDatabases.yaml']),
    typeplane(['type', 'register', 'examples/typeplane-postgresql-database.json']),
  ]);
  exits(manifest, 0);
  assert.equal(
    manifest.stdout,
    'registered Typeplane.Data/postgresDatabases@2025-01-01-preview (version 1)\n',
  );
  exits(schema, 0);
  assert.equal(schema.stdout, 'registered Typeplane::PostgreSQL::Database (version 1)\n');

  const [list, showJson, showDefault, deleteUnknown, invalidDocument, missingFile] = await Promise.all([
    typeplane(['type', 'list']),
    typeplane(['type', 'show', PG, '-o', 'json']),
    typeplane(['type', 'show', PGSQL]),
    typeplane(['type', 'delete', 'Nope::Such::Type']),
    typeplane(['type', 'register', 'package.json']),
    typeplane(['type', 'register', 'no/such/types.yaml']),
  ]);

  exits(list, 0);
  const lines = list.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^TYPE\s+VERSION\s+DIALECT\s+DESCRIPTION$/);
  assert.ok(
    lines.some((l) =>
      /^Typeplane\.Data\/postgresDatabases@2025-01-01-preview\s+1\s+manifest\s+A PostgreSQL database/.test(l),
    ),
    list.stdout,
  );
  assert.ok(
    lines.some((l) => /^Typeplane::PostgreSQL::Database\s+1\s+resource-schema\s+/.test(l)),
    list.stdout,
  );

  exits(showJson, 0);
  const shown = JSON.parse(showJson.stdout) as {
    typeName: string;
    dialect: string;
    primaryIdentifier: string[];
    schema: { properties: Record<string, unknown> };
  };
  assert.equal(shown.typeName, PG);
  assert.equal(shown.dialect, 'manifest');
  assert.deepEqual(shown.primaryIdentifier, ['/properties/name']);
  assert.ok('name' in shown.schema.properties && 'password' in shown.schema.properties);

  // Without -o, `show` prints a table of what a user needs (the schema itself with -o yaml|json).
  exits(showDefault, 0);
  assert.equal(field(showDefault.stdout, 'type'), PGSQL);
  assert.equal(field(showDefault.stdout, 'dialect'), 'resource-schema');
  assert.equal(field(showDefault.stdout, 'identifier'), '/properties/Name');
  assert.match(field(showDefault.stdout, 'properties') ?? '', /\bName\b/);

  exits(deleteUnknown, 1);
  assert.match(deleteUnknown.stderr, /^error: NotFound: type Nope::Such::Type is not registered/m);
  assert.equal(deleteUnknown.stdout, '');

  // Diagnostics name the local file, not the server's 'request body'.
  exits(invalidDocument, 1);
  assert.match(invalidDocument.stderr, /^error: InvalidRequest: the type document is invalid/m);
  assert.match(invalidDocument.stderr, /^ {2}- package\.json:1:1 error TP1008 /m);

  exits(missingFile, 2);
  assert.equal(missingFile.stderr, 'error: no such file or folder: no/such/types.yaml\n');
});

test('resource create: --properties, -o json, --file, invalid input and option misuse', async () => {
  const dir = tempDir('typeplane-cli-api-');
  writeFileSync(join(dir, 'db.yaml'), `# desired state\nname: from-file\nsize: XL\npassword: ${PASSWORD}\n`);
  writeFileSync(join(dir, 'broken.yaml'), 'name: [oops\n');
  const create = (...rest: string[]) => typeplane(['resource', 'create', PG, ...rest]);
  const [table, json, file, invalid, neither, both, badJson, badYaml] = await Promise.all([
    create('--properties', JSON.stringify({ name: 'orders', size: 'M', password: PASSWORD }), '--wait'),
    create(
      '--properties',
      JSON.stringify({ name: 'orders-json', password: PASSWORD }),
      '--wait',
      '-o',
      'json',
    ),
    create('--file', join(dir, 'db.yaml'), '--wait', '-o', 'yaml'),
    create('--properties', JSON.stringify({ name: 'too-big', size: 'XXL', password: PASSWORD }), '--wait'),
    create('--wait'),
    create('--properties', '{"name":"x"}', '--file', join(dir, 'db.yaml')),
    create('--properties', '{name: x}'),
    create('--file', join(dir, 'broken.yaml')),
  ]);
  noSecret(table, json, file, invalid);

  exits(table, 0);
  assert.equal(field(table.stdout, 'operation'), 'CREATE');
  assert.equal(field(table.stdout, 'status'), 'SUCCESS');
  assert.equal(field(table.stdout, 'identifier'), 'orders');
  assert.equal(field(table.stdout, 'model'), '{"name":"orders","size":"M"}');
  tokens.create = field(table.stdout, 'request token');
  assert.match(tokens.create ?? '', /^\S+$/);

  exits(json, 0);
  const event = (
    JSON.parse(json.stdout) as {
      progressEvent: { operationStatus: string; identifier: string; resourceModel: unknown };
    }
  ).progressEvent;
  assert.equal(event.operationStatus, 'SUCCESS');
  assert.equal(event.identifier, 'orders-json');
  assert.deepEqual(event.resourceModel, { name: 'orders-json', size: 'S' }, 'the default size is applied');

  exits(file, 0);
  const fromFile = (
    parseYaml(file.stdout) as {
      progressEvent: { operationStatus: string; identifier: string; resourceModel: unknown };
    }
  ).progressEvent;
  assert.equal(fromFile.operationStatus, 'SUCCESS');
  assert.deepEqual(fromFile.resourceModel, { name: 'from-file', size: 'XL' });

  exits(invalid, 1);
  assert.equal(invalid.stdout, '');
  assert.match(invalid.stderr, /^error: InvalidRequest: .*\/size must be one of S, M, L, XL$/m);
  // Said once: the detail the message already holds is not listed again.
  assert.equal(invalid.stderr.match(/must be one of S, M, L, XL/g)?.length, 1, invalid.stderr);

  // Usage errors exit 2 and name the flag.
  for (const misuse of [neither, both]) {
    exits(misuse, 2);
    assert.equal(
      misuse.stderr,
      'error: give the desired state with exactly one of --properties <json> or --file <path>\n',
    );
  }
  exits(badJson, 2);
  assert.match(badJson.stderr, /^error: --properties is not valid JSON: /);
  exits(badYaml, 2);
  assert.match(badYaml.stderr, /^error: \S*broken\.yaml is not valid YAML: /);
  assert.doesNotMatch(badYaml.stderr, STACK_FRAME);
});

test('resource get, update --patch, list (table, pages, --all) and delete', async () => {
  const update = await typeplane([
    'resource',
    'update',
    PG,
    'orders',
    '--patch',
    '[{"op":"replace","path":"/size","value":"L"}]',
    '--wait',
  ]);
  exits(update, 0);
  assert.equal(field(update.stdout, 'operation'), 'UPDATE');
  assert.equal(field(update.stdout, 'status'), 'SUCCESS');
  tokens.update = field(update.stdout, 'request token');

  const [getJson, getDefault, listTable, listAll, listPage] = await Promise.all([
    typeplane(['resource', 'get', PG, 'orders', '-o', 'json']),
    typeplane(['resource', 'get', PG, 'from-file']),
    typeplane(['resource', 'list', PG]),
    typeplane(['resource', 'list', PG, '--all', '--max-results', '1', '-o', 'json']),
    typeplane(['resource', 'list', PG, '--max-results', '1']),
  ]);
  noSecret(update, getJson, getDefault, listTable, listAll, listPage);

  exits(getJson, 0);
  assert.deepEqual(JSON.parse(getJson.stdout), {
    typeName: PG,
    identifier: 'orders',
    properties: { name: 'orders', size: 'L' },
  });
  exits(getDefault, 0);
  assert.equal(getDefault.stdout, 'PROPERTY   VALUE\nname       from-file\nsize       XL\n');

  exits(listTable, 0);
  assert.match(listTable.stdout, /^IDENTIFIER\s+NAME\s+SIZE\n/);
  assert.match(listTable.stdout, /^orders\s+orders\s+L$/m);
  assert.doesNotMatch(listTable.stdout, /more: --next-token/);

  // Three resources at one per page: --all follows nextToken through every page.
  exits(listAll, 0);
  const all = JSON.parse(listAll.stdout) as {
    resourceDescriptions: { identifier: string }[];
    nextToken: string | null;
  };
  assert.deepEqual(all.resourceDescriptions.map((r) => r.identifier).sort(), [
    'from-file',
    'orders',
    'orders-json',
  ]);
  assert.equal(all.nextToken, null);

  exits(listPage, 0);
  const pageLines = listPage.stdout.trimEnd().split('\n');
  assert.equal(pageLines.length, 3, listPage.stdout);
  assert.match(pageLines[2]!, /^\(more: --next-token \S+\)$/);

  const removed = await typeplane(['resource', 'delete', PG, 'orders', '--wait']);
  exits(removed, 0);
  assert.equal(field(removed.stdout, 'operation'), 'DELETE');
  assert.equal(field(removed.stdout, 'status'), 'SUCCESS');
  tokens.delete = field(removed.stdout, 'request token');

  const [getGone, deleteAgain] = await Promise.all([
    typeplane(['resource', 'get', PG, 'orders']),
    typeplane(['resource', 'delete', PG, 'orders', '--wait']),
  ]);
  exits(getGone, 1);
  assert.match(getGone.stderr, /^error: NotFound: /m);
  assert.equal(getGone.stdout, '');
  // A delete that fails is reported as a FAILED event and exit 1.
  exits(deleteAgain, 1);
  assert.equal(field(deleteAgain.stdout, 'status'), 'FAILED');
  assert.equal(field(deleteAgain.stdout, 'error'), 'NotFound');
});

test('--client-token: the same body twice is the same request; another body with it is refused', async () => {
  const body = JSON.stringify({ name: 'idem', password: PASSWORD });
  const first = await typeplane([
    'resource',
    'create',
    PG,
    '--properties',
    body,
    '--client-token',
    'cli-token-1',
    '-o',
    'json',
  ]);
  exits(first, 0);
  const [again, other] = await Promise.all([
    typeplane([
      'resource',
      'create',
      PG,
      '--properties',
      body,
      '--client-token',
      'cli-token-1',
      '-o',
      'json',
    ]),
    typeplane([
      'resource',
      'create',
      PG,
      '--properties',
      JSON.stringify({ name: 'idem', size: 'L', password: PASSWORD }),
      '--client-token',
      'cli-token-1',
    ]),
  ]);
  exits(again, 0);
  const token = (run: CliRun) =>
    (JSON.parse(run.stdout) as { progressEvent: { requestToken: string } }).progressEvent.requestToken;
  assert.equal(token(again), token(first));
  exits(other, 1);
  assert.match(
    other.stderr,
    /^error: InvalidRequest: this clientToken was already used for a different request/m,
  );
  noSecret(first, again, other);
});

test('request list, get and cancel', async () => {
  const { create, update, delete: deleted } = tokens;
  assert.ok(create && update && deleted, 'the resource tests ran first');
  const [listJson, listTable, getTable, getJson, cancelDone, getUnknown] = await Promise.all([
    typeplane(['request', 'list', '--max-results', '100', '-o', 'json']),
    typeplane(['request', 'list', '--operation', 'UPDATE']),
    typeplane(['request', 'get', create]),
    typeplane(['request', 'get', update, '-o', 'json']),
    typeplane(['request', 'cancel', create]),
    typeplane(['request', 'get', 'no-such-request']),
  ]);
  noSecret(listJson, listTable, getTable, getJson);

  exits(listJson, 0);
  const events = (
    JSON.parse(listJson.stdout) as {
      progressEvents: { requestToken: string; operation: string; operationStatus: string }[];
    }
  ).progressEvents;
  const byToken = new Map(events.map((e) => [e.requestToken, e]));
  assert.equal(byToken.get(create)?.operation, 'CREATE');
  assert.equal(byToken.get(update)?.operation, 'UPDATE');
  assert.equal(byToken.get(deleted)?.operation, 'DELETE');
  assert.equal(byToken.get(deleted)?.operationStatus, 'SUCCESS');

  exits(listTable, 0);
  const rows = listTable.stdout.trimEnd().split('\n');
  assert.match(rows[0]!, /^REQUEST TOKEN\s+OPERATION\s+STATUS\s+TYPE\s+IDENTIFIER\s+ERROR$/);
  assert.equal(rows.length, 2, listTable.stdout);
  assert.match(
    rows[1]!,
    new RegExp(`^${update}\\s+UPDATE\\s+SUCCESS\\s+Typeplane\\.Data/postgresDatabases\\s+orders\\b`),
  );

  exits(getTable, 0);
  assert.equal(field(getTable.stdout, 'request token'), create);
  assert.equal(field(getTable.stdout, 'status'), 'SUCCESS');
  exits(getJson, 0);
  assert.equal(
    (JSON.parse(getJson.stdout) as { progressEvent: { requestToken: string } }).progressEvent.requestToken,
    update,
  );

  exits(cancelDone, 1);
  assert.equal(cancelDone.stdout, '');
  assert.match(
    cancelDone.stderr,
    new RegExp(`^error: ResourceConflict: request ${create} is already SUCCESS and cannot be cancelled`, 'm'),
  );

  exits(getUnknown, 1);
  assert.match(getUnknown.stderr, /^error: NotFound: /m);
});

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('the endpoint: unreachable servers, bad URLs, TYPEPLANE_ENDPOINT and its precedence', async () => {
  const refused = `http://127.0.0.1:${await closedPort()}`;
  const [closed, notUrl, fromEnv, flagWins] = await Promise.all([
    typeplane(['resource', 'list', PG], { endpoint: refused }),
    typeplane(['type', 'list'], { endpoint: 'localhost:4780' }),
    typeplane(['type', 'list', '-o', 'json'], { endpoint: null, env: { TYPEPLANE_ENDPOINT: svc.url } }),
    typeplane(['type', 'list', '-o', 'json'], { env: { TYPEPLANE_ENDPOINT: refused } }),
  ]);

  exits(closed, 1);
  assert.equal(closed.stdout, '');
  assert.match(
    closed.stderr,
    /^error: NetworkFailure: cannot reach Typeplane at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); is 'typeplane serve' running\?/,
  );
  assert.doesNotMatch(closed.stderr, STACK_FRAME);
  assert.doesNotMatch(closed.stderr, /fetch failed|UND_ERR/, 'the reason, not a client library message');

  exits(notUrl, 2);
  assert.match(
    notUrl.stderr,
    /^error: the endpoint must be an http:\/\/ or https:\/\/ URL, not 'localhost:4780'/,
  );

  for (const run of [fromEnv, flagWins]) {
    exits(run, 0);
    const names = (JSON.parse(run.stdout) as { types: { typeName: string }[] }).types.map((t) => t.typeName);
    assert.ok(names.includes(PG) && names.includes(PGSQL), run.stdout);
  }
});

test('serve: usage errors exit 2', async () => {
  const dataDir = tempDir('typeplane-cli-serve-');
  const [badPort, emptyPort, envPort, badLease, schemaAlone, notPostgres, unreachable, badHandlers] =
    await Promise.all([
      typeplane(['serve', '--port', 'abc', '--data-dir', dataDir], { endpoint: null }),
      typeplane(['serve', '--port', '', '--data-dir', dataDir], { endpoint: null }),
      typeplane(['serve', '--data-dir', dataDir], { endpoint: null, env: { TYPEPLANE_PORT: '1e3' } }),
      typeplane(['serve', '--port', '0', '--lease', '0', '--data-dir', dataDir], { endpoint: null }),
      typeplane(['serve', '--port', '0', '--database-schema', 'tp', '--data-dir', dataDir], {
        endpoint: null,
      }),
      typeplane(['serve', '--port', '0', '--database-url', 'mysql://x@y/z', '--data-dir', dataDir], {
        endpoint: null,
      }),
      // Nothing listens on port 1: the store cannot open, and the message hides the password.
      typeplane(['serve', '--port', '0', '--data-dir', dataDir], {
        endpoint: null,
        env: { TYPEPLANE_DATABASE_URL: 'postgres://me:pw-Hx81@127.0.0.1:1/test' },
      }),
      typeplane(['serve', '--port', '0', '--handlers-per-type', '0', '--data-dir', dataDir], {
        endpoint: null,
      }),
    ]);
  for (const [run, shown] of [
    [badPort, 'abc'],
    [emptyPort, ''],
    [envPort, '1e3'],
  ] as const) {
    exits(run, 2);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      new RegExp(`^error: port must be a whole number from 0 to 65535, not '${shown}'$`, 'm'),
    );
  }
  exits(badLease, 2);
  assert.match(
    badLease.stderr,
    /^error: --lease must be a number of seconds above 0 and at most 3600, not '0'$/m,
  );
  exits(schemaAlone, 2);
  assert.match(schemaAlone.stderr, /^error: --database-schema needs --database-url/m);
  exits(notPostgres, 2);
  assert.match(notPostgres.stderr, /^error: --database-url must be a PostgreSQL URL/m);
  exits(unreachable, 1);
  assert.match(
    unreachable.stderr,
    /cannot open the PostgreSQL store at postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/test/,
  );
  assert.doesNotMatch(unreachable.stderr, /pw-Hx81/);
  assert.doesNotMatch(unreachable.stderr, STACK_FRAME);
  exits(badHandlers, 2);
  assert.match(
    badHandlers.stderr,
    /^error: --handlers-per-type takes a whole number from 1 to 10000, not '0'$/m,
  );
});

// Not spawnServer from test/helpers/service.ts: it keeps the stdout it reads to itself, and this
// test is about exactly what stdout carries.
test('serve --port 0 prints the first admin token and one listening line on stdout and exits 0 on SIGTERM', async () => {
  const child = spawn(
    process.execPath,
    [...CLI, 'serve', '--port', '0', '--data-dir', tempDir('typeplane-cli-serve-'), '--log-level', 'info'],
    {
      cwd: root,
      env: { ...process.env, TYPEPLANE_PORT: '', TYPEPLANE_ADMIN_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // 'close', not 'exit': its last lines may still be unread when it exits.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start in 20 s\n${stderr}`)), 20_000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /listening on (\S+)\n/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      void exited.then(({ code }) => {
        clearTimeout(timer);
        reject(new Error(`serve exited with ${code}\n${stderr}`));
      });
    });
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(url, 'http://127.0.0.1:0');

    const token = /^admin token: (tp_[A-Za-z0-9_-]{43})\n/.exec(stdout)?.[1];
    assert.ok(token, `a fresh data dir prints an admin token first:\n${stdout}`);
    const list = await typeplane(['type', 'list'], { endpoint: url, env: { TYPEPLANE_TOKEN: token } });
    exits(list, 0);
    assert.equal(list.stdout, '', 'a fresh data dir has no types');
    assert.equal(list.stderr, 'No types registered.\n');

    child.kill('SIGTERM');
    assert.deepEqual(await exited, { code: 0, signal: null });
    assert.equal(
      stdout,
      `admin token: ${token}\nlistening on ${url}\n`,
      'logs go to stderr; stdout carries only the admin token and the listening line',
    );
    assert.match(stderr, /shutting down/);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

/**
 * The README's walkthroughs, run as written: each `sh` block of a section is taken from README.md
 * and run by bash, line after line, against a server started as `npm start` starts it (its
 * `scripts.start`) and the greeting provider's server started with the README's own command. Only
 * the addresses change (`4780` and `4781` become the test servers' ports) and `npx typeplane` is
 * this checkout's CLI; the stack walkthrough runs in a folder of its own against the tests'
 * PostgreSQL server, with a database name of its own. Every command must exit 0, or the code its comment names (`# exit 1: …`), so
 * the README and what it describes cannot drift apart.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PG_URL, pgQuery, pgSkip } from '../helpers/postgres.js';
import { commands, root, runBlock, shBlocks, type ReadmeServers } from '../helpers/readme.js';
import { awsCliSkip } from '../helpers/requirements.js';
import { api, spawnServer, tempDir } from '../helpers/service.js';

type Servers = Required<ReadmeServers>;

let servers: Servers;
const children: { kill: (signal: NodeJS.Signals) => boolean }[] = [];

/** The database the stack walkthrough makes: a name of this run's own, so runs at once do not clash. */
const stackDatabase = `orders-${randomBytes(4).toString('hex')}`;
/** The stack walkthrough, started once the servers are up, beside the other tests: it takes a while. */
let stackRun: Promise<{ stdout: string; stderr: string }> | undefined;

/**
 * `A stack, step by step` as written: its configuration block (the server it starts on a port and
 * data folder of the test's own), then its stack commands. Both run in a folder of the test's own
 * holding a link to examples/, so the configuration file and the file provider's root land there;
 * the PostgreSQL server is the tests' and the database name this run's.
 */
async function stackWalkthrough(): Promise<{ stdout: string; stderr: string }> {
  const [setup, walkthrough] = shBlocks('## A stack, step by step');
  const dir = tempDir('typeplane-readme-stack-');
  symlinkSync(join(root, 'examples'), join(dir, 'examples'));
  const setupCommands = commands(setup!);
  const serve = setupCommands.find((line) => line.startsWith('npx typeplane serve '));
  assert.ok(serve, 'the README starts the stack server');
  await runBlock(setupCommands.filter((line) => line !== serve).join('\n'), servers, {
    cwd: dir,
    replace: [[/postgres:\/\/postgres@127\.0\.0\.1:5432/g, PG_URL.replace(/\/[^/]*$/, '')]],
  });
  const serveArgs = serve
    .replace(/^npx typeplane serve /, '')
    .split(' ')
    .map((arg) => (arg.endsWith('.yaml') ? join(dir, arg) : arg));
  const server = await spawnServer(tempDir('typeplane-readme-stack-data-'), serveArgs);
  children.push(server.child);
  try {
    return await runBlock(
      walkthrough!,
      { ...servers, main: server },
      {
        cwd: dir,
        replace: [
          [/--parameters /g, `--parameters DatabaseName=${stackDatabase} `],
          [/\borders\.env\b/g, `${stackDatabase}.env`],
        ],
      },
    );
  } finally {
    server.child.kill('SIGTERM');
  }
}

before(async () => {
  // `npm start`, on a port and data folder of the test's own.
  const start = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start;
  const startArgs = start.replace(/^node dist\/cli\/main\.js serve /, '').split(' ');
  // The greeting server as `Write a provider` starts it, its port and data folder the test's own.
  const serve = shBlocks('## Write a provider')
    .flatMap(commands)
    .find((line) => line.startsWith('npx typeplane serve --provider'));
  assert.ok(serve, 'the README starts the greeting provider');
  const serveArgs = serve
    .replace(/^npx typeplane serve /, '')
    .replace(/--port \d+|--data-dir \S+/g, '')
    .split(' ')
    .filter((a) => a !== '');
  const [main, greetings] = await Promise.all([
    spawnServer(tempDir('typeplane-readme-'), startArgs),
    spawnServer(tempDir('typeplane-readme-greetings-'), serveArgs),
  ]);
  servers = { main, greetings };
  children.push(main.child, greetings.child);
  if (!pgSkip) {
    stackRun = stackWalkthrough();
    stackRun.catch(() => undefined); // awaited by its test
  }
});
after(async () => {
  await stackRun?.catch(() => undefined);
  for (const child of children) child.kill('SIGTERM');
  // A walkthrough that failed half-way may have left its database and role behind.
  if (stackRun) {
    const name = `"${stackDatabase}"`;
    await pgQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await pgQuery(`DROP ROLE IF EXISTS ${name}`);
  }
});

test('npm start registers the examples meant for the state provider, not the provider examples’ schemas', async () => {
  const { body } = await api(servers.main.url, servers.main.token).call('GET', '/v1/types');
  const names = (body.types as { typeName: string }[]).map((t) => t.typeName).sort();
  assert.deepEqual(names, ['Typeplane.Data/postgresDatabases', 'Typeplane.Messaging/queues']);
});

test('A first resource, step by step: the CLI and the curl blocks run as written', async () => {
  // The first block exports the admin token, which the test gives each block.
  const [, register, cli, curl] = shBlocks('## A first resource, step by step');
  await runBlock(register!, servers);
  const run = await runBlock(cli!, servers);
  assert.match(run.stdout, /^status\s+SUCCESS$/m);
  const viaCurl = await runBlock(curl!, servers);
  assert.match(viaCurl.stdout, /"operationStatus":"SUCCESS"/);
});

test(
  'A stack, step by step: the stack server from its configuration and every stack command run as written, against PostgreSQL',
  { skip: pgSkip },
  async () => {
    const run = await stackRun!;
    assert.match(run.stdout, new RegExp(`^PGDATABASE=${stackDatabase}$`, 'm'));
    assert.match(run.stdout, /IN_SYNC/);
    // The delete removed the database the deploy made.
    const left = await pgQuery('SELECT 1 FROM pg_database WHERE datname = $1', [stackDatabase]);
    assert.deepEqual(left, []);
  },
);

test('Validate resource types: the shipped examples pass, --strict too', async () => {
  const [block] = shBlocks('## Validate resource types');
  const run = await runBlock(block!, servers);
  // Every valid file defines one type, or is the example hook's schema.
  const summary = /✔ \d+ files checked: (\d+) valid files, (\d+) types, 1 hook, 0 errors, 0 warnings/.exec(
    run.stdout,
  );
  assert.ok(summary, run.stdout);
  assert.equal(Number(summary[1]), Number(summary[2]) + 1);
});

test('Write a provider: the greeting server, started as the README starts it, makes a greeting', async () => {
  // Its first command (the server) runs in before(); the rest here.
  const [block] = shBlocks('## Write a provider').filter((b) => b.includes('npx typeplane serve --provider'));
  const rest = commands(block!)
    .filter((line) => !line.startsWith('npx typeplane serve'))
    .join('\n');
  const run = await runBlock(rest, servers, { token: servers.greetings.token });
  assert.match(run.stdout, /Bonjour, ada!/);
});

test("A type's life: diff, versions and type configuration run as written, with the shipped files", async () => {
  const [diff, versions, configuration] = shBlocks(
    "## A type's life: versions, breaking changes, configuration",
  );
  const diffed = await runBlock(diff!, servers);
  assert.match(diffed.stdout, /widget-v2\.json:\d+:\d+ +breaking +TP6003 +Test::Shop::Widget/);
  await runBlock(versions!, servers);
  const configured = await runBlock(configuration!, servers, { token: servers.greetings.token });
  assert.match(configured.stdout, /Hello, grace\?!/);
});

test('The AWS CLI and the AWS SDKs: the AWS CLI block runs as written', { skip: awsCliSkip() }, async () => {
  const [block] = shBlocks('### The AWS CLI and the AWS SDKs');
  const run = await runBlock(block!, servers);
  assert.match(run.stdout, /"Identifier": "w1"/);
});

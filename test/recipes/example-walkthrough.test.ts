/**
 * The README's "Recipes, step by step", run as written: the server started by its own command, from
 * examples/recipes/typeplane.config, then each `sh` block in order, against the tests' PostgreSQL
 * server. It runs in a folder of its own holding a copy of examples/recipes/ (the configuration's
 * PostgreSQL address made the tests'), so the files the recipes make land there; the databases are
 * named by this run (`orders` and `shop` get a suffix of its own), so runs at once do not clash, and
 * are dropped afterwards whatever happened. Between blocks, PostgreSQL, the files and the API say
 * what the README says happened.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PG_URL, pgQuery, pgSkip } from '../helpers/postgres.js';
import { commands, root, runBlock, shBlocks, type ReadmeServers } from '../helpers/readme.js';
import { corpusSkip, RADIUS_CORPUS } from '../helpers/requirements.js';
import { api, spawnServer, tempDir } from '../helpers/service.js';

const SECTION = '## Recipes, step by step';
const TYPE = 'MyCompany.Resources/postgresDatabases';
const CONFIG_URL = 'postgres://postgres@127.0.0.1:5432';

const suffix = randomBytes(4).toString('hex');
/** The databases the walkthrough makes (PostgreSQL names: lower-case letters and digits). */
const orders = `orders${suffix}`;
const shop = `shop${suffix}`;
/** The database of docs/recipes.md's translated Radius recipe. */
const translated = `radius${suffix}`;
const replace: [RegExp, string][] = [
  [/\borders\b/g, orders],
  [/\bshop\b/g, shop],
];

/** The databases of this run that PostgreSQL holds, with their connection limits. */
async function databases(): Promise<Record<string, number>> {
  const rows = await pgQuery<{ datname: string; datconnlimit: number }>(
    'SELECT datname, datconnlimit FROM pg_database WHERE datname = ANY($1)',
    [[orders, shop, translated]],
  );
  return Object.fromEntries(rows.map((r) => [r.datname, r.datconnlimit]));
}

test("examples/recipes/postgresDatabases.yaml is the Radius design's sample as published, but for its description", () => {
  const manifest = (path: string) => {
    const text = readFileSync(join(root, path), 'utf8');
    return text.slice(text.indexOf('name: MyCompany.Resources'));
  };
  const example = manifest('examples/recipes/postgresDatabases.yaml').split('\n');
  const description = example.findIndex((line) => line.startsWith('    description: '));
  assert.equal(example[description - 1], '  postgresDatabases:');
  example.splice(description, 1);
  assert.equal(example.join('\n'), manifest('test/fixtures/radius/radius-design-postgresDatabases.yaml'));
});

describe('README: Recipes, step by step', { skip: pgSkip }, () => {
  const dir = tempDir('typeplane-readme-recipes-');
  const files = join(dir, 'recipe-demo-files');
  let blocks: string[];
  let servers: ReadmeServers;
  let server: Awaited<ReturnType<typeof spawnServer>> | undefined;
  const run = (block: string) => runBlock(block, servers, { cwd: dir, replace });
  const call = (method: string, path: string) => api(servers.main.url, servers.main.token).call(method, path);

  before(async () => {
    blocks = shBlocks(SECTION);
    assert.equal(blocks.length, 6, 'the section has its server, then five blocks of commands');
    cpSync(join(root, 'examples/recipes'), join(dir, 'examples/recipes'), { recursive: true });
    const config = join(dir, 'examples/recipes/typeplane.config');
    const text = readFileSync(config, 'utf8');
    assert.ok(text.includes(CONFIG_URL), 'the configuration names the PostgreSQL server the README says');
    writeFileSync(config, text.replaceAll(CONFIG_URL, PG_URL.replace(/\/[^/]*$/, '')));
    const [serve, ...rest] = commands(blocks[0]!);
    assert.equal(rest.length, 0);
    assert.match(serve!, /^npx typeplane serve /);
    const args = serve!
      .replace(/^npx typeplane serve /, '')
      .split(' ')
      .map((arg) => (arg.startsWith('examples/') ? join(dir, arg) : arg));
    server = await spawnServer(tempDir('typeplane-readme-recipes-data-'), args);
    servers = { main: server };
  });

  after(async () => {
    server?.child.kill('SIGTERM');
    // A walkthrough that failed half-way may have left its databases and roles behind.
    for (const name of [orders, shop, translated]) {
      await pgQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await pgQuery(`DROP ROLE IF EXISTS "${name}"`);
    }
  });

  test('environments dev and prod are made, and each gets its recipe for the sample type', async () => {
    const out = await run(blocks[1]!);
    assert.match(out.stdout, /prod\s+MyCompany\.Resources\/postgresDatabases\s+default\s+1\b/);
    const { body } = await call('GET', `/v1/recipes?typeName=${encodeURIComponent(TYPE)}`);
    const made = (body.recipes as { environment: string; version: number; types: string[] }[])
      .map((r) => `${r.environment}@${r.version}: ${r.types.join(',')}`)
      .sort();
    assert.deepEqual(made, ['dev@1: Typeplane::Local::File', 'prod@1: Typeplane::PostgreSQL::Database']);
  });

  test('creating in prod makes a real PostgreSQL database, in dev a file, and status.binding is filled', async () => {
    const out = await run(blocks[2]!);
    assert.match(out.stdout, /hostname: 127\.0\.0\.1/);
    assert.match(out.stdout, new RegExp(`username: ${orders}\\b`));
    assert.match(out.stdout, /templateVersion: ['"]?1/);
    // Size L is a connection limit of 200, set by the PostgreSQL provider.
    assert.deepEqual(await databases(), { [orders]: 200 });
    assert.match(out.stdout, new RegExp(`stand-in for the S database ${orders}-dev`));
    const dev = await call('GET', `/v1/resources/${encodeURIComponent(TYPE)}/${orders}-dev`);
    assert.deepEqual(dev.body.properties.status.binding, {
      hostname: 'localhost',
      username: `${orders}-dev`,
      secret: `${orders}-dev.devdb`,
    });
  });

  test("a stack feeds the database's binding into a settings file, and drift shows a changed file", async () => {
    const out = await run(blocks[3]!);
    assert.equal(
      readFileSync(join(files, `${shop}.env`), 'utf8'),
      `DATABASE_HOST=127.0.0.1\nDATABASE_USER=${shop}\nDATABASE_SECRET=${shop}/Password\n`,
    );
    assert.deepEqual(await databases(), { [orders]: 200, [shop]: 10 });
    assert.match(out.stdout, new RegExp(`${orders}: IN_SYNC`));
    assert.match(out.stdout, /DatabaseFile\s.*MODIFIED/);
  });

  test('a new recipe version reaches a resource only through upgrade, shown as a plan first', async () => {
    const out = await run(blocks[4]!);
    assert.match(out.stdout, /1 → 2/);
    assert.match(out.stdout, /Modify\s+DatabaseFile\s+Typeplane::Local::File/);
    assert.match(out.stdout, /^status\s+SUCCESS$/m);
    const file = readFileSync(join(files, `${orders}-dev.devdb`), 'utf8');
    assert.match(file, /recipe default@2/);
    assert.match(file, /^owner=data-team$/m);
    const prod = await call('GET', `/v1/resources/${encodeURIComponent(TYPE)}/${orders}`);
    assert.equal(prod.body.properties.status.recipe.templateVersion, '1', 'prod kept its version');
  });

  test('deleting removes the databases, the files and every stack the recipes ran', async () => {
    await run(blocks[5]!);
    assert.deepEqual(await databases(), {});
    assert.equal(existsSync(join(files, `${orders}-dev.devdb`)), false);
    assert.equal(existsSync(join(files, `${shop}.env`)), false);
    const { body } = await call('GET', '/v1/stacks');
    assert.deepEqual(
      (body.stacks as { name?: string; stackName?: string }[]).map((s) => s.name ?? s.stackName),
      [],
    );
    assert.equal((await call('GET', '/v1/environments/dev')).status, 404);
  });

  test(
    "docs/recipes.md's translation of Radius's Kubernetes PostgreSQL recipe fits Radius.Data/postgreSqlDatabases and makes its database",
    { skip: corpusSkip() },
    async () => {
      const docs = readFileSync(join(root, 'docs/recipes.md'), 'utf8');
      const section = docs.slice(docs.indexOf('## Translating a Radius recipe'));
      const template = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
      assert.ok(template, 'the section shows the translated recipe');
      const manifest = readFileSync(join(RADIUS_CORPUS, 'postgreSqlDatabases.yaml'), 'utf8');
      const client = api(servers.main.url, servers.main.token);
      const type = await client.call('POST', '/v1/types', manifest, { 'content-type': 'application/yaml' });
      assert.equal(type.status, 201, JSON.stringify(type.body));
      const typeName = 'Radius.Data/postgreSqlDatabases';
      const reg = await client.call('POST', '/v1/recipes', {
        typeName,
        template,
        file: 'postgresql.recipe.yaml',
      });
      assert.equal(reg.status, 201, JSON.stringify(reg.body));
      assert.deepEqual(reg.body.diagnostics, []);
      const path = `/v1/resources/${encodeURIComponent(typeName)}`;
      const desiredState = {
        name: `radius-${suffix}`,
        environment: 'default',
        application: '/planes/radius/local/resourceGroups/demo/providers/Radius.Core/applications/shop',
        size: 'M',
        database: translated,
        username: 'admin',
        password: `pw-${randomBytes(12).toString('hex')}`,
      };
      const created = await client.call('POST', `${path}?wait=20`, { desiredState });
      assert.equal(created.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(created.body));
      const read = await client.call('GET', `${path}/radius-${suffix}`);
      assert.equal(read.body.properties.host, '127.0.0.1');
      assert.match(read.body.properties.port, /^\d+$/);
      assert.equal(read.body.properties.password, undefined, 'the password is write-only');
      assert.deepEqual(await databases(), { [translated]: 50 });
      const [tags] = await pgQuery<{ comment: string }>(
        "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
        [translated],
      );
      assert.match(tags!.comment, /"Key":"radapp.io\/application","Value":"shop"/);
      const deleted = await client.call('DELETE', `${path}/radius-${suffix}?wait=20`);
      assert.equal(deleted.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(deleted.body));
      assert.deepEqual(await databases(), {});
    },
  );
});

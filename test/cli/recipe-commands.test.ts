/**
 * `typeplane recipe …`, `typeplane environment …` and `resource drift|upgrade` as a user runs them: the
 * CLI as a child process against a real server holding the Radius design's sample type, with recipe
 * files on disk named as the user names them.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { settle, startTestService, tempDir, type TestService } from '../helpers/service.js';
import { exits, runCli } from '../helpers/cli.js';
import { BOX_TYPE, LOGIN_TYPE, RECIPE, SAMPLE_TYPE, registerSampleTypes } from '../recipes/fixtures.js';

let s: TestService;
const files = tempDir();
const enc = encodeURIComponent;

/** The recipe with its database's host moved: a new version that changes the instance in place. */
const RECIPE_V2 = RECIPE.replace('.db.internal', '.db.example');
/** A recipe reading a property the type does not have. */
const BROKEN = RECIPE.replace('context.resource.properties.size', 'context.resource.properties.sise');

before(async () => {
  s = await startTestService();
  await registerSampleTypes(s);
  writeFileSync(join(files, 'recipe.yaml'), RECIPE);
  writeFileSync(join(files, 'recipe-v2.yaml'), RECIPE_V2);
  writeFileSync(join(files, 'broken.yaml'), BROKEN);
});
after(() => s.close());

const typeplane = (...args: string[]) =>
  runCli(args, {
    cwd: files,
    env: { ...process.env, NO_COLOR: '1', TYPEPLANE_TOKEN: s.token, TYPEPLANE_ENDPOINT: s.url },
  });

test('a recipe that does not fit its type prints each problem located in its file and exits 1; nothing is registered', async () => {
  const [check, register, missing] = await Promise.all([
    typeplane('recipe', 'check', SAMPLE_TYPE, 'broken.yaml'),
    typeplane('recipe', 'register', SAMPLE_TYPE, 'broken.yaml'),
    typeplane('recipe', 'register', SAMPLE_TYPE, 'no-such-recipe.yaml'),
  ]);
  exits(check, 1);
  const line = BROKEN.split('\n').findIndex((l) => l.includes('properties.sise')) + 1;
  assert.match(check.stdout, new RegExp(`^broken\\.yaml:${line}:\\d+ error TP7001 .*sise`, 'm'));
  assert.match(check.stdout, /✖ recipe does not fit MyCompany\.Resources\/postgresDatabases/);

  exits(register, 1);
  assert.match(register.stderr, new RegExp(`^broken\\.yaml:${line}:\\d+ error TP7001 .*sise`, 'm'));
  assert.match(register.stderr, /error: InvalidRequest: the recipe does not fit/);
  assert.equal(register.stdout, '');

  exits(missing, 2);
  assert.match(missing.stderr, /no such file: no-such-recipe\.yaml/);

  const list = await s.call('GET', '/v1/recipes');
  assert.deepEqual(list.body.recipes, []);
});

test('recipe register prints the version and the types it makes; the same recipe again is unchanged', async () => {
  const [check, first] = await Promise.all([
    typeplane('recipe', 'check', SAMPLE_TYPE, 'recipe.yaml'),
    typeplane('recipe', 'register', SAMPLE_TYPE, 'recipe.yaml'),
  ]);
  exits(check, 0);
  assert.match(
    check.stdout,
    /✔ recipe fits MyCompany\.Resources\/postgresDatabases \(makes Test::Recipe::(Database, Test::Recipe::Login|Login, Test::Recipe::Database)\)/,
  );

  exits(first, 0);
  assert.match(
    first.stdout,
    /^registered recipe default@1 of MyCompany\.Resources\/postgresDatabases in environment default \(makes /,
  );
  for (const t of [BOX_TYPE, LOGIN_TYPE]) assert.ok(first.stdout.includes(t), first.stdout);

  const again = await typeplane('recipe', 'register', SAMPLE_TYPE, 'recipe.yaml');
  exits(again, 0);
  assert.match(again.stdout, /^recipe default@1 of .* in environment default is unchanged/);
  const stored = await s.call('GET', `/v1/recipes/default/${enc(SAMPLE_TYPE)}/default`);
  assert.equal(stored.body.latest, 1);
  assert.equal(stored.body.templatePath, 'recipe.yaml');
});

test('environments: create, list, show with its recipes, refused delete while it has recipes, delete', async () => {
  const [nowhere, created] = await Promise.all([
    typeplane('recipe', 'register', SAMPLE_TYPE, 'recipe.yaml', '--environment', 'nowhere'),
    typeplane('environment', 'create', 'dev', '--description', 'local files'),
  ]);
  exits(nowhere, 1);
  assert.match(
    nowhere.stderr,
    /environment nowhere does not exist: create it \(typeplane environment create nowhere\)/,
  );
  exits(created, 0);
  assert.equal(created.stdout.trim(), 'created environment dev');

  const registered = await typeplane(
    'recipe',
    'register',
    SAMPLE_TYPE,
    'recipe.yaml',
    '--environment',
    'dev',
    '--name',
    'small',
    '--parameters',
    'Suffix=dev',
  );
  exits(registered, 0);
  assert.match(registered.stdout, /registered recipe small@1 of .* in environment dev/);

  const [list, show, recipes, onlyDev, detail, detailYaml, refused] = await Promise.all([
    typeplane('environment', 'list'),
    typeplane('environment', 'show', 'dev'),
    typeplane('recipe', 'list'),
    typeplane('recipe', 'list', '--environment', 'dev', '-o', 'json'),
    typeplane('recipe', 'show', SAMPLE_TYPE, '--environment', 'dev', '--name', 'small'),
    typeplane('recipe', 'show', SAMPLE_TYPE, '--environment', 'dev', '--name', 'small', '-o', 'yaml'),
    typeplane('environment', 'delete', 'dev'),
  ]);
  exits(list, 0);
  assert.match(list.stdout, /^NAME\s+CREATED\s+DESCRIPTION$/m);
  assert.match(list.stdout, /^default\s/m);
  assert.match(list.stdout, /^dev\s+\S+\s+local files$/m);
  exits(show, 0);
  assert.match(show.stdout, /^environment\s+dev$/m);
  assert.match(show.stdout, /^dev\s+MyCompany\.Resources\/postgresDatabases\s+small\s+1\s+recipe\.yaml$/m);
  exits(recipes, 0);
  assert.match(recipes.stdout, /^ENVIRONMENT\s+TYPE\s+NAME\s+VERSION\s+TEMPLATE$/m);
  assert.match(
    recipes.stdout,
    /^default\s+MyCompany\.Resources\/postgresDatabases\s+default\s+1\s+recipe\.yaml$/m,
  );
  assert.match(recipes.stdout, /^dev\s+MyCompany\.Resources\/postgresDatabases\s+small\s+1\s+recipe\.yaml$/m);
  exits(onlyDev, 0);
  const dev = JSON.parse(onlyDev.stdout).recipes;
  assert.deepEqual(
    dev.map((r: { environment: string; name: string; parameters: unknown }) => [
      r.environment,
      r.name,
      r.parameters,
    ]),
    [['dev', 'small', { Suffix: 'dev' }]],
  );

  exits(detail, 0);
  assert.match(detail.stdout, /^version\s+1 \(latest\)$/m);
  assert.match(detail.stdout, /^parameters\s+Suffix=dev$/m);
  assert.ok(
    detail.stdout.includes('Description: A database for one postgresDatabases resource.'),
    detail.stdout,
  );
  exits(detailYaml, 0);
  assert.match(detailYaml.stdout, /^templateKind: cloudformation$/m);
  assert.match(detailYaml.stdout, /^template: /m);
  exits(refused, 1);
  assert.match(refused.stderr, /environment dev still has recipes .*delete them first/);

  const deleted = await typeplane('recipe', 'delete', SAMPLE_TYPE, '--environment', 'dev', '--name', 'small');
  exits(deleted, 0);
  assert.equal(deleted.stdout.trim(), `deleted recipe small of ${SAMPLE_TYPE} in environment dev`);
  const gone = await s.call('GET', `/v1/recipes/dev/${enc(SAMPLE_TYPE)}/small`);
  assert.equal(gone.status, 404);

  const dropped = await typeplane('environment', 'delete', 'dev');
  exits(dropped, 0);
  assert.equal(dropped.stdout.trim(), 'deleted environment dev');
  assert.equal((await s.call('GET', '/v1/environments/dev')).status, 404);
});

test('a resource made through its recipe from the CLI is in sync, moves to a new recipe version by resource upgrade --yes, and drift exits 4 naming what changed outside it', async () => {
  const created = await typeplane(
    'resource',
    'create',
    SAMPLE_TYPE,
    '--properties',
    '{"name":"orders","size":"L"}',
    '--wait',
    '30',
  );
  exits(created, 0);
  assert.match(created.stdout, /^status\s+SUCCESS$/m);
  const read = await s.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders`);
  assert.equal(read.body.properties.status.binding.hostname, 'default.db.internal');

  const [drift, latest] = await Promise.all([
    typeplane('resource', 'drift', SAMPLE_TYPE, 'orders'),
    typeplane('resource', 'upgrade', SAMPLE_TYPE, 'orders'),
  ]);
  exits(drift, 0);
  assert.match(drift.stdout, new RegExp(`^${SAMPLE_TYPE.replace('.', '\\.')} orders: IN_SYNC$`, 'm'));
  assert.match(drift.stdout, /^Database\s+Test::Recipe::Database\s+IN_SYNC/m);
  assert.match(drift.stdout, /^Login\s+Test::Recipe::Login\s+IN_SYNC/m);

  exits(latest, 0);
  assert.match(latest.stdout, /already runs recipe default@1, the latest/);

  exits(await typeplane('recipe', 'register', SAMPLE_TYPE, 'recipe-v2.yaml'), 0);
  const planned = await typeplane('resource', 'upgrade', SAMPLE_TYPE, 'orders');
  exits(planned, 0);
  assert.match(planned.stdout, /recipe default of environment default, version 1 → 2/);
  assert.match(planned.stdout, /^Modify\s+Database\s+Test::Recipe::Database\s+Host$/m);
  assert.match(planned.stderr, /run again with --yes to apply/);
  const unchanged = await s.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders`);
  assert.equal(unchanged.body.properties.status.recipe.templateVersion, '1');

  const applied = await typeplane('resource', 'upgrade', SAMPLE_TYPE, 'orders', '--yes', '--wait', '30');
  exits(applied, 0);
  assert.match(applied.stdout, /version 1 → 2/);
  assert.match(applied.stdout, /^operation\s+UPDATE$/m);
  assert.match(applied.stdout, /^status\s+SUCCESS$/m);
  const upgraded = await s.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders`);
  assert.equal(upgraded.body.properties.status.recipe.templateVersion, '2');
  assert.equal(upgraded.body.properties.status.binding.hostname, 'default.db.example');

  // The database changed outside the recipe: drift says where, and exits as stack drift does.
  const patched = await s.call('PATCH', `/v1/resources/${enc(BOX_TYPE)}/orders_db`, {
    patchDocument: [{ op: 'replace', path: '/Host', value: 'elsewhere' }],
  });
  assert.equal(patched.status, 202, JSON.stringify(patched.body));
  assert.equal((await settle(s, patched.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const drifted = await typeplane('resource', 'drift', SAMPLE_TYPE, 'orders');
  exits(drifted, 4);
  assert.match(drifted.stdout, / orders: DRIFTED$/m);
  assert.match(
    drifted.stdout,
    /^Database\s+Test::Recipe::Database\s+MODIFIED\s+\/Host\s+"default\.db\.example" → "elsewhere"$/m,
  );
  assert.match(drifted.stdout, /^Login\s+Test::Recipe::Login\s+IN_SYNC/m);
});

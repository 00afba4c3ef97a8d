/**
 * The handler contract for a recipe-backed type, over real HTTP on each store: create is idempotent
 * by client token and answers AlreadyExists for a name taken; update changes the resources the recipe
 * made (a create-only lower property replaces its resource, planned first); delete removes them all,
 * in reverse order; read answers the instance with its outputs; list lists instances; and while the
 * recipe runs, the operation is IN_PROGRESS and says which recipe.
 */
import assert from 'node:assert/strict';
import { eachStoreService, type StoreService } from '../helpers/each-store.js';
import { heldProvider } from '../helpers/providers.js';
import { settle, type Api } from '../helpers/service.js';
import { stackNameOf } from '../../src/recipes/instance-stack.js';
import { BOX_TYPE, LOGIN_TYPE, RECIPE, registerSampleTypes, SAMPLE_TYPE } from './fixtures.js';

const enc = encodeURIComponent;
const SAMPLE = `/v1/resources/${enc(SAMPLE_TYPE)}`;

/** The lower types, the sample type and its recipe (version 1), registered by the admin. */
async function setUp(s: Api): Promise<void> {
  await registerSampleTypes(s);
  const reg = await s.call('POST', '/v1/recipes', {
    typeName: SAMPLE_TYPE,
    template: RECIPE,
    file: 'recipe.yaml',
  });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
}

async function create(s: Api, desiredState: object, clientToken?: string): Promise<any> {
  const r = await s.call('POST', SAMPLE, { desiredState, ...(clientToken ? { clientToken } : {}) });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body.progressEvent;
}

async function patch(s: Api, identifier: string, patchDocument: object[]): Promise<any> {
  const r = await s.call('PATCH', `${SAMPLE}/${identifier}`, { patchDocument });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return settle(s, r.body.progressEvent.requestToken, 20_000);
}

/** The identifiers and properties of a lower type's resources, as the admin sees them. */
async function lower(s: Api, typeName: string): Promise<Map<string, Record<string, unknown>>> {
  const r = await s.call('GET', `/v1/resources/${enc(typeName)}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return new Map(
    (r.body.resourceDescriptions as { identifier: string; properties: Record<string, unknown> }[]).map(
      (d) => [d.identifier, d.properties],
    ),
  );
}

async function recipeStacks(s: Api): Promise<string[]> {
  const r = await s.call('GET', '/v1/stacks');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.stacks as { stackName: string }[])
    .map((st) => st.stackName)
    .filter((n) => n.startsWith('tp-recipe-'));
}

eachStoreService(
  'one client token makes one instance and one set of lower resources, a taken name fails AlreadyExists making nothing, read and list answer instances with their outputs, and delete removes every lower resource, dependents first',
  async (s) => {
    await setUp(s);
    const first = await create(s, { name: 'orders', size: 'S' }, 'orders-token-1');
    const again = await create(s, { name: 'orders', size: 'S' }, 'orders-token-1');
    assert.equal(again.requestToken, first.requestToken, 'the same client token is the same operation');
    const done = await settle(s, first.requestToken, 20_000);
    assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
    const replay = await create(s, { name: 'orders', size: 'S' }, 'orders-token-1');
    assert.equal(replay.requestToken, first.requestToken);
    assert.equal(replay.operationStatus, 'SUCCESS');

    const other = await create(s, { name: 'orders', size: 'M' }, 'orders-token-2');
    const refused = await settle(s, other.requestToken, 20_000);
    assert.equal(refused.operationStatus, 'FAILED', JSON.stringify(refused));
    assert.equal(refused.errorCode, 'AlreadyExists', JSON.stringify(refused));

    assert.deepEqual([...(await lower(s, BOX_TYPE)).keys()], ['orders_db']);
    assert.equal(
      (await lower(s, BOX_TYPE)).get('orders_db')!.Size,
      'S',
      'the refused create changed nothing',
    );
    assert.deepEqual([...(await lower(s, LOGIN_TYPE)).keys()], ['orders_user']);
    // Made without a stack: the instance's is written when first needed (its drift, here).
    assert.deepEqual(await recipeStacks(s), []);
    const drift = await s.call('GET', `${SAMPLE}/orders/drift`);
    assert.equal(drift.status, 200, JSON.stringify(drift.body));
    assert.equal(drift.body.status, 'IN_SYNC', JSON.stringify(drift.body));
    assert.deepEqual(await recipeStacks(s), [stackNameOf(SAMPLE_TYPE, 'orders')]);
    assert.deepEqual(
      [...(await lower(s, BOX_TYPE)).keys()],
      ['orders_db'],
      'its stack adopted what was made',
    );

    // Two creates of one new name at once, under different tokens: one makes it; the other is refused,
    // at once (an operation on the name is in progress) or by the handler (it exists).
    const race = await Promise.all(
      [
        ['race-a', 'S'],
        ['race-b', 'L'],
      ].map(([token, size]) =>
        s.call('POST', SAMPLE, { desiredState: { name: 'race', size }, clientToken: token }),
      ),
    );
    const ends = await Promise.all(
      race.map(async (r) => {
        if (r.status === 409) return { operationStatus: 'FAILED', errorCode: r.body.errorCode };
        assert.equal(r.status, 202, JSON.stringify(r.body));
        return settle(s, r.body.progressEvent.requestToken, 20_000);
      }),
    );
    assert.deepEqual(ends.map((e) => e.operationStatus).sort(), ['FAILED', 'SUCCESS'], JSON.stringify(ends));
    assert.match(
      ends.find((e) => e.operationStatus === 'FAILED').errorCode,
      /^(AlreadyExists|ResourceConflict)$/,
    );
    const won = ends.find((e) => e.operationStatus === 'SUCCESS');
    const boxes = await lower(s, BOX_TYPE);
    assert.deepEqual([...boxes.keys()].sort(), ['orders_db', 'race_db']);
    assert.equal(boxes.get('race_db')!.Size, won.resourceModel.size, 'the winner made it');
    assert.deepEqual([...(await lower(s, LOGIN_TYPE)).keys()].sort(), ['orders_user', 'race_user']);
    assert.equal((await recipeStacks(s)).length, 1, 'the race wrote no stack');

    const read = await s.call('GET', `${SAMPLE}/race`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.deepEqual(read.body.properties, {
      name: 'race',
      size: won.resourceModel.size,
      status: {
        binding: { hostname: 'default.db.internal', username: 'race_user', secret: 'race_db/password' },
        recipe: { templateKind: 'cloudformation', templatePath: 'recipe.yaml', templateVersion: '1' },
      },
    });
    const listed = await s.call('GET', SAMPLE);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.resourceDescriptions.map((d: { identifier: string }) => d.identifier).sort(),
      ['orders', 'race'],
    );
    assert.equal(
      listed.body.resourceDescriptions.find((d: { identifier: string }) => d.identifier === 'orders')
        .properties.status.binding.username,
      'orders_user',
    );

    const gone = await s.call('DELETE', `${SAMPLE}/race`);
    assert.equal(gone.status, 202, JSON.stringify(gone.body));
    const deleted = await settle(s, gone.body.progressEvent.requestToken, 20_000);
    assert.equal(deleted.operationStatus, 'SUCCESS', JSON.stringify(deleted));
    assert.equal((await s.call('GET', `${SAMPLE}/race`)).status, 404);
    assert.deepEqual([...(await lower(s, BOX_TYPE)).keys()], ['orders_db']);
    assert.deepEqual([...(await lower(s, LOGIN_TYPE)).keys()], ['orders_user']);
    assert.deepEqual(await recipeStacks(s), [stackNameOf(SAMPLE_TYPE, 'orders')]);

    // The login refers to the database: it went first (each delete ends before the next begins).
    const requests = await s.call('GET', '/v1/requests?maxResults=100');
    assert.equal(requests.status, 200, JSON.stringify(requests.body));
    const deletes = (
      requests.body.progressEvents as {
        typeName: string;
        identifier?: string;
        requestToken: string;
        operation: string;
        operationStatus: string;
      }[]
    ).filter((e) => e.operation === 'DELETE' && (e.typeName === BOX_TYPE || e.typeName === LOGIN_TYPE));
    assert.deepEqual(
      deletes.map((e) => [e.typeName, e.identifier, e.operationStatus]).sort(),
      [
        [BOX_TYPE, 'race_db', 'SUCCESS'],
        [LOGIN_TYPE, 'race_user', 'SUCCESS'],
      ].sort(),
      JSON.stringify(deletes),
    );
    // Request tokens are UUIDv7s: they sort as their operations began.
    const token = (typeName: string) => deletes.find((e) => e.typeName === typeName)!.requestToken;
    assert.ok(token(LOGIN_TYPE) < token(BOX_TYPE), `the login went first: ${JSON.stringify(deletes)}`);
  },
);

eachStoreService(
  'an update changes the lower resource; a change that feeds a lower create-only property replaces it; a new recipe version changes no instance until its next update, or its upgrade, planned first; an update naming another environment or recipe is refused as a create-only change',
  async (s) => {
    await setUp(s);
    const made = await settle(s, (await create(s, { name: 'orders', size: 'S' })).requestToken, 20_000);
    assert.equal(made.operationStatus, 'SUCCESS', JSON.stringify(made));

    const resized = await patch(s, 'orders', [{ op: 'replace', path: '/size', value: 'XL' }]);
    assert.equal(resized.operationStatus, 'SUCCESS', JSON.stringify(resized));
    assert.equal((await lower(s, BOX_TYPE)).get('orders_db')!.Size, 'XL');

    // The database's Name (create-only) comes from the Suffix parameter, which an instance may set.
    const renamed = await patch(s, 'orders', [
      { op: 'add', path: '/recipe', value: { parameters: { Suffix: 'main' } } },
    ]);
    assert.equal(renamed.operationStatus, 'SUCCESS', JSON.stringify(renamed));
    const boxes = await lower(s, BOX_TYPE);
    assert.deepEqual([...boxes.keys()], ['orders_main'], 'the old database is gone, a new one made');
    assert.equal(boxes.get('orders_main')!.Size, 'XL');
    assert.equal((await lower(s, LOGIN_TYPE)).get('orders_user')!.Database, 'orders_main');
    const read = await s.call('GET', `${SAMPLE}/orders`);
    assert.equal(read.body.properties.status.binding.secret, 'orders_main/password');

    const plain = await settle(s, (await create(s, { name: 'plain', size: 'M' })).requestToken, 20_000);
    assert.equal(plain.operationStatus, 'SUCCESS', JSON.stringify(plain));
    assert.ok((await lower(s, BOX_TYPE)).has('plain_db'));

    // A new recipe version renames the database for instances that do not choose a suffix. It changes
    // no instance by itself: each moves on its next update, or by an upgrade planned first.
    const v2 = await s.call('POST', '/v1/recipes', {
      typeName: SAMPLE_TYPE,
      template: RECIPE.replace('Default: db', 'Default: data'),
      file: 'recipe.yaml',
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    assert.deepEqual([...(await lower(s, BOX_TYPE)).keys()].sort(), ['orders_main', 'plain_db']);

    // orders chooses its own suffix: the new default would change nothing of it.
    const kept = await s.call('GET', `${SAMPLE}/orders/upgrade`);
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.deepEqual([kept.body.from, kept.body.to], [1, 2]);
    const keptDb = kept.body.changes.find((c: { logicalId: string }) => c.logicalId === 'Database');
    assert.notEqual(keptDb?.action, 'Replace', JSON.stringify(kept.body.changes));

    // plain takes the default: its upgrade replaces the database, shown before anything changes.
    const plan = await s.call('GET', `${SAMPLE}/plain/upgrade`);
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
    const db = plan.body.changes.find((c: { logicalId: string }) => c.logicalId === 'Database');
    assert.equal(db?.action, 'Replace', JSON.stringify(plan.body.changes));
    assert.deepEqual(db.replacement.properties, ['/properties/Name']);
    assert.deepEqual(
      [...(await lower(s, BOX_TYPE)).keys()].sort(),
      ['orders_main', 'plain_db'],
      'a plan changes nothing',
    );
    const up = await s.call('POST', `${SAMPLE}/plain/upgrade`);
    assert.equal(up.status, 202, JSON.stringify(up.body));
    const upgraded = await settle(s, up.body.progressEvent.requestToken, 20_000);
    assert.equal(upgraded.operationStatus, 'SUCCESS', JSON.stringify(upgraded));
    assert.deepEqual([...(await lower(s, BOX_TYPE)).keys()].sort(), ['orders_main', 'plain_data']);
    const after = await s.call('GET', `${SAMPLE}/plain`);
    assert.equal(after.body.properties.status.recipe.templateVersion, '2');
    assert.equal(after.body.properties.status.binding.secret, 'plain_data/password');

    // orders' next update (dropping its own suffix) runs the latest version with it.
    const dropped = await patch(s, 'orders', [{ op: 'remove', path: '/recipe' }]);
    assert.equal(dropped.operationStatus, 'SUCCESS', JSON.stringify(dropped));
    assert.deepEqual([...(await lower(s, BOX_TYPE)).keys()].sort(), ['orders_data', 'plain_data']);
    const moved = await s.call('GET', `${SAMPLE}/orders`);
    assert.equal(moved.body.properties.status.recipe.templateVersion, '2');

    // An instance keeps the environment and recipe it was made with: the type says so (they are
    // create-only), so an update naming others is refused before anything runs.
    assert.equal((await s.call('POST', '/v1/environments', { name: 'dev' })).status, 201);
    const devRecipe = await s.call('POST', '/v1/recipes', {
      typeName: SAMPLE_TYPE,
      template: RECIPE,
      environment: 'dev',
    });
    assert.equal(devRecipe.status, 201, JSON.stringify(devRecipe.body));
    for (const [change, pointer] of [
      [{ op: 'add', path: '/environment', value: 'dev' }, '/properties/environment'],
      [{ op: 'add', path: '/recipe', value: { name: 'other' } }, '/properties/recipe/name'],
    ] as const) {
      const refused = await s.call('PATCH', `${SAMPLE}/orders`, { patchDocument: [change] });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.errorCode, 'NotUpdatable', JSON.stringify(refused.body));
      assert.match(refused.body.message, new RegExp(`create-only properties cannot change.*${pointer}`));
    }
    const still = await s.call('GET', `${SAMPLE}/orders`);
    assert.equal(still.body.properties.environment, undefined);
    assert.equal(still.body.properties.recipe, undefined);
    assert.equal(still.body.properties.status.binding.hostname, 'default.db.internal');
  },
);

/** The database's provider in the next test: its creates wait until the test lets them go. */
let held: ReturnType<typeof heldProvider>;

eachStoreService(
  'while the recipe runs, the operation is IN_PROGRESS with a status message naming the recipe',
  async (s: StoreService) => {
    await setUp(s);
    const started = await create(s, { name: 'slow', size: 'M' });
    const until = Date.now() + 15_000;
    let seen: any;
    for (;;) {
      seen = (await s.call('GET', `/v1/requests/${started.requestToken}`)).body.progressEvent;
      if (seen.statusMessage?.includes('recipe')) break;
      assert.ok(Date.now() < until, `no progress message: ${JSON.stringify(seen)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(seen.operationStatus, 'IN_PROGRESS', JSON.stringify(seen));
    assert.match(seen.statusMessage, /recipe default@1 \(environment default\)/);
    assert.equal((await s.call('GET', `${SAMPLE}/slow`)).status, 404, 'not there until the recipe is done');
    held.release();
    const done = await settle(s, started.requestToken, 20_000);
    assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
    assert.equal(done.resourceModel.status.binding.username, 'slow_user');
  },
  () => {
    held = heldProvider();
    return { providers: new Map([[BOX_TYPE, held.provider]]) };
  },
);

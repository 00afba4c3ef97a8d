/**
 * A new instance whose recipe needs no stack and makes only record-backed resources is composed: the
 * engine decides it whole before writing anything, then writes the instance, its resources and all
 * their operations in one transaction — its create answers SUCCESS at once, with no handler call and
 * nothing to resume. Asked again with its client token it replays; anything else (a resource with
 * effects, a name taken) runs as an operation, through the handlers, as before. Over real HTTP, on
 * each store.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { eachStoreService } from '../helpers/each-store.js';
import { memoryProvider } from '../helpers/providers.js';
import { settle, type Api } from '../helpers/service.js';
import { stackNameOf } from '../../src/recipes/instance-stack.js';
import { RecipeStore, type InstanceRecord } from '../../src/recipes/records.js';
import { createSealer } from '../../src/secrets/sealer.js';
import { BOX_TYPE, LOGIN_TYPE, RECIPE, registerSampleTypes, SAMPLE_TYPE } from './fixtures.js';

const enc = encodeURIComponent;
const secretKey = randomBytes(32).toString('base64');
const SAMPLE = `/v1/resources/${enc(SAMPLE_TYPE)}`;

async function setUp(s: Api): Promise<void> {
  await registerSampleTypes(s);
  const reg = await s.call('POST', '/v1/recipes', { typeName: SAMPLE_TYPE, template: RECIPE });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
}

/** Create instance `name`: not decided whole (not SUCCESS at once) but made by the handlers; its end. */
async function createdAsOperation(s: Api, name: string): Promise<any> {
  const r = await s.call('POST', SAMPLE, { desiredState: { name, size: 'S' } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.notEqual(r.body.progressEvent.operationStatus, 'SUCCESS', 'refused as a whole, run as an operation');
  const done = await settle(s, r.body.progressEvent.requestToken, 20_000);
  assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
  return done;
}

/** The operations of `typeName` (as the admin sees them), oldest first. */
async function operationsOf(s: Api, typeName: string): Promise<any[]> {
  const r = await s.call('GET', `/v1/requests?typeName=${enc(typeName)}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.progressEvents as any[]).reverse();
}

eachStoreService(
  'an instance of record-backed resources is written whole with its create: SUCCESS at once, its resources and their operations beside it, replayed by its client token',
  async (s) => {
    await setUp(s);
    const asked = { desiredState: { name: 'orders', size: 'L' }, clientToken: 'orders-once' };
    const r = await s.call('POST', SAMPLE, asked);
    assert.equal(r.status, 202, JSON.stringify(r.body));
    // Terminal in the create's own answer: nothing runs after it.
    const event = r.body.progressEvent;
    assert.equal(event.operationStatus, 'SUCCESS', JSON.stringify(event));
    assert.deepEqual(event.resourceModel.status.binding, {
      hostname: 'default.db.internal',
      username: 'orders_user',
      secret: 'orders_db/password',
    });
    assert.equal(event.resourceModel.status.recipe.templateVersion, '1');

    // Its resources exist, each with an operation of its own, ended, run as the recipe.
    const db = await s.call('GET', `/v1/resources/${enc(BOX_TYPE)}/orders_db`);
    assert.equal(db.status, 200, JSON.stringify(db.body));
    assert.equal(db.body.resourceDescription?.properties?.Size ?? db.body.properties?.Size, 'L');
    const lower = [...(await operationsOf(s, BOX_TYPE)), ...(await operationsOf(s, LOGIN_TYPE))];
    assert.deepEqual(
      lower.map((o) => [o.operation, o.operationStatus, o.identifier]),
      [
        ['CREATE', 'SUCCESS', 'orders_db'],
        ['CREATE', 'SUCCESS', 'orders_user'],
      ],
    );
    const [instanceOp] = await operationsOf(s, SAMPLE_TYPE);
    assert.equal(instanceOp.requestToken, event.requestToken);
    assert.equal(instanceOp.operationStatus, 'SUCCESS');
    // The instance's client token is kept; its resources' operations carry none (written only with
    // the whole, none is asked for again), so their requests are not hashed and kept.
    assert.equal((await s.store.getOperation(event.requestToken))?.clientToken !== undefined, true);
    for (const o of lower) {
      const stored = await s.store.getOperation(o.requestToken);
      assert.equal(stored?.operation, 'CREATE');
      assert.equal(stored?.clientToken, undefined, JSON.stringify(stored));
    }
    // The generated password is sealed away: no answer shows it.
    assert.doesNotMatch(JSON.stringify([event, db.body, lower]), /"Password"/);

    // Asked again with its client token: the same operation, nothing made twice.
    const again = await s.call('POST', SAMPLE, asked);
    assert.equal(again.status, 202, JSON.stringify(again.body));
    assert.equal(again.body.progressEvent.requestToken, event.requestToken);
    assert.equal((await operationsOf(s, BOX_TYPE)).length, 1);

    // Read, listed and deleted as any instance: its resources go with it.
    const read = await s.call('GET', `${SAMPLE}/orders`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    const gone = await s.call('DELETE', `${SAMPLE}/orders`);
    assert.equal(gone.status, 202, JSON.stringify(gone.body));
    const deleted = await settle(s, gone.body.progressEvent.requestToken, 20_000);
    assert.equal(deleted.operationStatus, 'SUCCESS', JSON.stringify(deleted));
    for (const [typeName, id] of [
      [BOX_TYPE, 'orders_db'],
      [LOGIN_TYPE, 'orders_user'],
    ] as const)
      assert.equal((await s.call('GET', `/v1/resources/${enc(typeName)}/${id}`)).status, 404);
  },
);

eachStoreService(
  'composed creates at once: each name made once, whoever races for it, and every other instance whole',
  async (s) => {
    await setUp(s);
    const ask = (name: string, size = 'S') => s.call('POST', SAMPLE, { desiredState: { name, size } });
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => ask(`db${i}`)),
      ...['S', 'M', 'L', 'XL', 'M'].map((size) => ask('contested', size)),
    ]);
    const ended = await Promise.all(
      answers.map(async (r) => {
        assert.equal(r.status, 202, JSON.stringify(r.body));
        return settle(s, r.body.progressEvent.requestToken, 20_000);
      }),
    );
    assert.deepEqual(
      ended.slice(0, 12).map((e) => e.operationStatus),
      Array.from({ length: 12 }, () => 'SUCCESS'),
    );
    const contested = ended.slice(12);
    assert.equal(contested.filter((e) => e.operationStatus === 'SUCCESS').length, 1);
    for (const e of contested.filter((e) => e.operationStatus !== 'SUCCESS'))
      assert.ok(['AlreadyExists', 'ResourceConflict'].includes(e.errorCode), JSON.stringify(e));
    // One database and one login per instance, none twice.
    const made = (await operationsOf(s, BOX_TYPE)).filter((o) => o.operationStatus === 'SUCCESS');
    assert.deepEqual(
      made.map((o) => o.identifier).sort(),
      [...Array.from({ length: 12 }, (_, i) => `db${i}_db`), 'contested_db'].sort(),
    );
  },
);

eachStoreService(
  'an instance whose name is taken, or one of whose resources is, fails as an operation and writes nothing of itself',
  async (s) => {
    await setUp(s);
    const first = await s.call('POST', SAMPLE, { desiredState: { name: 'orders', size: 'S' } });
    assert.equal(first.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(first.body));
    const twice = await s.call('POST', SAMPLE, { desiredState: { name: 'orders', size: 'M' } });
    assert.equal(twice.status, 202, JSON.stringify(twice.body));
    const refused = await settle(s, twice.body.progressEvent.requestToken, 20_000);
    assert.equal(refused.operationStatus, 'FAILED', JSON.stringify(refused));
    assert.equal(refused.errorCode, 'AlreadyExists');

    // A login of the name the recipe gives, made by hand first: the recipe's login cannot be made.
    const login = await s.call('POST', `/v1/resources/${enc(LOGIN_TYPE)}`, {
      desiredState: { User: 'billing_user' },
    });
    assert.equal(login.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(login.body));
    const r = await s.call('POST', SAMPLE, { desiredState: { name: 'billing', size: 'S' } });
    const failed = await settle(s, r.body.progressEvent.requestToken, 20_000);
    assert.equal(failed.operationStatus, 'FAILED', JSON.stringify(failed));
    assert.equal(failed.errorCode, 'AlreadyExists');
    assert.match(failed.statusMessage, /^Login: /);
    // Nothing of it is left: no instance, no database.
    assert.equal((await s.call('GET', `${SAMPLE}/billing`)).status, 404);
    assert.equal((await s.call('GET', `/v1/resources/${enc(BOX_TYPE)}/billing_db`)).status, 404);
  },
);

eachStoreService(
  'an instance record left behind (a deletion that did not finish) refuses the whole composed write: the handlers answer AlreadyExists, and nothing is made',
  async (s) => {
    await setUp(s);
    // A record of the name, as an unfinished deletion leaves it, with no resource of its own.
    const records = new RecipeStore(s.store, createSealer(Buffer.from(secretKey, 'base64')));
    const left: InstanceRecord = {
      typeName: SAMPLE_TYPE,
      identifier: 'orders',
      environment: 'default',
      recipe: 'default',
      version: 1,
      stack: stackNameOf(SAMPLE_TYPE, 'orders'),
      generated: {},
      createdBy: 'an-earlier-create',
      phase: 'deleting',
    };
    const { type } = await s.registry.get(SAMPLE_TYPE);
    assert.equal(await records.insertInstance(type, left, 'an-earlier-create'), true);
    const r = await s.call('POST', SAMPLE, { desiredState: { name: 'orders', size: 'S' } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.notEqual(r.body.progressEvent.operationStatus, 'SUCCESS', 'not written at once');
    const failed = await settle(s, r.body.progressEvent.requestToken, 20_000);
    assert.equal(failed.operationStatus, 'FAILED', JSON.stringify(failed));
    assert.equal(failed.errorCode, 'AlreadyExists');
    assert.deepEqual(await operationsOf(s, BOX_TYPE), [], 'no database was made');
    assert.equal((await s.call('GET', `${SAMPLE}/orders`)).status, 404);
  },
  () => ({ secretKey }),
);

eachStoreService(
  'an instance with a resource whose provider has effects runs as an operation, through the handlers',
  async (s) => {
    await setUp(s);
    const r = await s.call('POST', SAMPLE, { desiredState: { name: 'orders', size: 'S' } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.notEqual(r.body.progressEvent.operationStatus, 'SUCCESS', 'not decided at once');
    const done = await settle(s, r.body.progressEvent.requestToken, 20_000);
    assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
    assert.equal(done.resourceModel.status.binding.username, 'orders_user');
    assert.deepEqual(
      logins.calls.map((c) => c.action).filter((a) => a === 'create'),
      ['create'],
      'the login provider made the login',
    );
  },
  () => {
    logins = memoryProvider({}, 'logins');
    return { providers: new Map([[LOGIN_TYPE, logins]]) };
  },
);

let logins: ReturnType<typeof memoryProvider>;

eachStoreService(
  'a recipe head another replica moved since this one kept it refuses the composed write: the handlers make that instance with the new version, and the next is composed again',
  async (s) => {
    await setUp(s);
    const first = await s.call('POST', SAMPLE, { desiredState: { name: 'first', size: 'S' } });
    assert.equal(first.body.progressEvent.operationStatus, 'SUCCESS', 'composed, and its head kept');
    // Another replica registers version 2 (a second RecipeStore on the same store writes it).
    const replica = new RecipeStore(s.store, createSealer(Buffer.from(secretKey, 'base64')));
    const v1 = await replica.getVersion('default', SAMPLE_TYPE, 'default', 1);
    assert.ok(v1);
    const template = v1.template.replace('.db.internal', '.db2.internal');
    assert.notEqual(template, v1.template);
    assert.equal(
      await replica.addVersion({
        ...v1,
        version: 2,
        template,
        digest: 'another',
        registeredAt: new Date().toISOString(),
      }),
      true,
    );

    const done = await createdAsOperation(s, 'second');
    assert.equal(done.resourceModel.status.recipe.templateVersion, '2');
    assert.equal(done.resourceModel.status.binding.hostname, 'default.db2.internal');

    const third = await s.call('POST', SAMPLE, { desiredState: { name: 'third', size: 'S' } });
    assert.equal(
      third.body.progressEvent.operationStatus,
      'SUCCESS',
      'composed again, with the head read anew',
    );
    assert.equal(third.body.progressEvent.resourceModel.status.recipe.templateVersion, '2');
  },
  () => ({ secretKey }),
);

eachStoreService(
  "a stack of the instance's name, there when its create commits, refuses the composed write: the handlers deploy the recipe to it",
  async (s) => {
    await setUp(s);
    const stack = stackNameOf(SAMPLE_TYPE, 'stray');
    const started = await s.stacks.deploy(
      stack,
      JSON.stringify({
        Resources: { Other: { Type: BOX_TYPE, Properties: { Name: 'other_db', Size: 'S' } } },
      }),
      {},
    );
    const deployed = await s.stacks.waitForState(stack, started.deploymentId, 20_000);
    assert.equal(deployed?.status, 'CREATE_COMPLETE', JSON.stringify(deployed));

    const done = await createdAsOperation(s, 'stray');
    assert.equal(done.resourceModel.status.binding.username, 'stray_user');
    assert.equal((await s.call('GET', `/v1/resources/${enc(BOX_TYPE)}/stray_db`)).status, 200);
  },
  () => ({ secretKey }),
);

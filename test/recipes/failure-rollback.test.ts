/**
 * A recipe whose lower-level resource fails, over real HTTP on each store: the recipe is rolled back
 * and nothing is left (no lower resource, no instance stack, no instance, the name free again), and
 * the instance's operation fails with the underlying error code and message, the recipe's secrets
 * masked in it — whether the instance is made without a stack (the usual case) or its stack is
 * deployed at create (a policy judges its resources).
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { memoryProvider } from '../helpers/providers.js';
import { settle, type Api } from '../helpers/service.js';
import { stackNameOf } from '../../src/recipes/instance-stack.js';
import {
  BOX_TYPE,
  judgeDatabases,
  LOGIN_TYPE,
  RECIPE as SAMPLE_RECIPE,
  registerSampleTypes,
  SAMPLE_TYPE,
} from './fixtures.js';

const enc = encodeURIComponent;
const SAMPLE = `/v1/resources/${enc(SAMPLE_TYPE)}`;

/**
 * The sample recipe's parameters and settings, with its resources in another order: the login is
 * made first, so that a failing database has something to roll back; the database's
 * Name is known only once the login exists, so a bad one is refused by its type when it is made.
 */
const RECIPE = `
${SAMPLE_RECIPE.slice(SAMPLE_RECIPE.indexOf('Metadata:'), SAMPLE_RECIPE.indexOf('Resources:'))}Resources:
  Login:
    Type: ${LOGIN_TYPE}
    Properties:
      User: !Sub '\${context.resource.name}_user'
  Database:
    Type: ${BOX_TYPE}
    DependsOn: Login
    Properties:
      Name: !Sub '\${Login}_\${Suffix}'
      Size: !GetAtt context.resource.properties.size
      Password: !Ref Password
Outputs:
  result:
    Value:
      values:
        status.binding.username: !Ref Login
        status.binding.secret: !Sub '\${Database}/password'
`;

async function setUp(s: Api): Promise<void> {
  await registerSampleTypes(s);
  const reg = await s.call('POST', '/v1/recipes', { typeName: SAMPLE_TYPE, template: RECIPE });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
}

async function createAndSettle(s: Api, desiredState: object): Promise<any> {
  const r = await s.call('POST', SAMPLE, { desiredState });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return settle(s, r.body.progressEvent.requestToken, 20_000);
}

/** Nothing of the instance is left: no lower resource, no instance stack, no instance. */
async function nothingLeft(s: Api, identifier: string): Promise<void> {
  for (const typeName of [BOX_TYPE, LOGIN_TYPE]) {
    const r = await s.call('GET', `/v1/resources/${enc(typeName)}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.resourceDescriptions, [], `${typeName} left behind`);
  }
  const stacks = await s.call('GET', '/v1/stacks');
  assert.deepEqual(
    (stacks.body.stacks as { stackName: string }[]).filter((st) => st.stackName.startsWith('tp-recipe-')),
    [],
  );
  assert.equal((await s.call('GET', `${SAMPLE}/${identifier}`)).status, 404);
  assert.deepEqual((await s.call('GET', SAMPLE)).body.resourceDescriptions, []);
}

/** The database's provider in the next test: it refuses every create, quoting the password, until told not to. */
let refusing: ReturnType<typeof memoryProvider> & { refuse: boolean };

/**
 * The first test's story: a create the database refuses, rolled back; the same create once it takes
 * it; an update it refuses, and one it takes. `viaStack`: the instance's stack is deployed at create
 * (a policy judges the database), else the instance is made without one.
 */
async function rollsBack(s: Api, viaStack: boolean): Promise<void> {
  await setUp(s);
  const failed = await createAndSettle(s, { name: 'orders', size: 'M' });
  assert.equal(failed.operationStatus, 'FAILED', JSON.stringify(failed));
  assert.equal(failed.errorCode, 'InvalidRequest', JSON.stringify(failed));
  assert.equal(failed.statusMessage, 'Database: the password *** is too weak for a M database');

  const password = refusing.calls.find((c) => c.action === 'create')?.req.desiredState.Password;
  assert.ok(
    typeof password === 'string' && password.length >= 12,
    'the provider was given the generated password',
  );
  assert.ok(!failed.statusMessage.includes(password), `the password is shown: ${failed.statusMessage}`);
  const request = await s.call('GET', `/v1/requests/${failed.requestToken}`);
  assert.ok(!JSON.stringify(request.body).includes(password));

  // The login was made, then removed by the rollback.
  const login = await s.call('GET', `/v1/resources/${enc(LOGIN_TYPE)}/orders_user`);
  assert.equal(login.status, 404, JSON.stringify(login.body));
  await nothingLeft(s, 'orders');

  // The name is free again: once the provider takes it, the same create succeeds.
  refusing.refuse = false;
  const made = await createAndSettle(s, { name: 'orders', size: 'M' });
  assert.equal(made.operationStatus, 'SUCCESS', JSON.stringify(made));
  assert.equal(made.resourceModel.status.binding.username, 'orders_user');
  assert.equal(made.resourceModel.status.binding.secret, 'orders_user_db/password');
  const stack = await s.call('GET', `/v1/stacks/${stackNameOf(SAMPLE_TYPE, 'orders')}`);
  assert.equal(stack.status, viaStack ? 200 : 404, JSON.stringify(stack.body));

  // An update the database refuses fails with its code and message; the instance stays as it was,
  // and a later update that fits goes through.
  const path = `${SAMPLE}/orders`;
  const grow = await s.call('PATCH', path, {
    patchDocument: [{ op: 'replace', path: '/size', value: 'XL' }],
  });
  assert.equal(grow.status, 202, JSON.stringify(grow.body));
  const refused = await settle(s, grow.body.progressEvent.requestToken, 20_000);
  assert.equal(refused.operationStatus, 'FAILED', JSON.stringify(refused));
  assert.equal(refused.errorCode, 'NotUpdatable', JSON.stringify(refused));
  assert.equal(refused.statusMessage, 'Database: a M database cannot grow to XL here');
  assert.equal((await s.call('GET', path)).body.properties.size, 'M');
  assert.equal(refusing.store.get('orders_user_db')!.Size, 'M');
  const shrink = await s.call('PATCH', path, {
    patchDocument: [{ op: 'replace', path: '/size', value: 'S' }],
  });
  const shrunk = await settle(s, shrink.body.progressEvent.requestToken, 20_000);
  assert.equal(shrunk.operationStatus, 'SUCCESS', JSON.stringify(shrunk));
  assert.equal(refusing.store.get('orders_user_db')!.Size, 'S');
}

const REFUSED =
  "a lower-level resource that fails rolls the recipe back, leaves nothing, and fails the operation with the provider's code and message, its secret masked; a failed update leaves the instance as it was";

/** The database's provider for the two tests below. */
function refusingProvider() {
  refusing = Object.assign(
    memoryProvider({
      create: (req, store) => {
        if (refusing.refuse)
          return {
            status: 'FAILED',
            errorCode: 'InvalidRequest',
            message: `the password ${String(req.desiredState.Password)} is too weak for a ${String(req.desiredState.Size)} database`,
          };
        store.set(String(req.desiredState.Name), req.desiredState);
        return { status: 'SUCCESS', resourceModel: req.desiredState };
      },
      update: (req, store) => {
        const { Name, Size } = req.desiredState;
        const now = store.get(String(Name));
        if (!now) return { status: 'FAILED', errorCode: 'NotFound', message: `no database ${String(Name)}` };
        if (Size === 'XL')
          return {
            status: 'FAILED',
            errorCode: 'NotUpdatable',
            message: `a ${String(now.Size)} database cannot grow to XL here`,
          };
        store.set(String(Name), req.desiredState);
        return { status: 'SUCCESS', resourceModel: req.desiredState };
      },
    }),
    { refuse: true },
  );
  return { providers: new Map([[BOX_TYPE, refusing]]) };
}

eachStoreService(`${REFUSED} [made without a stack]`, (s) => rollsBack(s, false), refusingProvider);
eachStoreService(
  `${REFUSED} [its stack deployed at create]`,
  async (s) => {
    await judgeDatabases(s);
    await rollsBack(s, true);
  },
  refusingProvider,
);

/** The login's provider in the next test: it records what it was asked. */
let logins: ReturnType<typeof memoryProvider>;

eachStoreService(
  "a lower-level value its type's schema refuses at deploy time rolls the recipe back and fails the operation with InvalidRequest naming the property",
  async (s) => {
    await setUp(s);
    // The suffix lands in the database's Name, whose pattern refuses '!' (seen once the login is made).
    const failed = await createAndSettle(s, {
      name: 'orders',
      size: 'S',
      recipe: { parameters: { Suffix: 'no!' } },
    });
    assert.equal(failed.operationStatus, 'FAILED', JSON.stringify(failed));
    assert.equal(failed.errorCode, 'InvalidRequest', JSON.stringify(failed));
    assert.equal(
      failed.statusMessage,
      'Database: the desired state does not match the schema of Test::Recipe::Database: /Name must match pattern "^[a-z][a-z0-9_-]{0,40}$"',
    );
    assert.deepEqual(
      logins.calls.map((c) => c.action).filter((a) => a !== 'read'),
      ['create', 'delete'],
      'the login was made before the database was refused, then removed',
    );
    await nothingLeft(s, 'orders');
  },
  () => {
    logins = memoryProvider({}, 'logins');
    return { providers: new Map([[LOGIN_TYPE, logins]]) };
  },
);

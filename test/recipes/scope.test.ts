/**
 * Delegation and scope over real HTTP: an admin registers a recipe; a writer token scoped to
 * `MyCompany.*` makes an instance through it without any right on the lower-level types, and sees
 * nothing of them (403 on their resources, the instance's stack missing, drift without types or
 * identifiers, no lower type named in its operation). It cannot register recipes or environments,
 * cannot smuggle template functions into the recipe through the instance's properties, and a token
 * that does reach the lower types cannot deploy or delete the instance's stack directly. On both
 * stores at once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { api, settle, startTestService, type Api, type TestService } from '../helpers/service.js';
import { PG_URL, dropSchema, pgSkip } from '../helpers/postgres.js';
import { stackNameOf } from '../../src/recipes/instance-stack.js';
import { BOX, BOX_TYPE, LOGIN, LOGIN_TYPE, RECIPE, SAMPLE_MANIFEST, SAMPLE_TYPE } from './fixtures.js';

const enc = encodeURIComponent;
const LOWER = [BOX_TYPE, LOGIN_TYPE];

/** A type whose recipe reads a whole object of the instance (its labels) into a lower resource. */
const TAGGED_TYPE = 'Test::Recipe::Tagged';
const TAGGED = JSON.stringify({
  typeName: TAGGED_TYPE,
  description: 'A resource with free-form tags, for tests.',
  properties: {
    Name: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,40}$' },
    Tags: {
      type: 'object',
      patternProperties: { '^.{1,64}$': { type: 'string' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
});
const LABELLED_TYPE = 'MyCompany.Scope/labelledThings';
const LABELLED = `
name: MyCompany.Scope
types:
  labelledThings:
    description: A thing with labels, made by a recipe.
    apiVersions:
      '2025-01-01':
        schema:
          type: object
          properties:
            labels:
              type: object
              description: Free-form labels, copied onto what the recipe makes.
              additionalProperties:
                type: string
    capabilities: ["SupportsRecipes"]
`;
const LABELLED_RECIPE = `
Resources:
  Thing:
    Type: ${TAGGED_TYPE}
    Properties:
      Name: !Sub '\${context.resource.name}_thing'
      Tags: !GetAtt context.resource.properties.labels
`;

// The two stores at once: each mostly waits for its operations.
describe('delegation and scope of a recipe', { concurrency: true }, () => {
  for (const kind of ['sqlite', 'postgresql'] as const)
    describe(`[${kind}]`, { skip: kind === 'postgresql' ? pgSkip : false, concurrency: 1 }, () =>
      scopeOn(kind),
    );
});

function scopeOn(kind: 'sqlite' | 'postgresql'): void {
  let s: TestService;
  /** Writer scoped to MyCompany.*: no right on the lower types. */
  let tenant: Api;
  /** Writer scoped to the lower types only. */
  let lowerWriter: Api;
  let stack: string;
  const schema = `tp_scope_${randomBytes(6).toString('hex')}`;

  async function tokenFor(role: string, types: string[]): Promise<Api> {
    const r = await s.call('POST', '/v1/tokens', { role, types });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return api(s.url, r.body.token);
  }

  function denied(r: { status: number; body: any }, what: string): void {
    assert.equal(r.status, 403, `${what} → ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(r.body.errorCode, 'AccessDenied', what);
  }

  /** No lower type's name anywhere in what a tenant was answered. */
  function namesNoLowerType(value: unknown, what: string): void {
    const text = JSON.stringify(value);
    for (const t of [...LOWER, TAGGED_TYPE, 'Test::Recipe'])
      assert.ok(!text.includes(t), `${what} names ${t}: ${text}`);
  }

  before(async () => {
    s = await startTestService(kind === 'postgresql' ? { database: { url: PG_URL, schema } } : {});
    for (const doc of [BOX, LOGIN, TAGGED, SAMPLE_MANIFEST, LABELLED]) {
      const r = await s.call('POST', '/v1/types', doc, {
        'content-type': doc.startsWith('{') ? 'application/json' : 'application/yaml',
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    for (const [typeName, template] of [
      [SAMPLE_TYPE, RECIPE],
      [LABELLED_TYPE, LABELLED_RECIPE],
    ] as const) {
      const r = await s.call('POST', '/v1/recipes', { typeName, template });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    tenant = await tokenFor('writer', ['MyCompany.*']);
    lowerWriter = await tokenFor('writer', ['Test::Recipe::*']);

    // The tenant makes an instance; every progress event it sees along the way is kept.
    const created = await tenant.call('POST', `/v1/resources/${enc(SAMPLE_TYPE)}`, {
      desiredState: { name: 'orders', size: 'M' },
    });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const token = created.body.progressEvent.requestToken;
    const seen: unknown[] = [created.body];
    for (;;) {
      const r = await tenant.call('GET', `/v1/requests/${token}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      seen.push(r.body);
      if (r.body.progressEvent.operationStatus !== 'IN_PROGRESS') break;
      await new Promise((done) => setTimeout(done, 20));
    }
    const done = (seen.at(-1) as { progressEvent: { operationStatus: string } }).progressEvent;
    assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
    namesNoLowerType(seen, "the instance's operation");
    stack = stackNameOf(SAMPLE_TYPE, 'orders');
  });
  after(async () => {
    await s?.close();
    if (kind === 'postgresql') await dropSchema(schema);
  });

  it('a writer scoped to MyCompany.* makes an instance through the recipe and reads its outputs', async () => {
    const read = await tenant.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    const props = read.body.resourceDescription?.properties ?? read.body.properties;
    assert.equal(props.status.binding.username, 'orders_user');
    assert.equal(props.status.binding.hostname, 'default.db.internal');
    // The recipe's resources exist: the admin sees them.
    assert.equal((await s.call('GET', `/v1/resources/${enc(BOX_TYPE)}/orders_db`)).status, 200);
    assert.equal((await s.call('GET', `/v1/resources/${enc(LOGIN_TYPE)}/orders_user`)).status, 200);
  });

  it('the writer can neither read, change, delete nor list the resources the recipe made', async () => {
    denied(await tenant.call('GET', `/v1/resources/${enc(BOX_TYPE)}/orders_db`), 'GET lower resource');
    denied(
      await tenant.call('PATCH', `/v1/resources/${enc(BOX_TYPE)}/orders_db`, {
        patchDocument: [{ op: 'replace', path: '/Size', value: 'S' }],
      }),
      'PATCH lower resource',
    );
    denied(
      await tenant.call('PUT', `/v1/resources/${enc(LOGIN_TYPE)}/orders_user`, {
        desiredState: { User: 'orders_user', Database: 'elsewhere' },
      }),
      'PUT lower resource',
    );
    denied(
      await tenant.call('DELETE', `/v1/resources/${enc(LOGIN_TYPE)}/orders_user`),
      'DELETE lower resource',
    );
    denied(await tenant.call('GET', `/v1/resources/${enc(BOX_TYPE)}`), 'list lower type');
    denied(await tenant.call('GET', `/v1/types/${enc(BOX_TYPE)}`), 'describe lower type');
    // Untouched by those attempts.
    const db = await s.call('GET', `/v1/resources/${enc(BOX_TYPE)}/orders_db`);
    assert.equal(db.status, 200);
    assert.equal((db.body.resourceDescription?.properties ?? db.body.properties).Size, 'M');
  });

  it("the instance's stack is invisible to the writer: not listed, and missing by name", async () => {
    // Made without a stack, the instance has one written when first needed: its drift, read here by
    // the writer (whose answer names no lower type: see the drift test below).
    assert.equal((await s.call('GET', `/v1/stacks/${stack}`)).status, 404, 'no stack before it is needed');
    assert.equal((await tenant.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders/drift`)).status, 200);
    const adminList = await s.call('GET', '/v1/stacks');
    assert.equal(adminList.status, 200);
    assert.ok(
      adminList.body.stacks.some((x: { stackName: string }) => x.stackName === stack),
      `the admin lists ${stack}: ${JSON.stringify(adminList.body)}`,
    );
    const listed = await tenant.call('GET', '/v1/stacks');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.stacks.filter((x: { stackName: string }) => x.stackName.startsWith('tp-recipe-')),
      [],
    );
    for (const path of ['', '/events', '/outputs', '/drift']) {
      const r = await tenant.call('GET', `/v1/stacks/${stack}${path}`);
      assert.equal(r.status, 404, `GET /v1/stacks/${stack}${path} → ${r.status} ${JSON.stringify(r.body)}`);
      namesNoLowerType(r.body, `GET stack${path}`);
    }
    // The admin does see the stack's events: the 404s above are the scope's, not a missing stack's.
    const events = await s.call('GET', `/v1/stacks/${stack}/events`);
    assert.equal(events.status, 200);
    assert.ok(events.body.events.some((e: { type: string }) => e.type === BOX_TYPE));
  });

  it("the writer's request list holds its instance's operation and none of the lower level's", async () => {
    const mine = await tenant.call('GET', '/v1/requests');
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    const list = mine.body.progressEvents ?? mine.body.requests ?? mine.body.operations;
    assert.ok(Array.isArray(list), JSON.stringify(mine.body));
    assert.ok(list.some((e: { typeName: string }) => e.typeName === SAMPLE_TYPE));
    namesNoLowerType(list, 'the request list');
    const all = await s.call('GET', '/v1/requests');
    const adminList = all.body.progressEvents ?? all.body.requests ?? all.body.operations;
    assert.ok(
      adminList.some((e: { typeName: string }) => e.typeName === BOX_TYPE),
      'the admin lists the lower operations',
    );
  });

  it("drift as the writer shows the recipe's resources without their type or identifier", async () => {
    const r = await tenant.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders/drift`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status, 'IN_SYNC');
    assert.equal(r.body.resources.length, 2);
    for (const res of r.body.resources) {
      assert.deepEqual(Object.keys(res).sort(), ['differences', 'logicalId', 'status'], JSON.stringify(res));
    }
    namesNoLowerType(r.body, 'drift');
    assert.ok(!JSON.stringify(r.body).includes('orders_db'), 'no identifier of a lower resource');
    const admin = await s.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders/drift`);
    assert.deepEqual(admin.body.resources.map((x: { type: string }) => x.type).sort(), [...LOWER].sort());
    denied(
      await lowerWriter.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders/drift`),
      'drift without the instance type',
    );
  });

  it('the writer cannot register, check or delete recipes, nor create or delete environments', async () => {
    const body = { typeName: SAMPLE_TYPE, template: RECIPE };
    denied(await tenant.call('POST', '/v1/recipes', body), 'register');
    denied(await tenant.call('POST', '/v1/recipes/check', body), 'check');
    denied(
      await tenant.call('POST', '/v1/recipes', { ...body, environment: 'default', name: 'mine' }),
      'register',
    );
    denied(await tenant.call('DELETE', `/v1/recipes/default/${enc(SAMPLE_TYPE)}/default`), 'delete recipe');
    denied(await tenant.call('POST', '/v1/environments', { name: 'tenantland' }), 'create environment');
    denied(await tenant.call('DELETE', '/v1/environments/default'), 'delete environment');
    // Still there, one version.
    const shown = await s.call('GET', `/v1/recipes/default/${enc(SAMPLE_TYPE)}/default`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.latest, 1);
    assert.equal((await s.call('GET', '/v1/environments/tenantland')).status, 404);
    // What the writer sees of the recipe leaves out what it makes and how.
    const seen = await tenant.call('GET', `/v1/recipes/default/${enc(SAMPLE_TYPE)}/default`);
    assert.equal(seen.status, 200, JSON.stringify(seen.body));
    assert.equal(seen.body.template, undefined);
    assert.equal(seen.body.types, undefined);
  });

  it("a writer reaching the lower types cannot deploy to, plan for or delete the instance's stack", async () => {
    const template = `Resources:\n  Db:\n    Type: ${LOGIN_TYPE}\n    Properties: { User: hijack }\n`;
    for (const [method, path, body] of [
      ['PUT', `/v1/stacks/${stack}`, { template }],
      ['DELETE', `/v1/stacks/${stack}`, undefined],
      ['POST', `/v1/stacks/${stack}/plans`, { template }],
    ] as const) {
      const r = await lowerWriter.call(method, path, body);
      assert.equal(r.status, 400, `${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.body.errorCode, 'InvalidRequest');
      assert.match(r.body.message, /recipe instance's: change or delete the instance instead/);
    }
    // So can the admin not.
    assert.equal((await s.call('DELETE', `/v1/stacks/${stack}`)).status, 400);
    assert.equal((await s.call('GET', `/v1/resources/${enc(LOGIN_TYPE)}/hijack`)).status, 404);
    assert.equal((await s.call('GET', `/v1/resources/${enc(LOGIN_TYPE)}/orders_user`)).status, 200);
  });

  it('instance properties holding template functions (Ref, Fn::ImportValue) are refused, not run with the recipe’s rights', async () => {
    for (const [name, labels] of [
      ['byref', { Ref: 'AWS::StackName' }],
      ['byimport', { 'Fn::ImportValue': 'someone-elses-export' }],
      ['bysub', { 'Fn::Sub': '${AWS::StackName}' }],
    ] as const) {
      const r = await tenant.call('POST', `/v1/resources/${enc(LABELLED_TYPE)}`, {
        desiredState: { name, labels },
      });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const done = await settle(tenant, r.body.progressEvent.requestToken, 20_000);
      assert.equal(done.operationStatus, 'FAILED', `${name}: ${JSON.stringify(done)}`);
      assert.equal(done.errorCode, 'InvalidRequest', `${name}: ${JSON.stringify(done)}`);
      assert.match(
        done.statusMessage,
        /context\.resource\.properties\.labels holds an object a template would run as a function/,
      );
      namesNoLowerType(done, `${name}'s failure`);
      assert.equal((await s.call('GET', `/v1/resources/${enc(TAGGED_TYPE)}/${name}_thing`)).status, 404);
      assert.equal((await s.call('GET', `/v1/resources/${enc(LABELLED_TYPE)}/${name}`)).status, 404);
    }
    // Inert labels are copied as they are, and a refused name can be used again.
    const r = await tenant.call('POST', `/v1/resources/${enc(LABELLED_TYPE)}`, {
      desiredState: { name: 'byref', labels: { team: 'orders', Ref: 'not-alone' } },
    });
    const done = await settle(tenant, r.body.progressEvent.requestToken, 20_000);
    assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
    const thing = await s.call('GET', `/v1/resources/${enc(TAGGED_TYPE)}/byref_thing`);
    assert.equal(thing.status, 200, JSON.stringify(thing.body));
    assert.deepEqual((thing.body.resourceDescription?.properties ?? thing.body.properties).Tags, {
      team: 'orders',
      Ref: 'not-alone',
    });
    // An update is refused alike, and leaves the instance and what its recipe made as they were.
    const patched = await tenant.call('PATCH', `/v1/resources/${enc(LABELLED_TYPE)}/byref`, {
      patchDocument: [
        { op: 'replace', path: '/labels', value: { 'Fn::ImportValue': 'someone-elses-export' } },
      ],
    });
    assert.equal(patched.status, 202, JSON.stringify(patched.body));
    const refused = await settle(tenant, patched.body.progressEvent.requestToken, 20_000);
    assert.equal(refused.operationStatus, 'FAILED', JSON.stringify(refused));
    assert.equal(refused.errorCode, 'InvalidRequest', JSON.stringify(refused));
    assert.match(refused.statusMessage, /would run as a function/);
    const still = await tenant.call('GET', `/v1/resources/${enc(LABELLED_TYPE)}/byref`);
    assert.deepEqual((still.body.resourceDescription?.properties ?? still.body.properties).labels, {
      team: 'orders',
      Ref: 'not-alone',
    });
    const unchanged = await s.call('GET', `/v1/resources/${enc(TAGGED_TYPE)}/byref_thing`);
    assert.deepEqual((unchanged.body.resourceDescription?.properties ?? unchanged.body.properties).Tags, {
      team: 'orders',
      Ref: 'not-alone',
    });
    const stacks = await s.call('GET', '/v1/stacks');
    assert.equal(
      stacks.body.stacks.filter((x: { stackName: string }) => x.stackName.startsWith('tp-recipe-')).length,
      2,
      `only the two instances' stacks: ${JSON.stringify(stacks.body.stacks.map((x: { stackName: string }) => x.stackName))}`,
    );
  });

  it("the writer's upgrade plan shows each lower resource's logical id and action only", async () => {
    const v2 = await s.call('POST', '/v1/recipes', {
      typeName: SAMPLE_TYPE,
      template: RECIPE,
      parameters: { Suffix: 'v2' },
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    const path = `/v1/resources/${enc(SAMPLE_TYPE)}/orders/upgrade`;
    const admin = await s.call('GET', path);
    assert.equal(admin.status, 200, JSON.stringify(admin.body));
    assert.ok(
      admin.body.changes.some((c: { type?: string }) => c.type === BOX_TYPE),
      JSON.stringify(admin.body),
    );
    const plan = await tenant.call('GET', path);
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
    assert.equal(plan.body.to, 2);
    assert.ok(plan.body.changes.length > 0);
    for (const change of plan.body.changes)
      assert.deepEqual(Object.keys(change).sort(), ['action', 'logicalId'], JSON.stringify(change));
    namesNoLowerType(plan.body, 'the upgrade plan');
  });
}

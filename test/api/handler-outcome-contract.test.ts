/**
 * The engine compares what a create or update SUCCESS returns with what was asked, exactly
 * (`insertionOrder: false` arrays as sets, at every depth): a difference is HandlerInternalFailure
 * naming the provider and the paths. A refused SUCCESS never orphans what the provider made.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider, type Hooks } from '../helpers/providers.js';

const TYPE = 'Test::Outcome::Thing';
const T = encodeURIComponent(TYPE);
const SCHEMA = JSON.stringify({
  typeName: TYPE,
  description: 'A thing whose outcomes are compared.',
  definitions: {
    Rule: {
      type: 'object',
      additionalProperties: false,
      properties: {
        Port: { type: 'integer' },
        Sources: { type: 'array', insertionOrder: false, items: { type: 'string' } },
      },
    },
  },
  properties: {
    Name: { type: 'string' },
    Color: { type: 'string' },
    Secret: { type: 'string' },
    Labels: {
      type: 'object',
      additionalProperties: false,
      patternProperties: { '^[a-z]+$': { type: 'string' } },
    },
    Ordered: { type: 'array', items: { type: 'string' } },
    Rules: { type: 'array', insertionOrder: false, items: { $ref: '#/definitions/Rule' } },
    Port: { type: 'integer' },
    Connection: {
      type: 'object',
      additionalProperties: false,
      properties: { Port: { type: 'integer' }, Password: { type: 'string' } },
      dependencies: { Port: { minProperties: 2 } },
    },
    Arn: { type: 'string' },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name', '/properties/Rules'],
  readOnlyProperties: ['/properties/Arn'],
  writeOnlyProperties: ['/properties/Secret', '/properties/Connection/Password'],
});

const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.close())));

async function serviceWith(hooks: Hooks) {
  const provider = memoryProvider(hooks, 'outcome-provider');
  const svc = await startTestService({ providers: new Map([[TYPE, provider]]) });
  services.push(svc);
  assert.equal((await svc.call('POST', '/v1/types', SCHEMA)).status, 201);
  return { svc, provider };
}

async function created(svc: TestService, desiredState: Record<string, unknown>) {
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return settle(svc, res.body.progressEvent.requestToken);
}

async function patched(svc: TestService, name: string, patchDocument: unknown[]) {
  const res = await svc.call('PATCH', `/v1/resources/${T}/${name}`, { patchDocument });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return settle(svc, res.body.progressEvent.requestToken);
}

/** Stores and answers what a transform makes of the desired state (plus the read-only Arn). */
const answering =
  (transform: (desired: Record<string, unknown>) => Record<string, unknown>): Hooks['create'] =>
  (req, store) => {
    const model = {
      ...transform(structuredClone(req.desiredState)),
      Arn: `arn:${String(req.desiredState.Name)}`,
    };
    store.set(String(req.desiredState.Name), model);
    return { status: 'SUCCESS', resourceModel: model };
  };

test('a create that drops a property fails naming the provider and the path, and the resource stays reachable', async () => {
  const { svc, provider } = await serviceWith({ create: answering(({ Color: _c, ...rest }) => rest) });
  const done = await created(svc, { Name: 'd1', Color: 'red' });
  assert.equal(done.operationStatus, 'FAILED');
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /outcome-provider/);
  assert.match(done.statusMessage, /\/Color/);
  assert.match(done.statusMessage, /recorded/);
  // Not orphaned: listed, readable, deletable; a second create is AlreadyExists, not a duplicate.
  const listed = await svc.call('GET', `/v1/resources/${T}`);
  assert.deepEqual(
    listed.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier),
    ['d1'],
  );
  assert.equal((await svc.call('GET', `/v1/resources/${T}/d1`)).status, 200);
  const del = await svc.call('DELETE', `/v1/resources/${T}/d1`);
  assert.equal((await settle(svc, del.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  assert.equal(provider.store.has('d1'), false, 'the delete reached the provider');
});

test('a create that adds a property nobody asked for fails, naming it', async () => {
  const { svc } = await serviceWith({ create: answering((d) => ({ ...d, Color: 'blue' })) });
  const done = await created(svc, { Name: 'a1' });
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /\/Color/);
});

test('a create that returns exactly what was asked, read-only values added and write-only ones left out, succeeds', async () => {
  const { svc } = await serviceWith({
    create: answering(({ Secret: _s, ...rest }) => ({ ...rest, Connection: { Port: 5432 } })),
  });
  const done = await created(svc, {
    Name: 'ok1',
    Secret: 'p4ssw0rd',
    Connection: { Port: 5432, Password: 'hunter22' },
    Labels: { a: 'x' },
  });
  assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
  // `dependencies` (Port needs Password) is not applied to answers, which never carry the Password.
  assert.deepEqual(done.resourceModel, {
    Name: 'ok1',
    Connection: { Port: 5432 },
    Labels: { a: 'x' },
    Arn: 'arn:ok1',
  });
});

test('an update that merges a map instead of replacing it fails naming the leftover member', async () => {
  const { svc } = await serviceWith({
    update: (req, store) => {
      const before = store.get(String(req.desiredState.Name))!;
      const model = {
        ...req.desiredState,
        Labels: { ...(before.Labels as object), ...(req.desiredState.Labels as object) },
      };
      store.set(String(req.desiredState.Name), model);
      return { status: 'SUCCESS', resourceModel: model };
    },
  });
  assert.equal((await created(svc, { Name: 'm1', Labels: { old: 'x' } })).operationStatus, 'SUCCESS');
  const done = await patched(svc, 'm1', [{ op: 'replace', path: '/Labels', value: { new: 'y' } }]);
  assert.equal(done.operationStatus, 'FAILED');
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /\/Labels\/old/);
  // The provider's model has the schema's shape: it is what the resource is now.
  const read = await svc.call('GET', `/v1/resources/${T}/m1`);
  assert.deepEqual(read.body.properties.Labels, { old: 'x', new: 'y' });
});

test('an update that keeps a removed property fails naming it', async () => {
  const { svc } = await serviceWith({
    update: (req, store) => {
      const model = { ...store.get(String(req.desiredState.Name)), ...req.desiredState };
      store.set(String(req.desiredState.Name), model);
      return { status: 'SUCCESS', resourceModel: model };
    },
  });
  await created(svc, { Name: 'r1', Color: 'red' });
  const done = await patched(svc, 'r1', [{ op: 'remove', path: '/Color' }]);
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /\/Color/);
});

test('unordered arrays compare as sets at every depth; ordered ones in order', async () => {
  const reverse = (v: unknown) => (Array.isArray(v) ? [...v].reverse() : v);
  const { svc } = await serviceWith({
    create: answering((d) => ({
      ...d,
      Rules: reverse(d.Rules),
      ...(Array.isArray(d.Rules)
        ? {
            Rules: reverse(
              (d.Rules as { Sources?: string[] }[]).map((r) => ({ ...r, Sources: reverse(r.Sources) })),
            ),
          }
        : {}),
      ...(d.Ordered ? { Ordered: reverse(d.Ordered) } : {}),
    })),
  });
  const sets = await created(svc, {
    Name: 's1',
    Rules: [
      { Port: 1, Sources: ['a', 'b', 'c'] },
      { Port: 2, Sources: ['d', 'e'] },
    ],
  });
  assert.equal(sets.operationStatus, 'SUCCESS', JSON.stringify(sets));
  const ordered = await created(svc, { Name: 's2', Ordered: ['a', 'b'] });
  assert.equal(ordered.errorCode, 'HandlerInternalFailure');
  assert.match(ordered.statusMessage, /\/Ordered/);
  // A multiset: a duplicate is not the same as two different items.
  const { svc: other } = await serviceWith({
    create: answering((d) => ({ ...d, Rules: [{ Port: 1 }, { Port: 1 }] })),
  });
  const dup = await created(other, { Name: 's3', Rules: [{ Port: 1 }, { Port: 2 }] });
  assert.equal(dup.errorCode, 'HandlerInternalFailure');
});

test('a create-only unordered array given in another order is not a change (no NotUpdatable)', async () => {
  const { svc } = await serviceWith({});
  await created(svc, { Name: 'c1', Rules: [{ Port: 1 }, { Port: 2 }] });
  const res = await svc.call('PATCH', `/v1/resources/${T}/c1`, {
    patchDocument: [{ op: 'replace', path: '/Rules', value: [{ Port: 2 }, { Port: 1 }] }],
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const changed = await svc.call('PATCH', `/v1/resources/${T}/c1`, {
    patchDocument: [{ op: 'replace', path: '/Rules', value: [{ Port: 3 }] }],
  });
  assert.equal(changed.status, 400);
  assert.equal(changed.body.errorCode, 'NotUpdatable');
});

test('a refused create whose model is off the schema records what was asked, so it can be deleted', async () => {
  const { svc, provider } = await serviceWith({ create: answering((d) => ({ ...d, Port: 'not-a-number' })) });
  const done = await created(svc, { Name: 'o1', Color: 'red' });
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /recorded/);
  const listed = await svc.call('GET', `/v1/resources/${T}`);
  assert.deepEqual(listed.body.resourceDescriptions, [
    { identifier: 'o1', properties: { Name: 'o1', Color: 'red' } },
  ]);
  const del = await svc.call('DELETE', `/v1/resources/${T}/o1`);
  assert.equal((await settle(svc, del.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  assert.equal(provider.store.size, 0);
});

test('a refused create without a usable identifier records nothing', async () => {
  const { svc } = await serviceWith({ create: () => ({ status: 'SUCCESS', resourceModel: { Color: 'x' } }) });
  const done = await created(svc, { Name: 'n1' });
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.doesNotMatch(done.statusMessage, /recorded/);
  assert.equal((await svc.call('GET', `/v1/resources/${T}/n1`)).status, 404);
});

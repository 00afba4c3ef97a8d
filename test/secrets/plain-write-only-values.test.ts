/**
 * Records that hold write-only values in plain — a type re-registered so that a property becomes
 * write-only, or records written before sealing existed — never show those values: reads, lists and
 * request events strip them by the type as registered now. Such a record is sealed when next written
 * (re-registration rewrites no records).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const KEPT = 'Test::Vault::Kept'; // served by the state provider: reads answer from the record
const REMOTE = 'Test::Vault::Remote'; // served by a provider of its own: reads ask it
const TOKEN = 'tok-Vb7nM2qL9xZe';
const TOKEN_REMOTE = 'tok-Pw4hJ8sK1cRy';
const SECRET = 'secret-Gt5fD3aS6wQu';

function schema(typeName: string, writeOnly: boolean): string {
  return JSON.stringify({
    typeName,
    description: 'A type whose Token may be made write-only later.',
    properties: { Name: { type: 'string' }, Token: { type: 'string' }, Note: { type: 'string' } },
    additionalProperties: false,
    required: ['Name'],
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
    ...(writeOnly ? { writeOnlyProperties: ['/properties/Token'] } : {}),
  });
}

/** Every answer a reader can get about `typeName`'s resource `name` and the requests on it. */
async function everyAnswer(svc: TestService, typeName: string, name: string): Promise<string[]> {
  const R = `/v1/resources/${encodeURIComponent(typeName)}`;
  const answers = [
    await svc.call('GET', `${R}/${name}`),
    await svc.call('GET', R),
    await svc.call('GET', `/v1/requests?maxResults=100`),
  ];
  for (const event of answers[2]!.body.progressEvents)
    answers.push(await svc.call('GET', `/v1/requests/${event.requestToken}`));
  for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answers[0]!.body.properties.Name, name, 'the read answered the resource');
  assert.ok(answers[1]!.body.resourceDescriptions.length > 0, 'the list answered the resource');
  return answers.map((a) => JSON.stringify(a.body));
}

function assertNowhere(secret: string, answers: string[]): void {
  for (const answer of answers) assert.ok(!answer.includes(secret), `an answer shows ${secret}: ${answer}`);
}

test('a property made write-only by re-registering its type disappears from reads, lists and request events', async (t) => {
  const remote = memoryProvider();
  const svc = await startTestService({ providers: new Map([[REMOTE, remote]]) });
  t.after(() => svc.close());
  for (const type of [KEPT, REMOTE])
    assert.equal((await svc.call('POST', '/v1/types', schema(type, false))).status, 201);
  for (const [type, token] of [
    [KEPT, TOKEN],
    [REMOTE, TOKEN_REMOTE],
  ] as const) {
    const created = await svc.call('POST', `/v1/resources/${encodeURIComponent(type)}?wait=5`, {
      desiredState: { Name: 'k1', Token: token },
    });
    assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
    // Not write-only yet: shown like any property.
    assert.equal(created.body.progressEvent.resourceModel.Token, token);
  }

  // Making a property write-only while resources exist is a breaking change: allowed explicitly.
  for (const type of [KEPT, REMOTE])
    assert.equal((await svc.call('POST', '/v1/types?allowBreaking=true', schema(type, true))).status, 201);
  // The premise: the records still hold the values in plain, and the provider still reports its own.
  assert.equal((await svc.store.getResource(KEPT, 'k1'))?.properties.Token, TOKEN);
  assert.equal((await svc.store.getResource(REMOTE, 'k1'))?.properties.Token, TOKEN_REMOTE);
  assert.equal(remote.store.get('k1')?.Token, TOKEN_REMOTE);

  const kept = await everyAnswer(svc, KEPT, 'k1');
  const fromProvider = await everyAnswer(svc, REMOTE, 'k1');
  assertNowhere(TOKEN, kept);
  assertNowhere(TOKEN_REMOTE, fromProvider);
  assert.ok(
    remote.calls.some((c) => c.action === 'read'),
    "the provider's read answered",
  );

  // The next write seals the value; the provider is still handed it whole.
  const noted = await svc.call('PATCH', `/v1/resources/${encodeURIComponent(REMOTE)}/k1?wait=5`, {
    patchDocument: [{ op: 'add', path: '/Note', value: 'sealed now' }],
  });
  assert.equal(noted.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(noted.body));
  assert.equal(remote.calls.findLast((c) => c.action === 'update')?.req.desiredState.Token, TOKEN_REMOTE);
  const record = (await svc.store.getResource(REMOTE, 'k1'))!;
  assert.equal(record.properties.Token, undefined);
  assert.ok(record.sealed, 'the value is sealed beside the record');
  assertNowhere(TOKEN_REMOTE, await everyAnswer(svc, REMOTE, 'k1'));
});

test('a record written before sealing existed shows none of its write-only values', async (t) => {
  const svc = await startTestService();
  t.after(() => svc.close());
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  // Written straight to the store, as an older Typeplane did: the write-only Secret in plain.
  const at = new Date().toISOString();
  const op = {
    requestToken: 'before-sealing-1',
    typeName: WIDGET_TYPE,
    identifier: 'old',
    operation: 'CREATE' as const,
    status: 'IN_PROGRESS' as const,
    eventTime: at,
    request: { desiredState: { Name: 'old', Secret: SECRET } },
    startedAt: at,
    deadlineAt: at,
    attempts: 0,
  };
  assert.equal((await svc.store.beginOperation(op)).kind, 'started');
  const model = { Name: 'old', Size: 'S', Secret: SECRET };
  await svc.store.finishOperation(
    { ...op, status: 'SUCCESS', resourceModel: model },
    {
      kind: 'put',
      resource: { typeName: WIDGET_TYPE, identifier: 'old', properties: model, createdAt: at, updatedAt: at },
    },
  );

  const answers = await everyAnswer(svc, WIDGET_TYPE, 'old');
  assertNowhere(SECRET, answers);
  assert.deepEqual(JSON.parse(answers[0]!).properties, { Name: 'old', Size: 'S' });
  const event = await settle(svc, 'before-sealing-1');
  assert.deepEqual(event.resourceModel, { Name: 'old', Size: 'S' });
});

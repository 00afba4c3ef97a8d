/**
 * The AWS SDK for JavaScript (`@aws-sdk/client-cloudcontrol`) against a real `typeplane serve`
 * process over loopback: the whole life of a resource, its errors as the SDK's classes, and the
 * native API seeing the same resources and requests (one engine, one store).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import {
  ClientTokenConflictException,
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  InvalidRequestException,
  NotUpdatableException,
  RequestTokenNotFoundException,
  ResourceNotFoundException,
  TypeNotFoundException,
  UpdateResourceCommand,
  paginateListResources,
  waitUntilResourceRequestSuccess,
  type CloudControlClient,
} from '@aws-sdk/client-cloudcontrol';
import { FAST_WAITER, cloudControl, issueKeys } from '../helpers/cloudcontrol.js';
import { WIDGET, WIDGET_TYPE, api, settle, spawnServer, tempDir, type Api } from '../helpers/service.js';

let child: ChildProcess;
let native: Api;
let cc: CloudControlClient;
let admin: Api;
let url: string;
const T = encodeURIComponent(WIDGET_TYPE);

before(async () => {
  const server = await spawnServer(tempDir());
  child = server.child;
  url = server.url;
  admin = api(server.url, server.token);
  assert.equal((await admin.call('POST', '/v1/types', WIDGET)).status, 201);
  const keys = await issueKeys(admin, 'writer');
  native = api(server.url, keys.token);
  cc = cloudControl(server.url, keys);
});
after(() => {
  cc?.destroy();
  child?.kill('SIGTERM');
});

async function createAndWait(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { ProgressEvent } = await cc.send(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: JSON.stringify({ Name: name, ...extra }),
    }),
  );
  await waitUntilResourceRequestSuccess(
    { client: cc, ...FAST_WAITER },
    { RequestToken: ProgressEvent!.RequestToken! },
  );
  return ProgressEvent!.RequestToken!;
}

test('create, wait, get, update with a patch, list across pages and delete, all through the SDK', async () => {
  const created = await cc.send(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: JSON.stringify({ Name: 'life', Color: 'red', Secret: 's3cret' }),
    }),
  );
  const event = created.ProgressEvent!;
  assert.equal(event.TypeName, WIDGET_TYPE);
  assert.equal(event.Operation, 'CREATE');
  assert.ok(['PENDING', 'IN_PROGRESS', 'SUCCESS'].includes(event.OperationStatus!));
  // EventTime travels as epoch seconds; the SDK makes it a Date.
  assert.ok(event.EventTime instanceof Date && Math.abs(event.EventTime.getTime() - Date.now()) < 60_000);
  assert.match(event.RequestToken!, /^[-A-Za-z0-9+/=]{1,128}$/);

  const waited = await waitUntilResourceRequestSuccess(
    { client: cc, ...FAST_WAITER },
    { RequestToken: event.RequestToken! },
  );
  assert.equal(waited.state, 'SUCCESS');
  const status = await cc.send(new GetResourceRequestStatusCommand({ RequestToken: event.RequestToken! }));
  assert.equal(status.ProgressEvent!.OperationStatus, 'SUCCESS');
  assert.equal(status.ProgressEvent!.Identifier, 'life');
  // The model is JSON text, without the write-only Secret.
  assert.deepEqual(JSON.parse(status.ProgressEvent!.ResourceModel!), {
    Name: 'life',
    Color: 'red',
    Size: 'S',
  });

  const got = await cc.send(new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'life' }));
  assert.equal(got.TypeName, WIDGET_TYPE);
  assert.equal(got.ResourceDescription!.Identifier, 'life');
  assert.deepEqual(JSON.parse(got.ResourceDescription!.Properties!), {
    Name: 'life',
    Color: 'red',
    Size: 'S',
  });

  const updated = await cc.send(
    new UpdateResourceCommand({
      TypeName: WIDGET_TYPE,
      Identifier: 'life',
      PatchDocument: JSON.stringify([
        { op: 'replace', path: '/Color', value: 'green' },
        { op: 'add', path: '/Count', value: 3 },
      ]),
    }),
  );
  assert.equal(updated.ProgressEvent!.Operation, 'UPDATE');
  await waitUntilResourceRequestSuccess(
    { client: cc, ...FAST_WAITER },
    { RequestToken: updated.ProgressEvent!.RequestToken! },
  );
  const after = await cc.send(new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'life' }));
  assert.deepEqual(JSON.parse(after.ResourceDescription!.Properties!), {
    Name: 'life',
    Color: 'green',
    Size: 'S',
    Count: 3,
  });

  for (const name of ['page-a', 'page-b', 'page-c', 'page-d', 'page-e']) await createAndWait(name);
  const pages: string[][] = [];
  for await (const page of paginateListResources({ client: cc, pageSize: 2 }, { TypeName: WIDGET_TYPE })) {
    assert.equal(page.TypeName, WIDGET_TYPE);
    assert.ok(page.ResourceDescriptions!.length <= 2);
    pages.push(page.ResourceDescriptions!.map((d) => d.Identifier!));
    for (const d of page.ResourceDescriptions!) assert.equal(JSON.parse(d.Properties!).Name, d.Identifier);
  }
  assert.ok(pages.length >= 3, `expected at least 3 pages, got ${JSON.stringify(pages)}`);
  const listed = pages.flat();
  assert.equal(new Set(listed).size, listed.length, 'no resource is listed twice');
  for (const name of ['life', 'page-a', 'page-b', 'page-c', 'page-d', 'page-e'])
    assert.ok(listed.includes(name));

  const deleted = await cc.send(new DeleteResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'life' }));
  assert.equal(deleted.ProgressEvent!.Operation, 'DELETE');
  await waitUntilResourceRequestSuccess(
    { client: cc, ...FAST_WAITER },
    { RequestToken: deleted.ProgressEvent!.RequestToken! },
  );
  await assert.rejects(
    cc.send(new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'life' })),
    (e: unknown) => e instanceof ResourceNotFoundException && e.$metadata.httpStatusCode === 404,
  );
});

test('errors arrive as the SDK exception classes with their HTTP statuses', async () => {
  const rejectsWith = (p: Promise<unknown>, cls: abstract new (...args: never[]) => Error, status: number) =>
    assert.rejects(p, (e: unknown) => {
      assert.ok(e instanceof cls, `expected ${cls.name}, got ${String(e)}`);
      assert.equal(
        (e as unknown as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode,
        status,
      );
      assert.ok((e as Error).message.length > 0);
      return true;
    });
  await rejectsWith(
    cc.send(new GetResourceCommand({ TypeName: 'Test::No::Such', Identifier: 'x' })),
    TypeNotFoundException,
    404,
  );
  await rejectsWith(
    cc.send(new GetResourceRequestStatusCommand({ RequestToken: 'no-such-request' })),
    RequestTokenNotFoundException,
    404,
  );
  await rejectsWith(
    cc.send(new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: '{"Name": 5}' })),
    InvalidRequestException,
    400,
  );
  await rejectsWith(
    cc.send(new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: '{not json' })),
    InvalidRequestException,
    400,
  );
  await createAndWait('fixed');
  await rejectsWith(
    cc.send(
      new UpdateResourceCommand({
        TypeName: WIDGET_TYPE,
        Identifier: 'fixed',
        PatchDocument: JSON.stringify([{ op: 'replace', path: '/Name', value: 'other' }]),
      }),
    ),
    NotUpdatableException,
    400,
  );
  // The same client token with another body is refused; with the same body it replays the request.
  const first = await cc.send(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: '{"Name":"tok"}',
      ClientToken: 'ct-1+/=',
    }),
  );
  const again = await cc.send(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: '{"Name":"tok"}',
      ClientToken: 'ct-1+/=',
    }),
  );
  assert.equal(again.ProgressEvent!.RequestToken, first.ProgressEvent!.RequestToken);
  await rejectsWith(
    cc.send(
      new CreateResourceCommand({
        TypeName: WIDGET_TYPE,
        DesiredState: '{"Name":"tok2"}',
        ClientToken: 'ct-1+/=',
      }),
    ),
    ClientTokenConflictException,
    409,
  );
  await assert.rejects(
    cc.send(
      new CreateResourceCommand({
        TypeName: WIDGET_TYPE,
        DesiredState: '{"Name":"tok3"}',
        ClientToken: 'ct-1+/=',
      }),
    ),
    /the ClientToken was already used for a different request/,
  );
});

test("client tokens are each key pair's own: another team's key reusing one neither conflicts nor replays", async () => {
  const first = await cc.send(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: '{"Name":"mine"}',
      ClientToken: 'shared-1',
    }),
  );
  const other = cloudControl(url, await issueKeys(admin, 'writer'));
  try {
    const theirs = await other.send(
      new CreateResourceCommand({
        TypeName: WIDGET_TYPE,
        DesiredState: '{"Name":"theirs"}',
        ClientToken: 'shared-1',
      }),
    );
    assert.notEqual(theirs.ProgressEvent!.RequestToken, first.ProgressEvent!.RequestToken);
    await waitUntilResourceRequestSuccess(
      { client: other, ...FAST_WAITER },
      { RequestToken: theirs.ProgressEvent!.RequestToken! },
    );
    const read = await other.send(new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'theirs' }));
    assert.equal(JSON.parse(read.ResourceDescription!.Properties!).Name, 'theirs');
  } finally {
    other.destroy();
  }
});

test('a create of an existing resource fails in its event with ErrorCode AlreadyExists, as Cloud Control reports it', async () => {
  await createAndWait('twice');
  const { ProgressEvent } = await cc.send(
    new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: '{"Name":"twice"}' }),
  );
  await assert.rejects(
    waitUntilResourceRequestSuccess(
      { client: cc, ...FAST_WAITER },
      { RequestToken: ProgressEvent!.RequestToken! },
    ),
    /FAILED/,
  );
  const { ProgressEvent: done } = await cc.send(
    new GetResourceRequestStatusCommand({ RequestToken: ProgressEvent!.RequestToken! }),
  );
  assert.equal(done!.OperationStatus, 'FAILED');
  assert.equal(done!.ErrorCode, 'AlreadyExists');
});

test('the native API and Cloud Control see the same resources and requests', async () => {
  // Created through Cloud Control: read, changed and followed through /v1.
  const viaCc = await createAndWait('shared', { Color: 'blue' });
  const request = await native.call('GET', `/v1/requests/${viaCc}`);
  assert.equal(request.status, 200);
  assert.equal(request.body.progressEvent.operationStatus, 'SUCCESS');
  const read = await native.call('GET', `/v1/resources/${T}/shared`);
  assert.deepEqual(read.body.properties, { Name: 'shared', Color: 'blue', Size: 'S' });
  const patched = await native.call('PATCH', `/v1/resources/${T}/shared`, {
    patchDocument: [{ op: 'replace', path: '/Color', value: 'white' }],
  });
  const done = await settle(native, patched.body.progressEvent.requestToken);
  assert.equal(done.operationStatus, 'SUCCESS');
  const seen = await cc.send(new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'shared' }));
  assert.deepEqual(JSON.parse(seen.ResourceDescription!.Properties!), {
    Name: 'shared',
    Color: 'white',
    Size: 'S',
  });
  // A request begun natively is followed through Cloud Control, its event in both shapes alike.
  const status = await cc.send(
    new GetResourceRequestStatusCommand({ RequestToken: patched.body.progressEvent.requestToken }),
  );
  const e = status.ProgressEvent!;
  assert.equal(e.Operation, done.operation);
  assert.equal(e.OperationStatus, done.operationStatus);
  assert.equal(e.Identifier, done.identifier);
  assert.equal(e.EventTime!.getTime(), Date.parse(done.eventTime));
  assert.deepEqual(JSON.parse(e.ResourceModel!), done.resourceModel);
  // Created natively, deleted through Cloud Control; gone for both.
  const made = await native.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'native-made' } });
  await settle(native, made.body.progressEvent.requestToken);
  const del = await cc.send(new DeleteResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'native-made' }));
  await waitUntilResourceRequestSuccess(
    { client: cc, ...FAST_WAITER },
    { RequestToken: del.ProgressEvent!.RequestToken! },
  );
  assert.equal((await native.call('GET', `/v1/resources/${T}/native-made`)).status, 404);
});

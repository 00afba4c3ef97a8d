/**
 * TypeVersionId names a registered version of the type, as `GET /v1/types/{typeName}` lists it (`2`)
 * or in CloudFormation's form (`00000002`): creates and updates are checked against (and run with)
 * that version; reads, deletes and lists refuse a version the type does not have.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceCommand,
  InvalidRequestException,
  ListResourcesCommand,
  TypeNotFoundException,
  UpdateResourceCommand,
  waitUntilResourceRequestSuccess,
  type CloudControlClient,
} from '@aws-sdk/client-cloudcontrol';
import { FAST_WAITER, cloudControl, issueKeys } from '../helpers/cloudcontrol.js';
import { WIDGET, WIDGET_TYPE, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let cc: CloudControlClient;

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  // Version 2 adds an optional property (a safe change): version 1 still refuses it.
  const v2 = JSON.parse(WIDGET);
  v2.properties.Shade = { type: 'string' };
  const second = await svc.call('POST', '/v1/types', JSON.stringify(v2));
  assert.ok(second.status === 200 || second.status === 201, JSON.stringify(second.body));
  cc = cloudControl(svc.url, await issueKeys(svc, 'writer'));
});
after(() => svc.close());

const create = (model: unknown, TypeVersionId?: string) =>
  cc.send(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: JSON.stringify(model),
      ...(TypeVersionId ? { TypeVersionId } : {}),
    }),
  );

async function refusedAs(p: Promise<unknown>, kind: new (...args: any[]) => Error): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof kind, `${(e as Error).name}: ${(e as Error).message}`);
    return (e as Error).message;
  }
  throw new Error('the call succeeded');
}

test('creates and updates are checked against the version TypeVersionId names, in either form', async () => {
  assert.match(
    await refusedAs(create({ Name: 'v1-shaded', Shade: 'dark' }, '1'), InvalidRequestException),
    /'Shade' is not a declared property/,
  );
  const current = await create({ Name: 'v2-shaded', Shade: 'dark' }, '00000002');
  await waitUntilResourceRequestSuccess(
    { client: cc, ...FAST_WAITER },
    { RequestToken: current.ProgressEvent!.RequestToken! },
  );
  const update = (TypeVersionId: string) =>
    cc.send(
      new UpdateResourceCommand({
        TypeName: WIDGET_TYPE,
        Identifier: 'v2-shaded',
        PatchDocument: JSON.stringify([{ op: 'replace', path: '/Shade', value: 'light' }]),
        TypeVersionId,
      }),
    );
  assert.match(
    await refusedAs(update('00000001'), InvalidRequestException),
    /patch path \/Shade is not a property of Test::Shop::Widget/,
  );
  const done = await update('2');
  await waitUntilResourceRequestSuccess(
    { client: cc, ...FAST_WAITER },
    { RequestToken: done.ProgressEvent!.RequestToken! },
  );
  const got = await cc.send(
    new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'v2-shaded', TypeVersionId: '2' }),
  );
  assert.equal(JSON.parse(got.ResourceDescription!.Properties!).Shade, 'light');
});

test('a version the type does not have is TypeNotFoundException naming the versions it has, for every operation', async () => {
  const identifier = { TypeName: WIDGET_TYPE, Identifier: 'v2-shaded', TypeVersionId: '00000009' };
  for (const call of [
    create({ Name: 'nine' }, '9'),
    cc.send(new GetResourceCommand(identifier)),
    cc.send(new DeleteResourceCommand(identifier)),
    cc.send(new ListResourcesCommand({ TypeName: WIDGET_TYPE, TypeVersionId: '9' })),
  ])
    assert.match(await refusedAs(call, TypeNotFoundException), /has no version "9"; its versions are 1, 2/);
  // The resource is untouched.
  const got = await cc.send(new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'v2-shaded' }));
  assert.equal(got.ResourceDescription!.Identifier, 'v2-shaded');
});

test('a TypeVersionId that is not a version number is InvalidRequestException saying what one looks like', async () => {
  for (const bad of ['latest', '0', '1.0', '-1', '1234567890'])
    assert.match(
      await refusedAs(create({ Name: 'bad-version' }, bad), InvalidRequestException),
      /TypeVersionId must be a version number of Test::Shop::Widget, like 2 or 00000002/,
    );
});

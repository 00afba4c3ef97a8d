/**
 * ListResources with a ResourceModel filter (every top-level property it names must equal the
 * resource's), and each operation's input members read strictly: wrong types, bounds, unknown
 * members and malformed documents are InvalidRequestException naming the member; RoleArn is accepted
 * and changes nothing (TypeVersionId: see type-versions.test.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateResourceCommand,
  InvalidRequestException,
  ListResourcesCommand,
  paginateListResources,
  waitUntilResourceRequestSuccess,
  type CloudControlClient,
} from '@aws-sdk/client-cloudcontrol';
import { FAST_WAITER, cloudControl, issueKeys, type AccessKeysOut } from '../helpers/cloudcontrol.js';
import { WIDGET, WIDGET_TYPE, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let cc: CloudControlClient;
let keys: AccessKeysOut;

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  keys = await issueKeys(svc, 'writer');
  cc = cloudControl(svc.url, keys);
  const widgets = [
    { Name: 'r1', Color: 'red', Labels: ['a', 'b'] },
    { Name: 'r2', Color: 'red', Size: 'L' },
    { Name: 'b1', Color: 'blue', Labels: ['a', 'b'] },
    { Name: 'b2', Color: 'blue', Secret: 'hidden' },
    { Name: 'r3', Color: 'red', Size: 'L' },
  ];
  for (const w of widgets) {
    const { ProgressEvent } = await cc.send(
      new CreateResourceCommand({
        TypeName: WIDGET_TYPE,
        DesiredState: JSON.stringify(w),
        // Accepted as AWS takes them: the type's one version, in CloudFormation's form; no role is assumed.
        TypeVersionId: '00000001',
        RoleArn: 'arn:aws:iam::123456789012:role/ignored',
      }),
    );
    await waitUntilResourceRequestSuccess(
      { client: cc, ...FAST_WAITER },
      { RequestToken: ProgressEvent!.RequestToken! },
    );
  }
});
after(() => svc.close());

async function matching(model: unknown, pageSize = 2): Promise<string[]> {
  const names: string[] = [];
  for await (const page of paginateListResources(
    { client: cc, pageSize },
    { TypeName: WIDGET_TYPE, ResourceModel: JSON.stringify(model) },
  ))
    names.push(...page.ResourceDescriptions!.map((d) => d.Identifier!));
  return names.sort();
}

test('ResourceModel keeps the resources whose top-level properties equal all it names, across pages', async () => {
  assert.deepEqual(await matching({ Color: 'red' }), ['r1', 'r2', 'r3']);
  assert.deepEqual(await matching({ Color: 'red', Size: 'L' }), ['r2', 'r3']);
  // Arrays and objects compare by value; defaults count as the resource holds them.
  assert.deepEqual(await matching({ Labels: ['a', 'b'] }), ['b1', 'r1']);
  assert.deepEqual(await matching({ Size: 'S', Color: 'blue' }), ['b1', 'b2']);
  assert.deepEqual(await matching({ Color: 'green' }), []);
  assert.deepEqual(await matching({}), ['b1', 'b2', 'r1', 'r2', 'r3']);
  // A write-only value is never shown, so it cannot be matched (or guessed) through a filter.
  assert.deepEqual(await matching({ Secret: 'hidden' }), []);
});

test('malformed members are InvalidRequestException naming the member', async () => {
  const refused = async (command: ListResourcesCommand | CreateResourceCommand, pattern: RegExp) =>
    assert.rejects(cc.send(command as never), (e: unknown) => {
      assert.ok(e instanceof InvalidRequestException, String(e));
      assert.match((e as Error).message, pattern);
      return true;
    });
  await refused(
    new ListResourcesCommand({ TypeName: WIDGET_TYPE, ResourceModel: '["Color"]' }),
    /ResourceModel must be a JSON object/,
  );
  await refused(
    new ListResourcesCommand({ TypeName: WIDGET_TYPE, MaxResults: 101 }),
    /MaxResults must be a whole number from 1 to 100/,
  );
  await refused(new ListResourcesCommand({ TypeName: WIDGET_TYPE, MaxResults: 0 }), /MaxResults/);
  await refused(
    new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: '{"Name":"x"', ClientToken: 'c1' }),
    /DesiredState must be a JSON document/,
  );
  await refused(
    new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: '{"__proto__":{"x":1}}' }),
    /DesiredState/,
  );
  await refused(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: '{"Name":"ok"}',
      ClientToken: 'not valid!',
    }),
    /ClientToken must be/,
  );
  await refused(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: JSON.stringify({ Name: 'x'.repeat(20_000) }),
    }),
    /DesiredState must be a string of 1 to 16384 characters/,
  );
});

test('the protocol refuses unknown members and wrong member types by name (raw requests, signed by the SDK)', async () => {
  // The SDK only sends modelled members: a middleware before signing sends the body as given.
  const send = (body: string) => {
    const client = cloudControl(svc.url, keys);
    client.middlewareStack.add(
      (next: any) => (args: any) => {
        args.request.body = body;
        args.request.headers['content-length'] = String(Buffer.byteLength(body));
        return next(args);
      },
      { step: 'build', name: 'rawBody', priority: 'low' },
    );
    return client.send(new ListResourcesCommand({ TypeName: WIDGET_TYPE }));
  };
  await assert.rejects(send(JSON.stringify({ TypeName: WIDGET_TYPE, Filter: 'x' })), (e: unknown) => {
    assert.ok(e instanceof InvalidRequestException);
    assert.match((e as Error).message, /ListResources has no member 'Filter'; its members are TypeName/);
    return true;
  });
  await assert.rejects(send(JSON.stringify({ TypeName: 7 })), /TypeName must be a string/);
  await assert.rejects(
    send(JSON.stringify({ TypeName: WIDGET_TYPE, MaxResults: '5' })),
    /MaxResults must be a whole number/,
  );
  await assert.rejects(send('[1]'), (e: unknown) => (e as Error).name === 'SerializationException');
  await assert.rejects(send('{"TypeName": '), (e: unknown) => (e as Error).name === 'SerializationException');
});

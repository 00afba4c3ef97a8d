/**
 * Every Cloud Control request is verified as AWS verifies Signature Version 4: requests signed by the
 * real SDK pass from any region; a wrong secret, an unknown or revoked key, a session token, a
 * request more than five minutes old or ahead, a body or a signed header changed after signing are
 * refused with AWS's exception names; a key carries its token's role and type globs.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  CancelResourceRequestCommand,
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourceRequestsCommand,
  ListResourcesCommand,
  UpdateResourceCommand,
  type CloudControlClient,
} from '@aws-sdk/client-cloudcontrol';
import { cloudControl, issueKeys, type AccessKeysOut } from '../helpers/cloudcontrol.js';
import { WIDGET, WIDGET_TYPE, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let writer: AccessKeysOut;

const OTHER = JSON.stringify({
  typeName: 'Test::Other::Gadget',
  description: 'Another type, outside a scoped key.',
  properties: { Name: { type: 'string' } },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
});

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  assert.equal((await svc.call('POST', '/v1/types', OTHER)).status, 201);
  writer = await issueKeys(svc, 'writer');
});
after(() => svc.close());

/** The SDK error a call ends with: its exception name, HTTP status and message. */
async function refusal(p: Promise<unknown>): Promise<{ name: string; status: number; message: string }> {
  try {
    await p;
  } catch (e) {
    const error = e as Error & { $metadata?: { httpStatusCode?: number } };
    return { name: error.name, status: error.$metadata?.httpStatusCode ?? 0, message: error.message };
  }
  throw new Error('the call succeeded');
}

const list = (client: CloudControlClient, typeName = WIDGET_TYPE) =>
  client.send(new ListResourcesCommand({ TypeName: typeName }));

/** Change the request after the SDK signed it. */
function afterSigning(client: CloudControlClient, change: (request: any) => void): CloudControlClient {
  client.middlewareStack.addRelativeTo(
    (next: any) => (args: any) => {
      change(args.request);
      return next(args);
    },
    { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'tamper' },
  );
  return client;
}

test('requests signed for any region are accepted', async () => {
  for (const region of ['us-east-1', 'ap-southeast-2', 'local']) {
    const out = await list(cloudControl(svc.url, writer, { region }));
    assert.equal(out.TypeName, WIDGET_TYPE);
  }
});

test('a wrong secret is refused with InvalidSignatureException', async () => {
  const wrong = cloudControl(svc.url, {
    ...writer,
    secretAccessKey: writer.secretAccessKey.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
  });
  const r = await refusal(list(wrong));
  assert.equal(r.name, 'InvalidSignatureException');
  assert.equal(r.status, 400);
  assert.match(r.message, /signature we calculated does not match/);
});

test('unknown, foreign and session credentials are refused as AWS refuses a key it does not know, each with its reason', async () => {
  const unknown = await refusal(
    list(
      cloudControl(svc.url, { accessKeyId: 'TPAKAAAAAAAAAAAAAAAA', secretAccessKey: writer.secretAccessKey }),
    ),
  );
  const foreign = await refusal(
    list(
      cloudControl(svc.url, { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: writer.secretAccessKey }),
    ),
  );
  const session = await refusal(
    list(
      new (await import('@aws-sdk/client-cloudcontrol')).CloudControlClient({
        endpoint: svc.url,
        region: 'us-east-1',
        credentials: { ...writer, sessionToken: 'FwoGZXIvYXdzE-session' },
      }),
    ),
  );
  const reasons = [
    [unknown, /Access key TPAKAAAAAAAAAAAAAAAA is unknown or its token was revoked; .*--aws-keys/],
    [foreign, /not an access key id Typeplane issued \(they begin with TPAK\); .*--aws-keys/],
    [session, /x-amz-security-token\) are not accepted: .*unset AWS_SESSION_TOKEN/],
  ] as const;
  for (const [refused, reason] of reasons) {
    assert.deepEqual([refused.name, refused.status], ['UnrecognizedClientException', 400], refused.message);
    assert.ok(
      refused.message.startsWith('The security token included in the request is invalid. '),
      refused.message,
    );
    assert.match(refused.message, reason);
  }
});

test('a request more than five minutes old or ahead is refused; within the window it passes', async () => {
  const old = await refusal(
    list(cloudControl(svc.url, writer, { systemClockOffset: -6 * 60_000, maxAttempts: 1 })),
  );
  assert.equal(old.name, 'InvalidSignatureException');
  assert.match(old.message, /Signature expired: \d{8}T\d{6}Z is now earlier than/);
  const ahead = await refusal(
    list(cloudControl(svc.url, writer, { systemClockOffset: 6 * 60_000, maxAttempts: 1 })),
  );
  assert.equal(ahead.name, 'InvalidSignatureException');
  assert.match(ahead.message, /Signature not yet current/);
  const skewed = await list(
    cloudControl(svc.url, writer, { systemClockOffset: -4 * 60_000, maxAttempts: 1 }),
  );
  assert.equal(skewed.TypeName, WIDGET_TYPE);
  // The SDK corrects its clock from the answer's Date header and signs again, as against AWS.
  const corrected = await list(cloudControl(svc.url, writer, { systemClockOffset: -30 * 60_000 }));
  assert.equal(corrected.$metadata.attempts, 2);
});

test('a body or a signed header changed after signing is refused', async () => {
  const body = afterSigning(cloudControl(svc.url, writer), (request) => {
    request.body = String(request.body).replace('red', 'tan');
  });
  const changedBody = await refusal(
    body.send(
      new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: '{"Name":"tampered","Color":"red"}' }),
    ),
  );
  assert.equal(changedBody.name, 'InvalidSignatureException');
  assert.equal(
    (await svc.call('GET', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}/tampered`)).status,
    404,
  );

  const target = afterSigning(cloudControl(svc.url, writer), (request) => {
    request.headers['x-amz-target'] = 'CloudApiService.DeleteResource';
  });
  const changedTarget = await refusal(
    target.send(new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'anything' })),
  );
  assert.equal(changedTarget.name, 'InvalidSignatureException');

  const unsigned = afterSigning(cloudControl(svc.url, writer), (request) => {
    request.headers.authorization = String(request.headers.authorization).replace(';x-amz-target', '');
  });
  const unsignedTarget = await refusal(list(unsigned));
  assert.equal(unsignedTarget.name, 'InvalidSignatureException');
  assert.match(unsignedTarget.message, /x-amz-target/);

  const declared = afterSigning(cloudControl(svc.url, writer), (request) => {
    request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
  });
  assert.match((await refusal(list(declared))).message, /unsigned payloads are not accepted/);
});

test('a query string is part of what is signed', async () => {
  const withQuery = (client: CloudControlClient, step: 'build' | 'after-signing') => {
    const add = (request: any) => {
      request.query = { 'z-last': 'two words', a: ['2', '1'], 'x*y': "it's" };
    };
    if (step === 'build')
      client.middlewareStack.add((next: any) => (args: any) => (add(args.request), next(args)), {
        step: 'build',
        name: 'query',
      });
    else afterSigning(client, add);
    return client;
  };
  // Signed by the SDK with the query (keys and values encoded and sorted as SigV4 says): accepted.
  assert.equal((await list(withQuery(cloudControl(svc.url, writer), 'build'))).TypeName, WIDGET_TYPE);
  // Added after signing: refused.
  const added = await refusal(list(withQuery(cloudControl(svc.url, writer), 'after-signing')));
  assert.equal(added.name, 'InvalidSignatureException');
});

test('unsigned, bearer and malformed requests get AWS error bodies in the JSON 1.0 media type', async () => {
  const post = (headers: Record<string, string>) =>
    fetch(`${svc.url}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'CloudApiService.ListResources',
        ...headers,
      },
      body: JSON.stringify({ TypeName: WIDGET_TYPE }),
    });
  const none = await post({});
  assert.equal(none.status, 403);
  assert.equal(none.headers.get('content-type'), 'application/x-amz-json-1.0');
  const noneBody = (await none.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(noneBody).sort(), ['__type', 'message']);
  assert.equal(noneBody.__type, 'MissingAuthenticationTokenException');

  const bearer = await post({ authorization: `Bearer ${writer.token}` });
  assert.equal(bearer.status, 400);
  const bearerBody = (await bearer.json()) as { __type: string; message: string };
  assert.equal(bearerBody.__type, 'IncompleteSignatureException');
  assert.match(bearerBody.message, /--aws-keys/);

  const partial = await post({
    authorization: `AWS4-HMAC-SHA256 Credential=${writer.accessKeyId}/20260101/us-east-1/cloudcontrolapi/aws4_request`,
  });
  const partialBody = (await partial.json()) as { __type: string; message: string };
  assert.equal(partialBody.__type, 'IncompleteSignatureException');
  assert.match(partialBody.message, /'SignedHeaders'/);
  assert.match(partialBody.message, /'Signature'/);

  const service = await post({
    authorization: `AWS4-HMAC-SHA256 Credential=${writer.accessKeyId}/20260101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=${'0'.repeat(64)}`,
    'x-amz-date': '20260101T000000Z',
  });
  const serviceBody = (await service.json()) as { __type: string; message: string };
  assert.equal(serviceBody.__type, 'InvalidSignatureException');
  assert.match(serviceBody.message, /cloudcontrolapi/);

  const badDate = await post({
    authorization: `AWS4-HMAC-SHA256 Credential=${writer.accessKeyId}/20261301/us-east-1/cloudcontrolapi/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=${'0'.repeat(64)}`,
    'x-amz-date': '20261301T000000Z',
  });
  const badDateBody = (await badDate.json()) as { __type: string; message: string };
  assert.equal(badDateBody.__type, 'IncompleteSignatureException');
  assert.match(badDateBody.message, /x-amz-date header must be an ISO 8601 basic time/);

  // The native API does not take signatures, nor Cloud Control bearer tokens: each door its own credentials.
  const native = await fetch(`${svc.url}/v1/types`, {
    headers: { authorization: 'AWS4-HMAC-SHA256 Credential=x' },
  });
  assert.equal(native.status, 401);
});

test("a key acts with its token's role and type globs", async () => {
  const reader = cloudControl(svc.url, await issueKeys(svc, 'reader'));
  assert.equal((await list(reader)).TypeName, WIDGET_TYPE);
  const denied = await refusal(
    reader.send(new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: '{"Name":"by-reader"}' })),
  );
  assert.deepEqual([denied.name, denied.status], ['AccessDeniedException', 400]);

  const scopedKeys = await issueKeys(svc, 'writer', ['Test::Other::*']);
  const scoped = cloudControl(svc.url, scopedKeys);
  await scoped.send(
    new CreateResourceCommand({ TypeName: 'Test::Other::Gadget', DesiredState: '{"Name":"g1"}' }),
  );
  const outside = await refusal(
    scoped.send(new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: '{"Name":"by-scoped"}' })),
  );
  assert.equal(outside.name, 'AccessDeniedException');
  assert.equal((await refusal(list(scoped))).name, 'AccessDeniedException');
  // Each operation on an existing resource of another type is refused on its own, and changes nothing.
  const made = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=5`, {
    desiredState: { Name: 'held', Color: 'red' },
  });
  assert.equal(made.body.progressEvent.operationStatus, 'SUCCESS');
  const onHeld = { TypeName: WIDGET_TYPE, Identifier: 'held' };
  const refusedOps: [string, Promise<unknown>][] = [
    ['GetResource', scoped.send(new GetResourceCommand(onHeld))],
    [
      'UpdateResource',
      scoped.send(
        new UpdateResourceCommand({
          ...onHeld,
          PatchDocument: '[{"op":"replace","path":"/Color","value":"blue"}]',
        }),
      ),
    ],
    ['DeleteResource', scoped.send(new DeleteResourceCommand(onHeld))],
  ];
  for (const [operation, call] of refusedOps) {
    const r = await refusal(call);
    assert.deepEqual([operation, r.name, r.status], [operation, 'AccessDeniedException', 400]);
  }
  const held = await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/held`);
  assert.equal(held.status, 200, 'the resource is still there');
  assert.equal(held.body.properties.Color, 'red', 'and unchanged');
  // A type it cannot reach is refused alike whether or not it is registered: nothing is revealed.
  assert.equal((await refusal(list(scoped, 'Test::Nothing::Here'))).name, 'AccessDeniedException');
  // Requests of other types are left out of its lists; asked for by token, refused naming nothing.
  const { ProgressEvent: byWriter } = await cloudControl(svc.url, writer).send(
    new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: '{"Name":"by-writer"}' }),
  );
  const token = { RequestToken: byWriter!.RequestToken! };
  for (const call of [
    scoped.send(new GetResourceRequestStatusCommand(token)),
    scoped.send(new CancelResourceRequestCommand(token)),
  ]) {
    const r = await refusal(call);
    assert.equal(r.name, 'AccessDeniedException');
    assert.doesNotMatch(r.message, /Widget/);
  }
  const requests = await scoped.send(new ListResourceRequestsCommand({}));
  assert.ok(requests.ResourceRequestStatusSummaries!.length >= 1);
  for (const e of requests.ResourceRequestStatusSummaries!) assert.equal(e.TypeName, 'Test::Other::Gadget');
});

test('revoking the token revokes its keys; the secret is never stored or listed in plain text', async () => {
  const keys = await issueKeys(svc, 'writer');
  const client = cloudControl(svc.url, keys);
  assert.equal((await list(client)).TypeName, WIDGET_TYPE);
  const listed = await svc.call('GET', '/v1/tokens');
  const record = listed.body.tokens.find((t: { id: string }) => t.id === keys.id);
  assert.equal(record.accessKeyId, keys.accessKeyId);
  assert.ok(!JSON.stringify(listed.body).includes(keys.secretAccessKey));
  for (const file of readdirSync(svc.dataDir).filter((f) => f.startsWith('typeplane.db')))
    assert.ok(
      !readFileSync(join(svc.dataDir, file)).includes(keys.secretAccessKey),
      `${file} holds the secret`,
    );

  assert.equal((await svc.call('DELETE', `/v1/tokens/${keys.id}`)).status, 204);
  const revoked = await refusal(list(client));
  assert.equal(revoked.name, 'UnrecognizedClientException');
  assert.match(revoked.message, /revoked/);
});

test('bodies over the limit and unknown operations are refused before anything runs', async () => {
  const big = await refusal(
    cloudControl(svc.url, writer, { maxAttempts: 1 }).send(
      new CreateResourceCommand({
        TypeName: WIDGET_TYPE,
        DesiredState: JSON.stringify({ Name: 'big', Color: 'x'.repeat(1_100_000) }),
      }),
    ),
  );
  assert.equal(big.status, 413);
  const unknown = cloudControl(svc.url, writer);
  unknown.middlewareStack.add(
    (next: any) => (args: any) => {
      args.request.headers['x-amz-target'] = 'CloudApiService.DropEverything';
      return next(args);
    },
    { step: 'build', name: 'retarget' },
  );
  const r = await refusal(list(unknown));
  assert.deepEqual([r.name, r.status], ['UnknownOperationException', 400]);
});

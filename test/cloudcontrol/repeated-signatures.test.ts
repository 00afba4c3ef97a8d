/**
 * A client's requests after its first good one are verified as fully as the first: the server
 * remembers what an Authorization header says apart from its signature, and the HMAC key of a day's
 * signing key, but every request's own signature, body, time and key are still checked, and a revoked
 * key stops at once. Signed here by a small signer of the test's own (node's createHmac), so that the
 * server's HMAC is checked against another implementation.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { HmacSha256Key } from '../../src/cloudcontrol/index.js';
import { issueKeys, type AccessKeysOut } from '../helpers/cloudcontrol.js';
import { WIDGET, WIDGET_TYPE, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let keys: AccessKeysOut;

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  keys = await issueKeys(svc, 'writer');
});
after(() => svc.close());

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** A ListResources call signed with SigV4 at `time`; `change` alters it after signing. */
async function call(
  time: Date,
  change: { signature?: (s: string) => string; body?: string } = {},
): Promise<{ status: number; type?: string; message?: string }> {
  const amzDate = time.toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const host = new URL(svc.url).host;
  const body = JSON.stringify({ TypeName: WIDGET_TYPE });
  const target = 'CloudApiService.ListResources';
  const signed = 'content-type;host;x-amz-date;x-amz-target';
  const canonical = `POST\n/\n\ncontent-type:application/x-amz-json-1.0\nhost:${host}\nx-amz-date:${amzDate}\nx-amz-target:${target}\n\n${signed}\n${sha256(body)}`;
  const scope = `${day}/us-east-1/cloudcontrolapi/aws4_request`;
  const key = [day, 'us-east-1', 'cloudcontrolapi', 'aws4_request'].reduce<Buffer | string>(
    hmac,
    `AWS4${keys.secretAccessKey}`,
  );
  let signature = hmac(key, `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256(canonical)}`).toString('hex');
  if (change.signature) signature = change.signature(signature);
  const res = await fetch(svc.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-date': amzDate,
      'x-amz-target': target,
      authorization: `AWS4-HMAC-SHA256 Credential=${keys.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${signature}`,
    },
    body: change.body ?? body,
  });
  const out = (await res.json()) as { __type?: string; message?: string };
  return { status: res.status, ...(out.__type ? { type: out.__type, message: out.message } : {}) };
}

test("HMAC-SHA256 under a prepared key equals node's for keys and messages of every length", () => {
  for (const length of [0, 1, 32, 63, 64, 65, 200])
    for (const message of ['', 'AWS4-HMAC-SHA256\n20260101T000000Z', 'é漢字😀', 'x'.repeat(5000)]) {
      const key = randomBytes(length);
      assert.equal(
        new HmacSha256Key(key).digest(message).toString('hex'),
        createHmac('sha256', key).update(message, 'utf8').digest('hex'),
        `key of ${length} bytes, message of ${message.length} characters`,
      );
    }
});

test("a key's later requests are each verified in full: signature, body and time", async () => {
  const now = new Date();
  assert.equal((await call(now)).status, 200);
  // The same header but for one digit of the signature.
  const flipped = await call(now, { signature: (s) => s.replace(/^./, (c) => (c === '0' ? '1' : '0')) });
  assert.deepEqual([flipped.status, flipped.type], [400, 'InvalidSignatureException']);
  const body = await call(now, { body: JSON.stringify({ TypeName: 'Test::Shop::Other' }) });
  assert.deepEqual([body.status, body.type], [400, 'InvalidSignatureException']);
  const old = await call(new Date(Date.now() - 6 * 60_000));
  assert.equal(old.type, 'InvalidSignatureException');
  assert.match(old.message!, /Signature expired/);
  assert.equal((await call(new Date())).status, 200);
});

test('a revoked key is refused on its very next request', async () => {
  const own = await issueKeys(svc, 'writer');
  const before = keys;
  keys = own;
  try {
    assert.equal((await call(new Date())).status, 200);
    assert.equal((await svc.call('DELETE', `/v1/tokens/${own.id}`)).status, 204);
    const refused = await call(new Date());
    assert.deepEqual([refused.status, refused.type], [400, 'UnrecognizedClientException']);
  } finally {
    keys = before;
  }
});

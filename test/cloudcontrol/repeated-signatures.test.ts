/**
 * A client's requests after its first good one are verified as fully as the first: the server
 * remembers what an Authorization header says apart from its signature, and the HMAC key of a day's
 * signing key, but every request's own signature, body, time and key are still checked, and a revoked
 * key stops at once. Signed here by a small signer of the test's own (node's createHmac), so that the
 * server's HMAC is checked against another implementation.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { HmacSha256Key } from '../../src/cloudcontrol/index.js';
import { issueKeys, signedHeaders, type AccessKeysOut } from '../helpers/cloudcontrol.js';
import { WIDGET, WIDGET_TYPE, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let keys: AccessKeysOut;

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  keys = await issueKeys(svc, 'writer');
});
after(() => svc.close());

/** A ListResources call signed with SigV4 at `time`; `change` alters it after signing. */
async function call(
  time: Date,
  change: { signature?: (s: string) => string; body?: string } = {},
): Promise<{ status: number; type?: string; message?: string }> {
  const body = JSON.stringify({ TypeName: WIDGET_TYPE });
  const headers = signedHeaders({ keys, url: svc.url, operation: 'ListResources', body, time });
  if (change.signature)
    headers.authorization = headers.authorization!.replace(/[0-9a-f]{64}$/, change.signature);
  const res = await fetch(svc.url, { method: 'POST', headers, body: change.body ?? body });
  const out = (await res.json()) as { __type?: string; message?: string };
  return { status: res.status, ...(out.__type ? { type: out.__type, message: out.message } : {}) };
}

test("HMAC-SHA256 under a prepared key equals node's for keys and messages of every length, again and again", () => {
  for (const length of [0, 1, 32, 63, 64, 65, 200]) {
    const key = randomBytes(length);
    // One prepared key for every message, twice over: each digest reuses the key's scratch block.
    const prepared = new HmacSha256Key(key);
    for (const round of [1, 2])
      for (const message of ['', 'AWS4-HMAC-SHA256\n20260101T000000Z', 'é漢字😀', 'x'.repeat(5000)])
        assert.equal(
          prepared.hex(message),
          createHmac('sha256', key).update(message, 'utf8').digest('hex'),
          `key of ${length} bytes, message of ${message.length} characters, round ${round}`,
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

test("a known key's header whose signature is no 64 lowercase hex digits is refused as incomplete, as on first sight", async () => {
  const now = new Date();
  assert.equal((await call(now)).status, 200);
  for (const signature of ['Z'.repeat(64), 'A'.repeat(64), `${'0'.repeat(62)}, `]) {
    const refused = await call(now, { signature: () => signature });
    assert.deepEqual([refused.status, refused.type], [400, 'IncompleteSignatureException'], signature);
    assert.match(refused.message!, /64 lowercase hexadecimal digits/);
  }
  assert.equal((await call(now)).status, 200);
});

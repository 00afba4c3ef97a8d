import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { createSealer, isSealed } from '../../src/secrets/index.js';

const PLACE = 'resource\u0000Test::Shop::Widget\u0000w1';

test('a sealed value opens to the plain text at its place, and shows nothing of it', () => {
  const sealer = createSealer(randomBytes(32));
  const box = sealer.seal('hunter2-hunter2', PLACE);
  assert.ok(isSealed(box));
  assert.match(box, /^tp1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);
  assert.ok(box.startsWith(`tp1.${sealer.keyId}.`), 'the key id is recorded');
  assert.ok(!box.includes('hunter2'));
  assert.ok(!Buffer.from(box.split('.')[2]!, 'base64url').toString('latin1').includes('hunter2'));
  assert.equal(sealer.open(box, PLACE), 'hunter2-hunter2');
  assert.notEqual(sealer.seal('hunter2-hunter2', PLACE), box, 'a fresh IV every time');
  assert.equal(sealer.open(sealer.seal('', PLACE), PLACE), '');
  assert.equal(sealer.open(sealer.seal('ünï €', PLACE), PLACE), 'ünï €');
});

test('every seal has an IV of its own, across refills of the pool IVs are drawn from', () => {
  const sealer = createSealer(randomBytes(32));
  // The pool holds 256 IVs: 700 seals refill it twice, while the values sealed before stay as sealed.
  const boxes = Array.from({ length: 700 }, (_, i) => sealer.seal(`value ${i}`, PLACE));
  const ivs = new Set(
    boxes.map((box) => Buffer.from(box.split('.')[2]!, 'base64url').subarray(0, 12).toString('hex')),
  );
  assert.equal(ivs.size, boxes.length);
  boxes.forEach((box, i) => assert.equal(sealer.open(box, PLACE), `value ${i}`));
});

test('a tampered sealed value does not open', () => {
  const sealer = createSealer(randomBytes(32));
  const box = sealer.seal('hunter2-hunter2', PLACE);
  const body = Buffer.from(box.split('.')[2]!, 'base64url');
  for (const at of [0, 12, body.length - 1]) {
    const bad = Buffer.from(body);
    bad[at]! ^= 1;
    assert.throws(
      () => sealer.open(`tp1.${sealer.keyId}.${bad.toString('base64url')}`, PLACE),
      (e: any) => e.code === 'InternalFailure' && /altered|another record/.test(e.message),
    );
  }
  assert.throws(() =>
    sealer.open(`tp1.${sealer.keyId}.${body.subarray(0, 20).toString('base64url')}`, PLACE),
  );
  assert.throws(() => sealer.open('not sealed', PLACE), /not a sealed value/);
  assert.throws(() => sealer.open(box.replace('tp1.', 'tp2.'), PLACE), /not a sealed value/);
});

test('a sealed value moved to another place does not open there', () => {
  const sealer = createSealer(randomBytes(32));
  const box = sealer.seal('hunter2-hunter2', PLACE);
  assert.throws(() => sealer.open(box, 'resource\u0000Test::Shop::Widget\u0000w2'), /another record/);
  assert.throws(() => sealer.open(box, 'request\u0000w1'), /another record/);
});

test('another key is named rather than mistaken for tampering, even with its id forged', () => {
  const one = createSealer(randomBytes(32));
  const two = createSealer(randomBytes(32));
  assert.notEqual(one.keyId, two.keyId);
  const box = one.seal('hunter2-hunter2', PLACE);
  assert.throws(
    () => two.open(box, PLACE),
    new RegExp(`sealed with key ${one.keyId}.*key in use is ${two.keyId}`),
  );
  const forged = box.replace(one.keyId, two.keyId);
  assert.throws(() => two.open(forged, PLACE), /altered/);
  assert.throws(() => createSealer(randomBytes(16)), /32 bytes/);
});

test('request hashes are keyed: the same body hashes alike under one key only', () => {
  const key = randomBytes(32);
  const one = createSealer(key);
  const again = createSealer(Buffer.from(key));
  const other = createSealer(randomBytes(32));
  assert.equal(one.mac('{"Secret":"1234"}'), again.mac('{"Secret":"1234"}'));
  assert.notEqual(one.mac('{"Secret":"1234"}'), one.mac('{"Secret":"1235"}'));
  assert.notEqual(one.mac('{"Secret":"1234"}'), other.mac('{"Secret":"1234"}'));
  assert.match(one.mac('x'), /^[0-9a-f]{64}$/);
  assert.equal(one.keyId, again.keyId);
});

test('a request hash is HMAC-SHA256 under the key derived for it, so hashes stored before stay valid', () => {
  const key = Buffer.alloc(32, 7);
  const derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'typeplane/request-hash/v1', 32));
  const sealer = createSealer(key);
  // Around the length hashed from the buffer made once (8,192 units of up to 3 bytes), on both
  // sides of it; a short text after long ones; a lone surrogate, written as U+FFFD either way.
  const bodies = ['', '["T::A::B","CREATE",{"x":1}]', 'ünï € 😀', 'x'.repeat(100_000)];
  bodies.push(
    '€'.repeat(8192),
    '€'.repeat(8193),
    '😀'.repeat(4096),
    '\ud800x',
    'short',
    '€'.repeat(8191) + '😀',
  );
  for (const body of bodies)
    assert.equal(sealer.mac(body), createHmac('sha256', derived).update(body, 'utf8').digest('hex'));
});

/**
 * Identifiers are keys in every store and segments of every resource path: the same limits on every
 * store. At most 1,024 bytes of UTF-8 (each such identifier can be created and then addressed by its
 * path, even when nothing in it compresses, which PostgreSQL's index entries need); never U+0000 (NUL),
 * which SQLite could keep but PostgreSQL text cannot. A provider that makes an identifier past these
 * limits breaks the contract; a provider's status message holding a NUL is still recorded.
 */
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider, type Hooks } from '../helpers/providers.js';
import { PG_URL, freshSchema, pgSkip } from '../helpers/postgres.js';
import type { TestContext } from 'node:test';

const NOTE_TYPE = 'Test::Free::Note';
const N = encodeURIComponent(NOTE_TYPE);
const NOTE = JSON.stringify({
  typeName: NOTE_TYPE,
  description: 'A note whose key is any string.',
  properties: { Key: { type: 'string' }, Text: { type: 'string' } },
  additionalProperties: false,
  required: ['Key'],
  primaryIdentifier: ['/properties/Key'],
  createOnlyProperties: ['/properties/Key'],
});

async function service(t: TestContext, kind: 'sqlite' | 'postgresql', hooks?: Hooks): Promise<TestService> {
  const svc = await startTestService({
    ...(kind === 'postgresql' ? { database: { url: PG_URL, schema: freshSchema(t) } } : {}),
    ...(hooks ? { providers: new Map([[NOTE_TYPE, memoryProvider(hooks, 'nul-maker')]]) } : {}),
  });
  t.after(() => svc.close());
  assert.equal((await svc.call('POST', '/v1/types', NOTE)).status, 201);
  return svc;
}

for (const kind of ['sqlite', 'postgresql'] as const) {
  const skip = kind === 'postgresql' ? pgSkip : false;

  test(
    `an identifier value holding U+0000 is InvalidRequest, other values keep it [${kind}]`,
    { skip },
    async (t) => {
      const svc = await service(t, kind);
      for (const body of [{ desiredState: { Key: 'a\u0000b' } }, { desiredState: { Key: '\u0000' } }]) {
        const res = await svc.call('POST', `/v1/resources/${N}`, body);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.errorCode, 'InvalidRequest');
        assert.match(res.body.message, /U\+0000/);
      }
      // Anywhere else a NUL is just a character of a string value, stored and answered as given.
      const made = await svc.call('POST', `/v1/resources/${N}?wait=10`, {
        desiredState: { Key: 'k', Text: 'before\u0000after' },
      });
      assert.equal(made.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(made.body));
      const read = await svc.call('GET', `/v1/resources/${N}/k`);
      assert.equal(read.body.properties.Text, 'before\u0000after');
    },
  );

  test(
    `identifiers up to 1,024 bytes of UTF-8 are created and addressed by path; longer ones are InvalidRequest [${kind}]`,
    { skip },
    async (t) => {
      const svc = await service(t, kind);
      // Random (incompressible) text, and multi-byte characters whose URL encoding is three times longer.
      const fits = [randomBytes(768).toString('base64'), '€'.repeat(341) + 'a', 'k'.repeat(1024)];
      for (const key of fits) {
        assert.equal(Buffer.byteLength(key), 1024);
        const made = await svc.call('POST', `/v1/resources/${N}?wait=10`, { desiredState: { Key: key } });
        assert.equal(
          made.body.progressEvent?.operationStatus,
          'SUCCESS',
          JSON.stringify(made.body).slice(0, 300),
        );
        const read = await svc.call('GET', `/v1/resources/${N}/${encodeURIComponent(key)}`);
        assert.equal(read.status, 200, JSON.stringify(read.body).slice(0, 300));
        assert.equal(read.body.properties.Key, key);
        const gone = await svc.call('DELETE', `/v1/resources/${N}/${encodeURIComponent(key)}?wait=10`);
        assert.equal(gone.body.progressEvent?.operationStatus, 'SUCCESS');
      }
      for (const key of ['k'.repeat(1025), '€'.repeat(342)]) {
        const res = await svc.call('POST', `/v1/resources/${N}`, { desiredState: { Key: key } });
        assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
        assert.equal(res.body.errorCode, 'InvalidRequest');
        assert.match(res.body.message, /bytes long \(UTF-8\); an identifier is at most 1024/);
      }
      const long = await service(t, kind, {
        create: (req) => ({
          status: 'SUCCESS',
          resourceModel: { ...req.desiredState, Key: 'p'.repeat(2000) },
        }),
      });
      const res = await long.call('POST', `/v1/resources/${N}`, { desiredState: { Key: 'short' } });
      const done = await settle(long, res.body.progressEvent.requestToken);
      assert.equal(done.errorCode, 'HandlerInternalFailure');
      assert.match(done.statusMessage, /nul-maker returned an identifier that is 2000 bytes long/);
    },
  );

  test(
    `a provider that makes an identifier holding U+0000 breaks the contract; a message holding one is kept [${kind}]`,
    { skip },
    async (t) => {
      const svc = await service(t, kind, {
        create: (req) =>
          req.desiredState.Text === 'fail'
            ? { status: 'FAILED', errorCode: 'GeneralServiceException', message: 'broken\u0000message' }
            : { status: 'SUCCESS', resourceModel: { ...req.desiredState, Key: 'made\u0000by-provider' } },
      });
      const res = await svc.call('POST', `/v1/resources/${N}`, { desiredState: { Key: 'x' } });
      const done = await settle(svc, res.body.progressEvent.requestToken);
      assert.equal(done.operationStatus, 'FAILED');
      assert.equal(done.errorCode, 'HandlerInternalFailure');
      assert.match(done.statusMessage, /nul-maker.*U\+0000/);

      const failing = await svc.call('POST', `/v1/resources/${N}`, {
        desiredState: { Key: 'y', Text: 'fail' },
      });
      const failed = await settle(svc, failing.body.progressEvent.requestToken);
      assert.equal(failed.operationStatus, 'FAILED');
      assert.equal(failed.errorCode, 'GeneralServiceException');
      // PostgreSQL text cannot hold U+0000: the message keeps its place with U+FFFD there.
      assert.equal(
        failed.statusMessage,
        kind === 'postgresql' ? 'broken\uFFFDmessage' : 'broken\u0000message',
      );
    },
  );
}

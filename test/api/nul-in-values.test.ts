/**
 * U+0000 (NUL) in places a store keys or keeps as text: identifier values are refused (the same on
 * every store, though SQLite could keep them and PostgreSQL cannot), a provider that makes such an
 * identifier breaks the contract, and a provider's status message holding one is still recorded.
 */
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

/**
 * The key across restarts: the same key resumes work that still needs the secrets; another key is
 * refused at start, with a message that says what to do, before any request is served.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SecretKeyError } from '../../src/secrets/index.js';
import { WIDGET, WIDGET_TYPE, settle, spawnServer, startTestService, tempDir } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const T = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`;
const SECRET = 'resume-Xc4vB8nM2q';

/** A create that needs a second step, a second later, with its context. */
const slowCreate = () =>
  memoryProvider({
    create: (req, store) => {
      if (!req.callbackContext)
        return {
          status: 'IN_PROGRESS',
          callbackContext: { secret: req.desiredState.Secret },
          callbackDelaySeconds: 2,
        };
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });

test('an operation in progress resumes after a restart with its secret and context; another key is refused', async () => {
  const dataDir = tempDir();
  const first = slowCreate();
  const before = await startTestService({ dataDir, providers: new Map([[WIDGET_TYPE, first]]) });
  let requestToken: string;
  try {
    assert.equal((await before.call('POST', '/v1/types', WIDGET)).status, 201);
    const started = await before.call('POST', T, { desiredState: { Name: 'r1', Secret: SECRET } });
    requestToken = started.body.progressEvent.requestToken;
    // Stop once the first step has answered and the second is waiting for its time.
    for (let i = 0; i < 100 && first.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const waiting = await before.call('GET', `/v1/requests/${requestToken}`);
    assert.equal(waiting.body.progressEvent.operationStatus, 'IN_PROGRESS');
  } finally {
    await before.close();
  }
  assert.equal(first.calls.length, 1);

  // Same data, same key file: the second step runs here, handed the secret and the context.
  const second = slowCreate();
  const after = await startTestService({ dataDir, providers: new Map([[WIDGET_TYPE, second]]) });
  try {
    const done = await settle(after, requestToken, 10_000);
    assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
    const resumed = second.calls.find((c) => c.action === 'create')!.req;
    assert.equal(resumed.desiredState.Secret, SECRET);
    assert.deepEqual(resumed.callbackContext, { secret: SECRET });
    // The record keeps it for later updates.
    const up = await after.call('PATCH', `${T}/r1?wait=5`, {
      patchDocument: [{ op: 'add', path: '/Color', value: 'blue' }],
    });
    assert.equal(up.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(up.body));
    assert.equal(second.calls.find((c) => c.action === 'update')!.req.desiredState.Secret, SECRET);
  } finally {
    await after.close();
  }

  // Another key, from the environment option: refused, naming both key ids.
  await assert.rejects(
    startTestService({ dataDir, secretKey: randomBytes(32).toString('base64') }),
    (e: any) =>
      e instanceof SecretKeyError &&
      /is not the key this store's secrets were sealed with/.test(e.message) &&
      /TYPEPLANE_SECRET_KEY/.test(e.message),
  );
  // A lost key file: a new key is not silently made to replace it.
  const keyFile = join(dataDir, 'secret.key');
  const original = readFileSync(keyFile, 'utf8');
  renameSync(keyFile, `${keyFile}.bak`);
  await assert.rejects(startTestService({ dataDir }), SecretKeyError);
  assert.equal(existsSync(keyFile), false, 'the key made for the refused start is removed again');
  // The original key, given through the environment option instead, opens everything.
  const restored = await startTestService({ dataDir, secretKey: original.trim() });
  try {
    const read = await restored.call('GET', `${T}/r1`);
    assert.equal(read.status, 200);
    assert.equal(read.body.properties.Color, 'blue');
  } finally {
    await restored.close();
  }
});

test('typeplane serve refuses to start with a malformed or wrong key, and says why', async () => {
  const dataDir = tempDir();
  await assert.rejects(
    spawnServer(dataDir, [], { TYPEPLANE_SECRET_KEY: 'hunter2' }),
    (e: Error) => /TYPEPLANE_SECRET_KEY is not a usable key/.test(e.message) && !/hunter2/.test(e.message),
  );
  const keyFile = join(dataDir, 'custom.key');
  writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o644 });
  await assert.rejects(spawnServer(dataDir, ['--secret-key-file', keyFile]), (e: Error) =>
    e.message.includes(`chmod 600 ${keyFile}`),
  );
});

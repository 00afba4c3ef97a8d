import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { WIDGET, WIDGET_TYPE, settle, startTestService, tempDir } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const T = encodeURIComponent(WIDGET_TYPE);
const SECRET = 'hunter2-very-secret-value';

test('logs carry request ids and never a write-only value, even at debug level and on failures', async () => {
  const dir = tempDir();
  const logFile = join(dir, 'server.log');
  const logger = pino({ level: 'trace' }, pino.destination({ dest: logFile, sync: true }));
  const broken = memoryProvider({
    update: (req) => ({ status: 'SUCCESS', resourceModel: { ...req.desiredState, Size: 'HUGE' } }),
    delete: () => {
      throw new Error('disk on fire');
    },
  });
  const svc = await startTestService({ logger, providers: new Map([[WIDGET_TYPE, broken]]) });
  try {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const created = await svc.call('POST', `/v1/resources/${T}?wait=5`, {
      desiredState: { Name: 'sec', Secret: SECRET },
    });
    assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');
    const up = await svc.call('PATCH', `/v1/resources/${T}/sec?wait=5`, {
      patchDocument: [{ op: 'replace', path: '/Secret', value: `${SECRET}-2` }],
    });
    assert.equal(up.body.progressEvent.errorCode, 'HandlerInternalFailure');
    const del = await svc.call('DELETE', `/v1/resources/${T}/sec?wait=5`);
    assert.equal(del.body.progressEvent.errorCode, 'HandlerInternalFailure');
    await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'BAD NAME', Secret: SECRET } });
    await settle(svc, created.body.progressEvent.requestToken);
    assert.ok(created.headers.get('x-request-id'));
  } finally {
    await svc.close();
  }
  const logs = readFileSync(logFile, 'utf8');
  assert.ok(logs.includes('"reqId"'), 'request logs carry a request id');
  assert.ok(
    logs.includes('handler broke the contract') && logs.includes('"provider":"memory"'),
    'contract violations are logged with the provider name',
  );
  assert.ok(!logs.includes(SECRET), 'a write-only value reached the log');
});

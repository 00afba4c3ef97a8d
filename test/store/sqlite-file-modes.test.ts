/**
 * The SQLite database holds every resource's properties: it and its WAL are readable by their owner
 * only (0600), like the secret key, whether the server creates them or finds them made before.
 */
import assert from 'node:assert/strict';
import { statSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { WIDGET, WIDGET_TYPE, startTestService, tempDir } from '../helpers/service.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

it('typeplane.db, its WAL and its index are created 0600', async () => {
  const svc = await startTestService();
  try {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const created = await svc.call('POST', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}?wait=5`, {
      desiredState: { Name: 'm1', Secret: 'hunter2' },
    });
    assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');
    const db = join(svc.dataDir, 'typeplane.db');
    for (const file of [db, `${db}-wal`, `${db}-shm`]) {
      assert.ok(existsSync(file), `${file} exists`);
      assert.equal(mode(file), '600', file);
    }
  } finally {
    await svc.close();
  }
});

it('a database file made 0644 before is set to 0600 when the server opens it', async () => {
  const dataDir = tempDir();
  const db = join(dataDir, 'typeplane.db');
  writeFileSync(db, '');
  chmodSync(db, 0o644);
  const svc = await startTestService({ dataDir });
  try {
    assert.equal(mode(db), '600');
    assert.equal(mode(`${db}-wal`), '600');
  } finally {
    await svc.close();
  }
});

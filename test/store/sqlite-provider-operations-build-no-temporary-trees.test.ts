/**
 * Operations through a provider (the engine's asynchronous path: each begun, leased, run by its
 * handler and finished) run no statement that builds a temporary b-tree in the SQLite store. SQLite
 * builds one afresh each time such a statement runs (an IN list of three or more constants, a sort no
 * index serves): the partial indexes of active operations, written with such a list, made every
 * insert and update of an operation build four (migration 22 wrote them with equalities). Counted as
 * test/store/sqlite-costs-per-operation counts the record-backed operations' (each statement's
 * program read with EXPLAIN, test/helpers/sqlite-meter.ts): a real server in this process, real HTTP
 * on loopback, a real SQLite file.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { memoryProvider } from '../helpers/providers.js';
import { startTestService, tempDir } from '../helpers/service.js';
import { meterStatements } from '../helpers/sqlite-meter.js';
import { widgetSchema } from '../helpers/widget-schema.js';

const TYPE = 'Test::Trees::Provided';
const PATH = `/v1/resources/${encodeURIComponent(TYPE)}`;

test('creates, updates and deletes through a provider build no temporary b-tree in the store', async () => {
  const dataDir = tempDir('typeplane-trees-');
  const meter = meterStatements(join(dataDir, 'typeplane.db'), new Set());
  const svc = await startTestService({
    dataDir,
    // No polling pass meanwhile: its claims are not what an operation costs.
    pollIntervalMs: 3_600_000,
    providers: new Map([[TYPE, memoryProvider()]]),
  });
  try {
    assert.equal((await svc.call('POST', '/v1/types', widgetSchema(TYPE))).status, 201);
    const succeeded = (answer: { status: number; body?: { progressEvent?: { operationStatus?: string } } }) =>
      assert.equal(answer.body?.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(answer.body));
    meter.take();
    for (let i = 0; i < 3; i++) {
      succeeded(
        await svc.call('POST', `${PATH}?wait=10`, {
          desiredState: { Name: `w${i}`, Color: 'red' },
          clientToken: `create-${i}`,
        }),
      );
      succeeded(
        await svc.call('PATCH', `${PATH}/w${i}?wait=10`, {
          patchDocument: [{ op: 'replace', path: '/Color', value: 'blue' }],
        }),
      );
      succeeded(await svc.call('DELETE', `${PATH}/w${i}?wait=10`));
    }
    const tally = meter.take();
    // A meter watching the wrong file, or a path that no longer updates its operation, would pass.
    assert.ok(
      tally.log.some((sql) => sql.startsWith('UPDATE operations')),
      `no update of an operation seen: ${tally.log.join(' | ')}`,
    );
    assert.deepEqual(
      tally.temporaryIn,
      [],
      `statements that build a temporary b-tree each time they run: ${tally.temporaryIn.join(' | ')}`,
    );
    assert.equal(tally.temporary, 0);
  } finally {
    await svc.close();
    meter.stop();
  }
});

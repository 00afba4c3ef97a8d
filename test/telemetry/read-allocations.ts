/**
 * Run by metrics-read-cost.test.ts in a process of its own (the test runner's own bookkeeping would
 * allocate on every read too, and unevenly): the bytes this process allocates per read of one
 * resource, with metrics off and on — both ends of a real loopback HTTP exchange with a real SQLite
 * store, summed over V8's garbage collections. Prints `{ "off": <bytes>, "on": <bytes> }`, each the
 * median of five rounds of 600 reads after 3,000 to warm up.
 */
import assert from 'node:assert/strict';
import { allocatedDuring } from '../helpers/allocations.js';
import { api, startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';

/** A server with or without metrics, one widget recorded, and a reader of it over HTTP. */
async function readerOf(metrics: boolean) {
  // No worker polls (they allocate too) while the reads are counted.
  const svc = await startTestService({ metrics, pollIntervalMs: 3_600_000 });
  const client = api(svc.url, svc.token);
  assert.equal((await client.call('POST', '/v1/types', WIDGET)).status, 201);
  const created = await client.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=5`, {
    desiredState: { Name: 'read-me', Color: 'red', Secret: 'not-shown' },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  const read = async (times: number) => {
    for (let i = 0; i < times; i++) {
      const answer = await client.call('GET', `/v1/resources/${WIDGET_TYPE}/read-me`);
      if (answer.status !== 200) assert.fail(`read answered ${answer.status}`);
    }
  };
  return { svc, read };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

const off = await readerOf(false);
const on = await readerOf(true);
// Warm: the optimising compiler removes allocations as it goes; counted before, the figure drifts.
await off.read(3000);
await on.read(3000);
const perRead = { off: [] as number[], on: [] as number[] };
for (let round = 0; round < 5; round++)
  for (const [side, reader] of [
    ['off', off],
    ['on', on],
  ] as const)
    perRead[side].push((await allocatedDuring(() => reader.read(600))) / 600);
await Promise.all([off.svc.close(), on.svc.close()]);
console.log(JSON.stringify({ off: median(perRead.off), on: median(perRead.on) }));

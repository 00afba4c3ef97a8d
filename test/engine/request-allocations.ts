/**
 * Run by allocations-per-request.test.ts in a process of its own (the test runner's own bookkeeping
 * would allocate on every request too, and unevenly): the bytes the server allocates per create and
 * per read of a resource — a real SQLite store, the server as configured by default (metrics on),
 * its client a worker thread (a heap of its own, not counted) over real loopback HTTP — summed over
 * V8's garbage collections. Two reads: `read`, of the test widget (a write-only property: its model
 * parsed and stripped), and `plainRead`, of the benchmarks' widget (none: its recorded JSON text
 * answered as stored). And `providerCreate`: a create through an in-process provider (the engine's
 * asynchronous path: its operation begun, the handler called with its signal, the operation finished,
 * the wait answered). And `recipeCreate`: an instance of the Radius sample type made through the
 * two-resource recipe of test/recipes (composed: its two resources, their operations and its record
 * decided whole and written in one transaction), the path bench:recipes times. Prints `{ "create":
 * <bytes>, "read": <bytes>, "plainRead": <bytes>, "providerCreate": <bytes>, "recipeCreate": <bytes> }`,
 * each the median of five rounds after a warm-up.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { allocatedDuring } from '../helpers/allocations.js';
import { memoryProvider } from '../helpers/providers.js';
import { api, startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { widgetSchema } from '../helpers/widget-schema.js';
import { RECIPE, SAMPLE_TYPE, registerSampleTypes } from '../recipes/fixtures.js';

const PLAIN_TYPE = 'Bench::Api::Widget';
const PROVIDED_TYPE = 'Bench::Api::Provided';

// No worker polls (they allocate too) while the requests are counted.
const svc = await startTestService({
  pollIntervalMs: 3_600_000,
  providers: new Map([[PROVIDED_TYPE, memoryProvider()]]),
});
for (const doc of [
  WIDGET,
  JSON.stringify(widgetSchema(PLAIN_TYPE)),
  JSON.stringify(widgetSchema(PROVIDED_TYPE)),
])
  assert.equal((await api(svc.url, svc.token).call('POST', '/v1/types', doc)).status, 201);
await registerSampleTypes(api(svc.url, svc.token));
assert.equal(
  (await api(svc.url, svc.token).call('POST', '/v1/recipes', { typeName: SAMPLE_TYPE, template: RECIPE }))
    .status,
  201,
);

/** The client: keep-alive requests one after another, each answer checked; told what to send. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const { url, token, type, plainType, providedType, sampleType } = workerData;
let made = 0;
function send(method, path, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url + path, { method, agent, headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
parentPort.on('message', async ({ kind, times }) => {
  try {
    for (let i = 0; i < times; i++) {
      if (kind === 'create') {
        const n = made++;
        const r = await send('POST', '/v1/resources/' + type + '?wait=5', JSON.stringify({ desiredState: { Name: 'w' + n, Color: 'red' }, clientToken: 't-' + n }));
        if (!r.text.includes('"SUCCESS"')) throw new Error(r.text);
      } else if (kind === 'providerCreate') {
        const n = made++;
        const r = await send('POST', '/v1/resources/' + providedType + '?wait=5', JSON.stringify({ desiredState: { Name: 'q' + n, Color: 'red', Count: n } }));
        if (!r.text.includes('"SUCCESS"')) throw new Error(r.text);
      } else if (kind === 'recipeCreate') {
        const n = made++;
        const r = await send('POST', '/v1/resources/' + sampleType + '?wait=5', JSON.stringify({ desiredState: { name: 'i' + n, size: 'L' } }));
        if (!r.text.includes('"SUCCESS"') || !r.text.includes('"hostname"')) throw new Error(r.text);
      } else if (kind === 'plainCreate') {
        const r = await send('POST', '/v1/resources/' + plainType + '?wait=5', JSON.stringify({ desiredState: { Name: 'p' + i, Color: 'red', Count: i } }));
        if (!r.text.includes('"SUCCESS"')) throw new Error(r.text);
      } else {
        const r = await send('GET', '/v1/resources/' + (kind === 'read' ? type + '/w' : plainType + '/p') + (i % 100));
        if (r.status !== 200) throw new Error(r.text);
      }
    }
    parentPort.postMessage('done');
  } catch (e) {
    parentPort.postMessage(String(e));
  }
});
`;
const worker = new Worker(CLIENT, {
  eval: true,
  workerData: {
    url: svc.url,
    token: svc.token,
    type: encodeURIComponent(WIDGET_TYPE),
    plainType: encodeURIComponent(PLAIN_TYPE),
    providedType: encodeURIComponent(PROVIDED_TYPE),
    sampleType: encodeURIComponent(SAMPLE_TYPE),
  },
});
async function requests(
  kind: 'create' | 'plainCreate' | 'providerCreate' | 'recipeCreate' | 'read' | 'plainRead',
  times: number,
): Promise<void> {
  worker.postMessage({ kind, times });
  const [said] = (await once(worker, 'message')) as [string];
  if (said !== 'done') assert.fail(said);
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
// Warm: the optimising compiler removes allocations as it goes; counted before, the figure drifts.
await requests('create', 2000);
await requests('plainCreate', 100);
await requests('read', 3000);
await requests('plainRead', 3000);
await requests('providerCreate', 2000);
await requests('recipeCreate', 1500);
const per = {
  create: [] as number[],
  read: [] as number[],
  plainRead: [] as number[],
  providerCreate: [] as number[],
  recipeCreate: [] as number[],
};
for (let round = 0; round < 5; round++) {
  per.create.push((await allocatedDuring(() => requests('create', 400))) / 400);
  per.read.push((await allocatedDuring(() => requests('read', 600))) / 600);
  per.plainRead.push((await allocatedDuring(() => requests('plainRead', 600))) / 600);
  per.providerCreate.push((await allocatedDuring(() => requests('providerCreate', 400))) / 400);
  per.recipeCreate.push((await allocatedDuring(() => requests('recipeCreate', 200))) / 200);
}
await worker.terminate();
await svc.close();
console.log(
  JSON.stringify({
    create: median(per.create),
    read: median(per.read),
    plainRead: median(per.plainRead),
    providerCreate: median(per.providerCreate),
    recipeCreate: median(per.recipeCreate),
  }),
);

/**
 * Reading an audit trail in tests: a log file's records once the server has written `count` of them,
 * the store's once they hold what a test waits for.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { Api } from '../helpers/service.js';

export function recordsIn(file: string): any[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** The records once at least `count` are written (records follow the answer, so they may lag it). */
export async function awaitRecords(file: string, count: number, timeoutMs = 10_000): Promise<any[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const records = recordsIn(file);
    if (records.length >= count) return records;
    if (Date.now() > until)
      throw new Error(`${records.length} audit records, not ${count}, after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The store's trail, oldest first, once `done` holds of it (records are stored in batches). */
export async function trailUntil(client: Api, done: (records: any[]) => boolean): Promise<any[]> {
  for (const until = Date.now() + 15_000; ;) {
    const page = await client.call('GET', '/v1/audit?maxResults=1000');
    assert.equal(page.status, 200, JSON.stringify(page.body));
    const records = page.body.records.reverse();
    if (done(records)) return records;
    assert.ok(Date.now() < until, `the trail never held what was expected: ${JSON.stringify(records)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

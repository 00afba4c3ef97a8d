/** Reading an audit log in tests: its records once the server has written `count` of them. */
import { existsSync, readFileSync } from 'node:fs';

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

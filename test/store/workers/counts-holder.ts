/**
 * A process that creates resources in a SQLite store and is then killed holding their counts' changes
 * (see resource-counts-held.test.ts): `node counts-holder.ts <file> <count>` creates res-0 … res-<count-1>
 * of Acme::Test::Thing at version 2, prints `held` once the file names it as the counts' holder, and
 * waits to be killed (its store is never closed).
 */
import Database from 'better-sqlite3';
import { openSqliteStore } from '../../../src/store/index.js';
import { createResource, storedType } from '../fixtures.js';

const [path, count] = process.argv.slice(2) as [string, string];
const store = await openSqliteStore(path);
await store.putType(storedType('Acme::Test::Thing', '2'));
for (let i = 0; i < Number(count); i++) await createResource(store, `res-${i}`, 'Acme::Test::Thing', '2');
const file = new Database(path, { readonly: true });
const holder = file.prepare<[], string | null>('SELECT holder FROM resource_counts_holder').pluck();
while (holder.get() == null) await new Promise((r) => setTimeout(r, 5));
file.close();
process.stdout.write('held\n');
setInterval(() => undefined, 60_000);

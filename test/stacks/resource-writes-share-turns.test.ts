/**
 * Resource records written at once (a deployment's steps ending together, each record sealing its
 * state: megabytes when a template hands a large value to many resources) share the event loop's
 * turns: the writes resumed in one pass of the loop share a slice of a few milliseconds, and the rest
 * wait for the next pass, after the loop has seen to its sockets. Before, each write waited for a turn
 * of its own, but all of those turns ended in the same pass, so the loop sealed every record in one go
 * (the fuzz test saw 200–240 ms of CPU time held so). Counted, not timed: in how many passes of the
 * loop the records were sealed, on a real SQLite store with a real sealer.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir } from '../helpers/service.js';
import { StackStore, type ResourceRecord } from '../../src/stacks/records.js';
import { createSealer, type Sealer } from '../../src/secrets/sealer.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';

const WRITES = 30;
/** Each record's properties and model hold it: ~1 MB of state to serialise and seal a record. */
const BIG = 'ab'.repeat(256 * 1024);

/** The passes of the event loop so far (a chain of immediates, one a pass), while `counting`. */
let pass = 0;
let counting = false;
const countPasses = () => {
  pass++;
  if (counting) setImmediate(countPasses);
};

let store: Store;
before(async () => {
  store = await openSqliteStore(join(tempDir(), 'typeplane.db'));
});
after(() => store.close());

function record(i: number): ResourceRecord {
  return {
    logicalId: `W${i}`,
    type: 'Test::Fuzz::Widget',
    identifier: `w${i}`,
    status: 'CREATE_COMPLETE',
    deployment: 'd1',
    deletionPolicy: 'Delete',
    updateReplacePolicy: 'Delete',
    dependsOn: [],
    properties: { Name: `w${i}`, Color: BIG },
    model: { Name: `w${i}`, Color: BIG },
    updatedAt: new Date().toISOString(),
  };
}

test('thirty records of 1 MB written at once are sealed over many passes of the event loop, not in one', async (t) => {
  const real = createSealer(randomBytes(32));
  /** The pass in which each record was sealed. */
  const sealedIn: number[] = [];
  const sealer: Sealer = {
    ...real,
    seal: (plain, aad) => {
      sealedIn.push(pass);
      return real.seal(plain, aad);
    },
  };
  const records = new StackStore(store, sealer);
  counting = true;
  setImmediate(countPasses);
  try {
    await Promise.all(Array.from({ length: WRITES }, (_, i) => records.putResource('big', record(i), false)));
  } finally {
    counting = false;
  }
  assert.equal(sealedIn.length, WRITES);
  const perPass = new Map<number, number>();
  for (const p of sealedIn) perPass.set(p, (perPass.get(p) ?? 0) + 1);
  const most = Math.max(...perPass.values());
  t.diagnostic(`sealed in ${perPass.size} passes, at most ${most} in one`);
  // A seal of ~1 MB of state takes about the slice (4 ms) or more: a pass seals one or two.
  assert.ok(
    perPass.size >= WRITES / 3 && most <= 5,
    `sealed in ${perPass.size} passes, at most ${most} in one (by pass: ${JSON.stringify([...perPass])})`,
  );
  // Every record was written, and opens to what was written.
  const read = await records.getResources('big');
  assert.equal(read.size, WRITES);
  assert.equal(read.get('W7')?.properties.Color, BIG);
});

/**
 * What the SQLite store reads before it writes an operation's first row, counted on a real file: its
 * client token (when not held in memory), the operation in progress on the resource and the resource
 * itself are one statement (lookBefore), for an operation begun for a provider to run as for one
 * completed at once. The answers stay those of three lookups: a replay, a conflict, a precondition
 * that sees the resource.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredResource } from '../../src/store/types.js';
import { isCountsSql } from '../helpers/sqlite-meter.js';
import { meteredStore, operation } from './fixtures.js';

/** The statements of one call, transaction control and the counts' own look left out. */
const READ = /^(SELECT|PRAGMA)\b/i;

test('a begun operation reads its token, the operation in progress and the resource in one statement', async (t) => {
  const { store, meter } = await meteredStore(t);
  const reads = () =>
    meter
      .take()
      .log.filter((sql) => READ.test(sql) && !isCountsSql(sql) && !/^PRAGMA data_version/i.test(sql));

  // A create with a client token: the token, and no operation in progress on the name.
  const created = operation({ identifier: 'new', clientToken: 'tok-new' });
  assert.equal((await store.beginOperation(created, 'h')).kind, 'started');
  assert.equal(reads().length, 1, 'one read before the insert');

  // An update computed from the resource: the token, the operation in progress, the resource.
  let seen: StoredResource | undefined;
  const update = operation({ identifier: 'made', operation: 'UPDATE', clientToken: 'tok-update' });
  const begun = await store.beginOperation(update, 'h', undefined, (current) => {
    seen = current;
  });
  assert.equal(begun.kind, 'started');
  assert.equal(seen?.identifier, 'made', 'the precondition saw the resource');
  assert.equal(reads().length, 1, 'one read before the insert');

  // Its answers are those of the separate lookups: a second operation on the resource conflicts, the
  // same token replays, and a token used for another request is refused.
  assert.deepEqual(await store.beginOperation(operation({ identifier: 'made' })), {
    kind: 'conflict',
    activeRequestToken: update.requestToken,
  });
  assert.deepEqual(
    await store.beginOperation(
      operation({ identifier: 'made', operation: 'UPDATE', clientToken: 'tok-update' }),
      'h',
    ),
    { kind: 'replayed', operation: update },
  );
  assert.equal(
    (await store.beginOperation(operation({ identifier: 'other', clientToken: 'tok-new' }), 'other')).kind,
    'token-mismatch',
  );
});

/**
 * An auditor closed while records are still being made (each waits for its token's description, a
 * store read) hands them to its trail before closing it: a server stopped right after answering
 * loses none of its last requests' records. And a record's stageTimestamp is when it was asked for,
 * not when its description came.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Auditor, type AuditEvent, type EventSink } from '../../src/audit/index.js';

/** A trail that keeps what it is handed, and whether it was closed when each came. */
function keepingTrail(): EventSink & { got: { event: AuditEvent; afterClose: boolean }[] } {
  let closed = false;
  const got: { event: AuditEvent; afterClose: boolean }[] = [];
  return {
    got,
    append: (event) => void got.push({ event, afterClose: closed }),
    admit: () => undefined,
    dropped: 0,
    list: () => Promise.resolve({ items: [] }) as never,
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}

test('records asked for before close reach the trail before it closes', async () => {
  const trail = keepingTrail();
  let describe!: (description: string) => void;
  const auditor = new Auditor({
    level: 'Metadata',
    trail,
    masking: { typeOf: () => Promise.resolve(undefined) },
    // The token's description comes only after close was called.
    describeToken: () => new Promise<string>((resolve) => (describe = resolve)),
  });
  const recorded = auditor.record({
    method: 'POST',
    url: '/v1/tokens',
    route: '/v1/tokens',
    verb: 'create',
    objectRef: { resource: 'tokens' },
    user: { tokenId: 'tok-1' },
    status: 201,
    receivedAt: Date.now(),
  });
  const closed = auditor.close();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(trail.got.length, 0, 'the record still waits for its description');
  describe('ci deploys');
  await Promise.all([recorded, closed]);
  assert.equal(trail.got.length, 1, 'the record reached the trail');
  assert.equal(trail.got[0]!.afterClose, false, 'before the trail was closed');
  assert.equal(trail.got[0]!.event.user.description, 'ci deploys');
});

test("a record's stage time is when it was asked for, not when its token's description came", async () => {
  const trail = keepingTrail();
  const pending: ((description: string) => void)[] = [];
  const auditor = new Auditor({
    level: 'Metadata',
    trail,
    masking: { typeOf: () => Promise.resolve(undefined) },
    describeToken: () => new Promise<string>((resolve) => pending.push(resolve)),
  });
  const request = (tokenId: string) => ({
    method: 'POST',
    url: '/v1/tokens',
    route: '/v1/tokens',
    verb: 'create',
    objectRef: { resource: 'tokens' },
    user: { tokenId },
    status: 201,
    receivedAt: Date.now(),
  });
  const asked = Date.now();
  const first = auditor.record(request('tok-1'));
  const returned = Date.now();
  // The description comes well after the request was answered.
  await new Promise((resolve) => setTimeout(resolve, 30));
  pending[0]!('slow');
  await first;
  const stage = Date.parse(trail.got[0]!.event.stageTimestamp);
  assert.ok(
    stage >= asked && stage <= returned,
    `stage time ${stage - asked} ms after it was asked for (the call took ${returned - asked} ms)`,
  );
  await auditor.close();
});

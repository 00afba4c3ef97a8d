import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { WIDGET, WIDGET_TYPE, api, settle, spawnServer, tempDir } from '../helpers/service.js';

const T = encodeURIComponent(WIDGET_TYPE);
const N = 200;

test(
  'SIGKILL during a burst of creates: after a restart every operation finishes, nothing lost or duplicated',
  { timeout: 90_000 },
  async (t) => {
    const dataDir = tempDir();
    const first = await spawnServer(dataDir, ['--lease', '1']);
    const a = api(first.url, first.token);
    assert.equal((await a.call('POST', '/v1/types', WIDGET)).status, 201);

    const body = (i: number) => ({
      desiredState: { Name: `n${i}`, Color: `c${i}`, Secret: `secret-${i}` },
      clientToken: `tok-${i}`,
    });
    const send = (i: number) => a.call('POST', `/v1/resources/${T}`, body(i)).catch((e: unknown) => e);
    // The first half of the burst goes out; once one of it is answered, the second half is sent and
    // the server killed in the same turn, so the kill falls mid-burst: some answered, some not.
    const early = Array.from({ length: N / 2 }, (_, i) => send(i));
    const firstAnswer = Promise.any(
      early.map((p) => p.then((r) => (r instanceof Error ? Promise.reject(r) : r))),
    );
    const noAnswer = new Promise((_, reject) =>
      setTimeout(() => reject(new Error('no create was answered within 30 s')), 30_000).unref(),
    );
    await Promise.race([firstAnswer, noAnswer]);
    const sent = [...early, ...Array.from({ length: N / 2 }, (_, i) => send(N / 2 + i))];
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    const answered = (await Promise.all(sent)).filter((r) => !(r instanceof Error)).length;
    t.diagnostic(`${answered} of ${N} creates answered before the kill`);
    assert.ok(answered > 0 && answered < N, `the kill came mid-burst: ${answered} of ${N} creates answered`);

    // The same admin token again: client tokens are scoped to the API token that sent them, so a
    // retry replays only when it comes from the same caller.
    const second = await spawnServer(dataDir, ['--lease', '1'], { TYPEPLANE_ADMIN_TOKEN: first.token });
    try {
      const b = api(second.url, second.token);
      // Every client retries its call with its token: the same operation comes back, or the first one starts now.
      const tokens: string[] = [];
      for (let i = 0; i < N; i++) {
        const res = await b.call('POST', `/v1/resources/${T}`, body(i));
        assert.equal(res.status, 202, JSON.stringify(res.body));
        tokens.push(res.body.progressEvent.requestToken);
      }
      const outcomes = await Promise.all(tokens.map((t) => settle(b, t, 30_000)));
      assert.deepEqual(
        outcomes
          .filter((o) => o.operationStatus !== 'SUCCESS')
          .map((o) => [o.identifier, o.errorCode, o.statusMessage]),
        [],
        'every operation ends in SUCCESS',
      );
      const identifiers: string[] = [];
      let nextToken: string | null = null;
      do {
        const q: string = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
        const page = await b.call('GET', `/v1/resources/${T}?maxResults=1000${q}`);
        identifiers.push(...page.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier));
        nextToken = page.body.nextToken;
      } while (nextToken);
      assert.equal(identifiers.length, N);
      assert.equal(new Set(identifiers).size, N, 'no duplicates');
      for (const i of [0, Math.floor(N / 2), N - 1]) {
        const read = await b.call('GET', `/v1/resources/${T}/n${i}`);
        assert.equal(read.body.properties.Color, `c${i}`);
      }
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
    // The state provider's resources are the engine's record, written with their operation in one
    // transaction: every successful create has its row and there is no row without one.
    const db = new Database(join(dataDir, 'typeplane.db'), { readonly: true });
    const created = db
      .prepare(
        `SELECT identifier FROM operations WHERE type_name = ? AND operation = 'CREATE' AND status = 'SUCCESS' ORDER BY identifier`,
      )
      .all(WIDGET_TYPE) as { identifier: string }[];
    const index = db
      .prepare('SELECT identifier FROM resources WHERE type_name = ? ORDER BY identifier')
      .all(WIDGET_TYPE) as { identifier: string }[];
    db.close();
    assert.deepEqual(
      created.map((r) => r.identifier),
      index.map((r) => r.identifier),
    );
  },
);

test(
  'SIGTERM shuts down gracefully and the server starts again on the same data',
  { timeout: 60_000 },
  async () => {
    const dataDir = tempDir();
    const first = await spawnServer(dataDir);
    const a = api(first.url, first.token);
    assert.equal((await a.call('POST', '/v1/types', WIDGET)).status, 201);
    assert.equal(
      (await a.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: 'kept' } })).body
        .progressEvent.operationStatus,
      'SUCCESS',
    );
    first.child.kill('SIGTERM');
    const code = await new Promise((r) => first.child.once('exit', r));
    assert.equal(code, 0);
    const second = await spawnServer(dataDir);
    try {
      const read = await api(second.url, second.token).call('GET', `/v1/resources/${T}/kept`);
      assert.equal(read.status, 200);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
  },
);

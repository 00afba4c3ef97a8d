/**
 * The operation worker shares its handler slots between tokens as it does between types: one
 * token's operations run at most `--handlers-per-token` at once, its backlog waits in the store, and
 * another token's operation queued after that backlog is claimed first when a slot frees. On each
 * store (the claim is the store's: SQLite, and PostgreSQL through the new index of migration 15).
 */
import assert from 'node:assert/strict';
import { api, WIDGET, WIDGET_TYPE, settle } from '../helpers/service.js';
import { eachStoreService } from '../helpers/each-store.js';
import { memoryProvider } from '../helpers/providers.js';

/**
 * A provider whose creates wait, each until its name is let go (or all are, those to come too); it
 * counts those running by their name's first letter.
 */
function heldCreates() {
  const gates = new Map<string, () => void>();
  let open = false;
  const started: string[] = [];
  const running = new Map<string, number>();
  const most = new Map<string, number>();
  const provider = memoryProvider({
    create: async (req, store) => {
      const name = String(req.desiredState.Name);
      const who = name[0]!;
      started.push(name);
      running.set(who, (running.get(who) ?? 0) + 1);
      most.set(who, Math.max(most.get(who) ?? 0, running.get(who)!));
      if (!open) await new Promise<void>((resolve) => gates.set(name, resolve));
      running.set(who, running.get(who)! - 1);
      store.set(name, req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const release = (name: string) => gates.get(name)?.();
  const releaseAll = () => {
    open = true;
    gates.forEach((go) => go());
  };
  return { provider, started, running, most, release, releaseAll };
}

async function until(what: string, check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let held: ReturnType<typeof heldCreates>;
eachStoreService(
  "a token's backlog takes its share of the worker's slots: another token's operation queued after it runs first",
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const writer = async () =>
      api(svc.url, (await svc.call('POST', '/v1/tokens', { role: 'writer' })).body.token as string);
    const [noisy, quiet] = [await writer(), await writer()];
    const path = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`;
    const create = async (client: typeof noisy, name: string) => {
      const res = await client.call('POST', path, { desiredState: { Name: name } });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return res.body.progressEvent.requestToken as string;
    };
    try {
      const backlog: string[] = [];
      for (let i = 0; i < 8; i++) backlog.push(await create(noisy, `n${i}`));
      await until('three of the noisy token run', () => held.running.get('n') === 3);
      const first = await create(quiet, 'q0');
      await until('the quiet token runs at once beside them', () => held.started.includes('q0'));
      // The worker is full (4 slots): this one waits in the store, after the noisy backlog.
      const second = await create(quiet, 'q1');
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(!held.started.includes('q1'));
      held.release('q0');
      assert.equal((await settle(quiet, first)).operationStatus, 'SUCCESS');
      // The freed slot goes to the quiet token: the noisy one is at its share, its older backlog waits.
      await until('the quiet token is claimed before the older backlog', () => held.started.includes('q1'));
      assert.equal(held.running.get('n'), 3);
      assert.deepEqual(
        held.started.filter((n) => n.startsWith('n')),
        ['n0', 'n1', 'n2'],
      );
      held.releaseAll();
      assert.equal((await settle(quiet, second)).operationStatus, 'SUCCESS');
      for (const token of backlog)
        assert.equal((await settle(noisy, token, 10_000)).operationStatus, 'SUCCESS');
      assert.equal(held.most.get('n'), 3, 'never more than its share, queued ones included');
    } finally {
      held.releaseAll();
    }
  },
  () => {
    held = heldCreates();
    return {
      providers: new Map([[WIDGET_TYPE, held.provider]]),
      operationConcurrency: { total: 4, perType: 4, perToken: 3 },
      // No polling to fall back on: queued operations start as slots free.
      pollIntervalMs: 60_000,
    };
  },
);

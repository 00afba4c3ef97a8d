/**
 * The first admin token is made once per store, even when several servers (replicas over one store)
 * start on it together; a claim left by a start that died before making it does not lock anyone out.
 */
import assert from 'node:assert/strict';
import { Tokens } from '../../src/auth/index.js';
import { eachStore, freshStoreOf, openSpec } from '../store/fixtures.js';

eachStore(
  'replicas starting together on an empty store make one first admin token between them',
  async (t, kind) => {
    const { store, spec } = await freshStoreOf(t, kind);
    const others = await Promise.all(Array.from({ length: 3 }, () => openSpec(spec)));
    t.after(() => Promise.all(others.map((s) => s.close())));
    const made = await Promise.all([store, ...others].map((s) => new Tokens(s).bootstrap()));
    const tokens = made.filter((m) => m !== undefined);
    assert.equal(tokens.length, 1, `made: ${JSON.stringify(made)}`);
    assert.equal((await new Tokens(store).authenticate(tokens[0]!))?.role, 'admin');
    assert.equal(await new Tokens(store).bootstrap(), undefined, 'a later start makes none');
  },
);

eachStore('a first-token claim a minute old with no token behind it is taken over', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const old = new Date(Date.now() - 120_000).toISOString();
  await store.kvInsert('typeplane:bootstrap', 'first-admin-token', {
    value: { claimedAt: old },
    writtenBy: 'typeplane:auth',
  });
  const token = await new Tokens(store).bootstrap();
  assert.ok(token, 'a token was made');
  assert.equal((await new Tokens(store).authenticate(token))?.role, 'admin');
});

eachStore('a fresh claim by another start is left to it', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await store.kvInsert('typeplane:bootstrap', 'first-admin-token', {
    value: { claimedAt: new Date().toISOString() },
    writtenBy: 'typeplane:auth',
  });
  assert.equal(await new Tokens(store).bootstrap(), undefined);
});

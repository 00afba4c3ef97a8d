/**
 * Traces on PostgreSQL: a server on a real PostgreSQL database (a fresh schema) exports its spans to
 * a real OTLP/HTTP receiver, and a create's trace holds the store's transactions — the begin's (the
 * operation checked and written) under `begin CREATE`, and the one recording the provider's answer
 * under `step CREATE` — as `postgresql transaction` spans with `db.system.name` postgresql.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freshSchema, PG_URL, pgSkip } from '../helpers/postgres.js';
import { TYPE, attribute, names, setUp, tracedCreate } from './traced-server.js';

test(
  "a create's trace on PostgreSQL holds the store's transactions under the operation's spans",
  { skip: pgSkip },
  async (t) => {
    const schema = freshSchema(t, 'tp_traces');
    const setup = await setUp(t, {}, { args: ['--database-url', PG_URL, '--database-schema', schema] });
    const { spans, childrenOf, root } = await tracedCreate(setup, `/v1/resources/${TYPE}?wait=10`, {
      Name: 'on-postgresql',
    });
    const begin = childrenOf(root).find((s) => s.name === 'begin CREATE');
    assert.ok(begin, `under the request: ${names(childrenOf(root))}`);
    const step = childrenOf(begin).find((s) => s.name === 'step CREATE');
    assert.ok(step, `under begin: ${names(childrenOf(begin))}`);
    for (const parent of [begin, step]) {
      const transactions = childrenOf(parent).filter((s) => s.name === 'postgresql transaction');
      assert.equal(
        transactions.length,
        1,
        `one transaction under ${parent.name}: ${names(childrenOf(parent))}`,
      );
      assert.equal(attribute(transactions[0]!, 'db.system.name'), 'postgresql');
    }
    // No SQLite span in a PostgreSQL server's trace.
    assert.ok(!spans.some((s) => s.name.startsWith('sqlite')), names(spans));
  },
);

/**
 * Several `typeplane serve` processes over one PostgreSQL database (`--database-url`): replicas of
 * one deployment. What one accepts, the others serve; a client token is one operation whichever
 * replica gets it; an operation a killed replica held is finished by another; write-only values are
 * sealed in the database. Skips when no PostgreSQL server answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WIDGET, WIDGET_TYPE, api, settle, tempDir } from '../helpers/service.js';
import { replicas } from '../helpers/replicas.js';
import { freshSchema, pgQuery, pgSkip } from '../helpers/postgres.js';
import { stopServer } from '../faults/helpers.js';

const W = encodeURIComponent(WIDGET_TYPE);
const NOTE = encodeURIComponent('Test::Slow::Note');
const slowProvider = fileURLToPath(new URL('../fixtures/slow-file-provider/provider.ts', import.meta.url));

test(
  'replicas over one database serve the same types, resources, operations and tokens',
  { skip: pgSkip, timeout: 60_000 },
  async (t) => {
    const schema = freshSchema(t);
    const [one, two] = await replicas(schema, 2);
    t.after(() => Promise.all([stopServer(one), stopServer(two)]));
    const a = api(one!.url, one!.token);
    const b = api(two!.url, two!.token);

    assert.equal((await a.call('POST', '/v1/types', WIDGET)).status, 201);
    assert.equal(
      (await b.call('GET', `/v1/types/${W}`)).status,
      200,
      'the type registered on one is on the other',
    );

    // Created on one, read on the other; the write-only value is kept but never answered.
    const created = await a.call('POST', `/v1/resources/${W}?wait=10`, {
      desiredState: { Name: 'shared', Color: 'red', Secret: 'pg-secret-Xq7' },
      clientToken: 'create-shared',
    });
    assert.equal(created.status, 202);
    assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');
    const read = await b.call('GET', `/v1/resources/${W}/shared`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.properties, { Name: 'shared', Color: 'red', Size: 'S' });

    // The same client token through the other replica: the same operation, no second resource.
    const again = await b.call('POST', `/v1/resources/${W}`, {
      desiredState: { Name: 'shared', Color: 'red', Secret: 'pg-secret-Xq7' },
      clientToken: 'create-shared',
    });
    assert.equal(again.status, 202);
    assert.equal(again.body.progressEvent.requestToken, created.body.progressEvent.requestToken);
    const refused = await b.call('POST', `/v1/resources/${W}`, {
      desiredState: { Name: 'other' },
      clientToken: 'create-shared',
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.errorCode, 'InvalidRequest');

    // Updated on the other; the operation is visible from both.
    const patched = await b.call('PATCH', `/v1/resources/${W}/shared?wait=10`, {
      patchDocument: [{ op: 'replace', path: '/Color', value: 'blue' }],
    });
    assert.equal(patched.body.progressEvent.operationStatus, 'SUCCESS');
    const op = await a.call('GET', `/v1/requests/${patched.body.progressEvent.requestToken}`);
    assert.equal(op.body.progressEvent.operationStatus, 'SUCCESS');
    const listed = await a.call('GET', `/v1/resources/${W}`);
    assert.deepEqual(
      listed.body.resourceDescriptions.map((r: { identifier: string; properties: { Color: string } }) => [
        r.identifier,
        r.properties.Color,
      ]),
      [['shared', 'blue']],
    );

    // A token made on one replica works on the other, and revoking it there ends it everywhere.
    const made = await a.call('POST', '/v1/tokens', { role: 'reader' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const reader = api(two!.url, made.body.token as string);
    assert.equal((await reader.call('GET', `/v1/resources/${W}/shared`)).status, 200);
    assert.equal((await reader.call('DELETE', `/v1/resources/${W}/shared`)).status, 403);
    assert.equal((await b.call('DELETE', `/v1/tokens/${made.body.id as string}`)).status, 204);
    // Token lookups are cached for a second.
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal((await api(one!.url, made.body.token as string).call('GET', '/v1/types')).status, 401);

    // Deleted through one: gone for the other, and the type can go.
    const deleted = await a.call('DELETE', `/v1/resources/${W}/shared?wait=10`);
    assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS');
    assert.equal((await b.call('GET', `/v1/resources/${W}/shared`)).status, 404);
    assert.equal((await b.call('DELETE', `/v1/types/${W}`)).status, 204);

    // Nothing in the database holds the write-only value in clear.
    const rows = await pgQuery<{ text: string }>(
      `SELECT string_agg(t::text, ' ') AS text FROM (
         SELECT o::text AS t FROM ${schema}.operations o
         UNION ALL SELECT r::text FROM ${schema}.resources r
         UNION ALL SELECT k::text FROM ${schema}.kv k) all_rows`,
    );
    // Client tokens are stored hashed with their caller's token id, so the rows are known by the request token.
    assert.ok(
      (rows[0]?.text ?? '').includes(created.body.progressEvent.requestToken as string),
      'the rows were read',
    );
    assert.ok(!(rows[0]?.text ?? '').includes('pg-secret-Xq7'), 'the secret is sealed at rest');
  },
);

test(
  'an operation a killed replica held is finished by another, once',
  { skip: pgSkip, timeout: 90_000 },
  async (t) => {
    const schema = freshSchema(t);
    const root = join(tempDir(), 'notes');
    // Leases renew every third of their length; 3 s leave room for a loaded machine's stalls, which
    // with 1 s could let the survivor take over its own step while it still ran (a second side effect).
    const args = ['--provider', slowProvider, '--lease', '3'];
    const [one, two] = await replicas(schema, 2, args, { SLOW_PROVIDER_ROOT: root });
    t.after(() => Promise.all([stopServer(one), stopServer(two)]));
    const a = api(one!.url, one!.token);
    const b = api(two!.url, two!.token);

    // Accepted by the first replica, which runs each create's first step and is killed before the second.
    const N = 20;
    const tokens: string[] = [];
    for (let i = 0; i < N; i++) {
      const res = await a.call('POST', `/v1/resources/${NOTE}`, {
        desiredState: { Name: `n${i}`, Text: `text ${i}` },
        clientToken: `note-${i}`,
      });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      tokens.push(res.body.progressEvent.requestToken as string);
    }
    one!.child.kill('SIGKILL');
    await new Promise((r) => one!.child.once('exit', r));
    const pending = await Promise.all(tokens.map((tk) => b.call('GET', `/v1/requests/${tk}`)));
    assert.ok(
      pending.some((p) => p.body.progressEvent.operationStatus !== 'SUCCESS'),
      'some creates were still running when the replica died',
    );

    // The surviving replica takes them over once the dead one's leases run out.
    const outcomes = await Promise.all(tokens.map((tk) => settle(b, tk, 30_000)));
    assert.deepEqual(
      outcomes.filter((o) => o.operationStatus !== 'SUCCESS').map((o) => [o.identifier, o.errorCode]),
      [],
    );
    for (let i = 0; i < N; i++) {
      const read = await b.call('GET', `/v1/resources/${NOTE}/n${i}`);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.equal(read.body.properties.Text, `text ${i}`);
    }
    // Each note was made by one operation: its own create, whichever replica ran the step. A step the
    // dead replica had carried out but not yet recorded runs again on the survivor (handlers are
    // invoked at least once), so a note may be written twice, always under its one request token.
    const byName = new Map<string, Set<string>>();
    for (const line of readFileSync(join(root, '.creates'), 'utf8').trim().split('\n')) {
      const [name, token] = line.split(' ');
      byName.set(name!, (byName.get(name!) ?? new Set()).add(token!));
    }
    assert.deepEqual([...byName.keys()].sort(), Array.from({ length: N }, (_, i) => `n${i}`).sort());
    for (const [name, made] of byName)
      assert.deepEqual([...made], [tokens[Number(name.slice(1))]], `${name} was made by its own create only`);
    assert.equal(readdirSync(root).filter((f) => f.endsWith('.txt')).length, N, 'nothing leaked');
  },
);

test(
  'a replica refuses to start with another secret key than the database was sealed with',
  { skip: pgSkip },
  async (t) => {
    const schema = freshSchema(t);
    const [first] = await replicas(schema, 1);
    const a = api(first!.url, first!.token);
    assert.equal((await a.call('POST', '/v1/types', WIDGET)).status, 201);
    await a.call('POST', `/v1/resources/${W}?wait=10`, { desiredState: { Name: 'sealed', Secret: 's' } });
    await stopServer(first);
    await assert.rejects(replicas(schema, 1), /secret key/i);
  },
);

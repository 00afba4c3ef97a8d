/**
 * Durable deployments: a real `typeplane serve` is SIGKILLed while a stack deploys a chain of slow
 * resources (each create takes two handler steps a second apart; the provider's state is files that
 * outlive the process). On SQLite the server is restarted on the same data; on PostgreSQL a second
 * replica, running all along, takes the deployment over once the dead one's lease runs out. Either
 * way the deployment completes, every resource is created by one operation only, and what the
 * provider holds is exactly what the stack lists — nothing duplicated, nothing leaked.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { api, type Api } from '../helpers/service.js';
import { pgSkip } from '../helpers/postgres.js';
import {
  assertCreatedOnce,
  createdLines,
  killServer,
  killableServers,
  until,
} from '../helpers/slow-notes.js';

const NAMES = ['a', 'b', 'c', 'd', 'e'];
/** A chain: each note's text names the one before, so they are created one after another. */
const TEMPLATE = [
  'Resources:',
  ...NAMES.flatMap((n, i) => [
    `  ${n.toUpperCase()}:`,
    '    Type: Test::Slow::Note',
    `    Properties: { Name: ${n}, Text: ${i === 0 ? 'first' : `!Sub "after \${${NAMES[i - 1]!.toUpperCase()}}"`} }`,
  ]),
].join('\n');

for (const kind of ['sqlite', 'postgresql'] as const)
  test(
    `a server SIGKILLed mid-deploy: the deployment resumes and completes, no resource created twice, nothing leaked [${kind}]`,
    { skip: kind === 'postgresql' ? pgSkip : false, timeout: 120_000 },
    async (t) => {
      const { root, first, survivor } = await killableServers(kind, t, 'typeplane-stack-kill-');

      const put = await api(first.url, first.token).call('PUT', '/v1/stacks/chain', { template: TEMPLATE });
      assert.equal(put.status, 202, JSON.stringify(put.body));
      // Killed once two notes exist, while the third is being made.
      await until('two notes created', 30_000, async () =>
        createdLines(root).length >= 2 ? true : undefined,
      );
      await killServer(first);
      const madeBeforeKill = createdLines(root).length;
      assert.ok(madeBeforeKill < NAMES.length, 'the deployment had not finished when the server died');

      const server = await survivor();
      const client: Api = api(server.url, server.token);
      const done = await until('the deployment ended', 60_000, async () => {
        const r = await client.call('GET', '/v1/stacks/chain');
        return /_COMPLETE$|_FAILED$/.test(r.body.status) && r.body.deploymentId === undefined
          ? r.body
          : undefined;
      });
      assert.equal(done.status, 'CREATE_COMPLETE', JSON.stringify(done));
      assert.deepEqual(done.resources.map((r: { identifier: string }) => r.identifier).sort(), NAMES);

      // One create operation per note: a retried handler step repeats the same request's token.
      assertCreatedOnce(root, NAMES);
      const notes = readdirSync(root)
        .filter((f) => f.endsWith('.txt'))
        .sort();
      assert.deepEqual(
        notes,
        NAMES.map((n) => `${n}.txt`),
        'the provider holds exactly the stack',
      );
      assert.equal(readFileSync(join(root, 'e.txt'), 'utf8'), 'after d');
      const listed = await client.call('GET', '/v1/resources/Test::Slow::Note');
      assert.equal(listed.body.resourceDescriptions.length, NAMES.length);
      const events = (await client.call('GET', '/v1/stacks/chain/events?maxResults=1000')).body.events;
      for (const n of NAMES)
        assert.equal(
          events.filter(
            (e: { logicalId: string; status: string }) =>
              e.logicalId === n.toUpperCase() && e.status === 'CREATE_COMPLETE',
          ).length,
          1,
          `${n} completed once`,
        );

      const deleted = await client.call('DELETE', '/v1/stacks/chain?wait=60');
      assert.equal(deleted.status, 202);
      assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE', JSON.stringify(deleted.body));
      assert.deepEqual(
        readdirSync(root).filter((f) => f.endsWith('.txt')),
        [],
        'nothing left after the delete',
      );
    },
  );

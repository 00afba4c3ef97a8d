/**
 * Durable recipes: a real `typeplane serve` is SIGKILLed while an instance's recipe runs (its stack
 * makes a chain of slow notes, each a file on disk made in two handler steps a second apart, the
 * instance's operation IN_PROGRESS). On SQLite the server is restarted on the same data; on
 * PostgreSQL a second replica, running all along, takes over once the dead one's lease runs out.
 * Either way the instance's operation ends SUCCESS with the recipe's outputs, each note was created
 * by one operation only, and the files on disk are exactly the recipe's; the instance's stack is
 * written only when its drift is first read, adopting the notes — then deleting the instance removes
 * them all.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { api, settle, type Api } from '../helpers/service.js';
import { pgSkip } from '../helpers/postgres.js';
import { stopServer } from '../faults/helpers.js';
import {
  assertCreatedOnce,
  createdLines,
  killServer,
  killableServers,
  notesOnDisk,
  NOTE_TYPE as NOTE,
  until,
} from '../helpers/slow-notes.js';
import { stackNameOf } from '../../src/recipes/instance-stack.js';
import { SAMPLE_MANIFEST, SAMPLE_TYPE } from './fixtures.js';

const enc = encodeURIComponent;
/** Three notes, each naming the one before, so the stack makes them one after another. */
const RECIPE = `
Resources:
  First:
    Type: ${NOTE}
    Properties:
      Name: !Sub '\${context.resource.name}-a'
      Text: !GetAtt context.resource.properties.size
  Second:
    Type: ${NOTE}
    Properties:
      Name: !Sub '\${context.resource.name}-b'
      Text: !Sub 'after \${First}'
  Third:
    Type: ${NOTE}
    Properties:
      Name: !Sub '\${context.resource.name}-c'
      Text: !Sub 'after \${Second}'
Outputs:
  result:
    Value:
      values:
        status.binding.hostname: !Ref Third
        status.binding.username: !GetAtt Second.Text
        status.binding.secret: !Sub '\${First}/secret'
`;
const NOTES = ['orders-a', 'orders-b', 'orders-c'];

// The two stores at once: each mostly waits (for servers to start, leases to run out, slow notes).
/**
 * When the server dies (the new instance is made without a stack: nothing of one is written while it
 * runs): `early`, its first note begun, before the instance handler's first wait ran out; `late`, once
 * that wait ran out (the operation answered IN_PROGRESS) and the second note is begun; `stopped`, at
 * the same moment as `early`, the server stopped gracefully (SIGTERM). Run again (restarted, or on the
 * other replica), the instance's create replays each note's operation by its token.
 */
const MOMENTS = ['early', 'late', 'stopped'] as const;

describe('a server SIGKILLed mid-recipe', { concurrency: true }, () => {
  for (const kind of ['sqlite', 'postgresql'] as const)
    for (const moment of MOMENTS)
      it(
        `the instance's operation resumes and succeeds with its outputs, no resource made twice, nothing leaked [${kind}, ${moment}]`,
        { skip: kind === 'postgresql' ? pgSkip : false, timeout: 120_000 },
        async (t) => {
          const { root, first, standby, survivor } = await killableServers(kind, t, 'typeplane-recipe-kill-');
          const admin = api(first.url, first.token);
          const type = await admin.call('POST', '/v1/types', SAMPLE_MANIFEST, {
            'content-type': 'application/yaml',
          });
          assert.equal(type.status, 201, JSON.stringify(type.body));
          const reg = await admin.call('POST', '/v1/recipes', { typeName: SAMPLE_TYPE, template: RECIPE });
          assert.equal(reg.status, 201, JSON.stringify(reg.body));
          if (standby)
            // The standby learns the type is a recipe's (it polls), before it may have to take over.
            await until('the standby serves the type by its recipe', 10_000, async () => {
              const r = await api(standby.url, standby.token).call('GET', '/v1/recipes');
              return r.body.recipes.length === 1 ? true : undefined;
            });

          const created = await admin.call('POST', `/v1/resources/${enc(SAMPLE_TYPE)}`, {
            desiredState: { name: 'orders', size: 'L' },
          });
          assert.equal(created.status, 202, JSON.stringify(created.body));
          const requestToken: string = created.body.progressEvent.requestToken;
          const stack = stackNameOf(SAMPLE_TYPE, 'orders');
          if (moment !== 'late') {
            // Killed once the first note's operation is begun, before the instance handler's first wait
            // (1 s) ran out: its first step answers IN_PROGRESS, the file comes a second later.
            await until('the first note begun', 30_000, async () => {
              const r = await admin.call('GET', '/v1/requests');
              const notes = r.body.progressEvents as { typeName: string }[];
              return notes.some((e) => e.typeName === NOTE) ? true : undefined;
            });
          } else {
            // Killed once the handler's first wait ran out and the second note is begun.
            await until('the second note begun, the operation answered IN_PROGRESS', 30_000, async () =>
              createdLines(root).length >= 2 ? true : undefined,
            );
          }
          const held = await admin.call('GET', `/v1/stacks/${stack}`);
          assert.equal(
            held.status,
            404,
            `no stack is written while the instance is made: ${JSON.stringify(held.body)}`,
          );
          const before = await admin.call('GET', `/v1/requests/${requestToken}`);
          if (moment === 'stopped') await stopServer(first);
          else await killServer(first);
          assert.equal(before.body.progressEvent.operationStatus, 'IN_PROGRESS', JSON.stringify(before.body));
          const madeBeforeKill = createdLines(root).length;
          assert.ok(madeBeforeKill < NOTES.length, 'the recipe had not finished when the server died');

          const server = await survivor();
          const client: Api = api(server.url, server.token);
          const done = await settle(client, requestToken, 60_000);
          assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));

          const read = await client.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders`);
          assert.equal(read.status, 200, JSON.stringify(read.body));
          const props = read.body.resourceDescription?.properties ?? read.body.properties;
          assert.deepEqual(props.status.binding, {
            hostname: 'orders-c',
            username: 'after orders-a',
            secret: 'orders-a/secret',
          });
          assert.equal(props.status.recipe.templateVersion, '1');
          const instances = await client.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}`);
          assert.equal(instances.body.resourceDescriptions.length, 1, JSON.stringify(instances.body));

          // One create operation per note; the notes on disk are exactly the recipe's.
          assertCreatedOnce(root, NOTES);
          assert.deepEqual(
            notesOnDisk(root),
            NOTES.map((n) => `${n}.txt`),
          );
          assert.equal(readFileSync(join(root, 'orders-c.txt'), 'utf8'), 'after orders-b');
          const notes = await client.call('GET', `/v1/resources/${enc(NOTE)}`);
          assert.equal(notes.body.resourceDescriptions.length, NOTES.length, JSON.stringify(notes.body));
          assert.equal(
            (await client.call('GET', `/v1/stacks/${stack}`)).status,
            404,
            'no stack before it is needed',
          );
          // Its drift read writes its stack, adopting the notes as they were made: each completed once.
          const drift = await client.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders/drift`);
          assert.equal(drift.status, 200, JSON.stringify(drift.body));
          assert.equal(drift.body.status, 'IN_SYNC', JSON.stringify(drift.body));
          assertCreatedOnce(root, NOTES);
          const events = (await client.call('GET', `/v1/stacks/${stack}/events?maxResults=1000`)).body.events;
          for (const logicalId of ['First', 'Second', 'Third'])
            assert.equal(
              events.filter(
                (e: { logicalId: string; status: string }) =>
                  e.logicalId === logicalId && e.status === 'CREATE_COMPLETE',
              ).length,
              1,
              `${logicalId} completed once`,
            );

          const deleted = await client.call('DELETE', `/v1/resources/${enc(SAMPLE_TYPE)}/orders`);
          assert.equal(deleted.status, 202, JSON.stringify(deleted.body));
          const gone = await settle(client, deleted.body.progressEvent.requestToken, 60_000);
          assert.equal(gone.operationStatus, 'SUCCESS', JSON.stringify(gone));
          assert.deepEqual(notesOnDisk(root), [], 'nothing left after the delete');
          assert.equal((await client.call('GET', `/v1/stacks/${stack}`)).status, 404);
        },
      );
});

/**
 * A stack deployment's client token is remembered with a keyed fingerprint of its request: the store
 * does not let whoever copies it confirm a guess of a NoEcho value (a plain hash of the template and
 * the parameters would), and the token still replays the same request and refuses a different one.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { startTestService, WIDGET } from '../helpers/service.js';
import { plainAtRest } from './helpers.js';

const TEMPLATE = `
Parameters:
  Password: { Type: String, NoEcho: true }
Resources:
  W: { Type: Test::Shop::Widget, Properties: { Name: w, Secret: !Ref Password } }
`;

test("a client token's fingerprint at rest does not confirm a guessed NoEcho value", async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const body = { template: TEMPLATE, parameters: { Password: 'hunter2-guessable' }, clientToken: 'deploy-1' };
  const put = await s.call('PUT', '/v1/stacks/s?wait=20', body);
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
  const replayed = await s.call('PUT', '/v1/stacks/s', body);
  assert.equal(replayed.status, 202);
  assert.equal(replayed.body.deploymentId, put.body.deploymentId, 'the same request replays');
  const other = await s.call('PUT', '/v1/stacks/s', {
    ...body,
    parameters: { Password: 'hunter3-guessable' },
  });
  assert.equal(other.status, 400, 'another password under the same token is another request');
  await s.close();

  // What an offline guess would compute: the request as the server hashes it, with the guessed value.
  const guess = (password: string) =>
    createHash('sha256')
      .update(JSON.stringify({ text: TEMPLATE, parameters: { Password: password }, noRollback: false }))
      .digest('hex');
  assert.deepEqual(plainAtRest(s.dataDir, [guess('hunter2-guessable')]), [], 'the right guess is confirmed');
});

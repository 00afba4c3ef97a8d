/**
 * `typeplane stack drift` as a child process: the table shows each difference as its path and
 * expected → actual, each value shortened around where they differ, and the exit status says
 * whether the stack drifted (0 in sync, 4 drifted), as its --help documents.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { settle, startTestService, WIDGET } from '../helpers/service.js';
import { exits, typeplaneCli } from './helpers.js';

const SHARED = 'a-long-colour-name-shared-by-both-values-up-to-here';

test('stack drift exits 0 in sync and 4 drifted, showing path and expected → actual cut around the difference', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const template = `Resources:\n  A: { Type: Test::Shop::Widget, Properties: { Name: a, Color: ${SHARED}-red } }\n`;
  const put = await s.call('PUT', '/v1/stacks/d?wait=20', { template });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE');
  const cli = (...args: string[]) => typeplaneCli(s.url, s.token, args);

  const [inSync, help] = await Promise.all([cli('stack', 'drift', 'd'), cli('stack', 'drift', '--help')]);
  exits(inSync, 0);
  assert.match(inSync.stdout, /^stack d: IN_SYNC$/m);
  assert.match(help.stdout, /Exit codes: 0 in sync; 4 drifted/);

  const patched = await s.call('PATCH', '/v1/resources/Test::Shop::Widget/a', {
    patchDocument: [{ op: 'replace', path: '/Color', value: `${SHARED}-green` }],
  });
  assert.equal((await settle(s, patched.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');

  const [drifted, json] = await Promise.all([
    cli('stack', 'drift', 'd'),
    cli('stack', 'drift', 'd', '-o', 'json'),
  ]);
  exits(drifted, 4);
  assert.match(drifted.stdout, /^stack d: DRIFTED$/m);
  assert.match(drifted.stdout, /^LOGICAL ID\s+TYPE\s+DRIFT\s+PATH\s+EXPECTED → ACTUAL$/m);
  // Both values begin alike for longer than a column holds: each is cut to show where they differ.
  assert.match(
    drifted.stdout,
    /^A\s+Test::Shop::Widget\s+MODIFIED\s+\/Color\s+…[a-z-]*-red" → …[a-z-]*-green"$/m,
  );
  exits(json, 4);
  assert.equal(JSON.parse(json.stdout).resources[0].differences[0].actual, `${SHARED}-green`);
});

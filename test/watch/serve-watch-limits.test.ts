/**
 * `typeplane serve --watch-limit-per-token` and `--watch-limit` (a real server process): past the
 * limit a watch is refused with 429 naming the flag, and a limit that is no whole number is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnServer, tempDir } from '../helpers/service.js';
import { openWatch } from '../helpers/watch-client.js';

test('serve --watch-limit-per-token bounds one token, and limits that are no whole number are refused', async () => {
  const server = await spawnServer(tempDir(), ['--watch-limit-per-token', '1', '--watch-limit', '5']);
  try {
    const first = await openWatch(server.url, '/v1/requests?watch=true', server.token);
    assert.equal(first.status, 200);
    const second = await openWatch(server.url, '/v1/requests?watch=true', server.token);
    assert.equal(second.status, 429);
    assert.match(second.body.message, /--watch-limit-per-token/);
    first.close();
  } finally {
    server.child.kill('SIGKILL');
  }
  await assert.rejects(
    spawnServer(tempDir(), ['--watch-limit', 'lots']),
    /--watch-limit takes a whole number from 1 to 1000000, not 'lots'/,
  );
});

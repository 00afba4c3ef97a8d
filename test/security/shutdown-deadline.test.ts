/**
 * Graceful shutdown ends within a hard deadline whatever requests do: a client that sends half a
 * request and stalls keeps a plain close waiting (Node gives a request 300 s), so `typeplane serve`
 * exits when `--shutdown-timeout` passes, and at once on a second signal. Real server processes.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { spawnServer, tempDir } from '../helpers/service.js';

/** A request whose headers promise a body that never comes in full. */
function stalledRequest(url: string, token: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(
        `POST /v1/tokens HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
          'content-type: application/json\r\ncontent-length: 1000\r\n\r\n{"role":',
      );
      // Let the server read the headers, so the request is in flight.
      setTimeout(() => resolve(socket), 300);
    });
    socket.on('error', reject);
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, ms: Date.now() - started })));
}

test('SIGTERM with a stalled request in flight: the server exits when --shutdown-timeout passes', async () => {
  const server = await spawnServer(tempDir(), ['--shutdown-timeout', '2']);
  const socket = await stalledRequest(server.url, server.token);
  try {
    const exit = exited(server.child);
    server.child.kill('SIGTERM');
    const { code, ms } = await exit;
    assert.equal(code, 1, 'an exit past the deadline says so in its code');
    assert.ok(ms >= 1500 && ms < 8000, `exited after ${ms} ms`);
    assert.match(server.logs(), /shutdown did not finish in time/);
  } finally {
    socket.destroy();
  }
});

test('the stall holds a shutdown with a long deadline; a second signal ends it at once', async () => {
  const server = await spawnServer(tempDir(), ['--shutdown-timeout', '600']);
  const socket = await stalledRequest(server.url, server.token);
  try {
    const exit = exited(server.child);
    server.child.kill('SIGTERM');
    const early = await Promise.race([exit, new Promise((r) => setTimeout(() => r('running'), 2500))]);
    assert.equal(early, 'running', 'the stalled request keeps a graceful close waiting');
    const again = Date.now();
    server.child.kill('SIGTERM');
    const { code } = await exit;
    assert.equal(code, 1);
    assert.ok(Date.now() - again < 3000, `exited ${Date.now() - again} ms after the second signal`);
    assert.match(server.logs(), /second signal: exiting now/);
  } finally {
    socket.destroy();
  }
});

test('--shutdown-timeout must be a positive number of seconds', async () => {
  await assert.rejects(spawnServer(tempDir(), ['--shutdown-timeout', '0']), /--shutdown-timeout must be/);
  await assert.rejects(spawnServer(tempDir(), ['--shutdown-timeout', 'soon']), /--shutdown-timeout must be/);
});

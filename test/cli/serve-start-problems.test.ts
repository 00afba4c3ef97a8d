/**
 * `typeplane serve` when it cannot start as asked, or should not: a port in use names --port, a port
 * fetch refuses is warned about, and an admin token it refuses leaves nothing written behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer, tempDir } from '../helpers/service.js';
import { CLI, runCli } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...CLI, 'serve', ...args], {
    cwd: root,
    env: { ...process.env, TYPEPLANE_ADMIN_TOKEN: `tp_${'a'.repeat(43)}`, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

async function listen(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

test('a port in use: serve says so and suggests --port', async () => {
  const taken = (await listen(0))!;
  try {
    const { port } = taken.address() as { port: number };
    const run = await serve(['--port', String(port), '--data-dir', tempDir(), '--log-level', 'silent']);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      new RegExp(
        `port ${port} on 127\\.0\\.0\\.1 is in use \\(another 'typeplane serve'\\?\\); stop that one, or pick another port with --port \\(--port 0 picks a free one\\)`,
      ),
    );
  } finally {
    taken.close();
  }
});

test('listening on a port fetch refuses: serve warns, and the CLI still reaches it', async () => {
  // The first of these blocked ports that is free here.
  let port: number | undefined;
  for (const candidate of [6665, 6666, 6667, 6668, 6669, 6697, 10080]) {
    const probe = await listen(candidate);
    if (!probe) continue;
    await new Promise((r) => probe.close(r));
    port = candidate;
    break;
  }
  assert.ok(port, 'one of the blocked ports is free');
  const server = await spawnServer(tempDir(), ['--port', String(port)]);
  try {
    await new Promise((r) => setTimeout(r, 200));
    assert.match(
      server.logs(),
      new RegExp(`warning: port ${port} is one fetch refuses to connect to .*; pick another with --port`),
    );
    const listed = await runCli(['type', 'list', '-o', 'json'], {
      env: { ...process.env, TYPEPLANE_ENDPOINT: server.url, TYPEPLANE_TOKEN: server.token },
    });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), { types: [] });
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
  }
});

test('an admin token serve refuses leaves no key file or database behind', async () => {
  const dataDir = join(tempDir(), 'data');
  const run = await serve(['--port', '0', '--data-dir', dataDir], { TYPEPLANE_ADMIN_TOKEN: 'too-short' });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /the admin token \(TYPEPLANE_ADMIN_TOKEN\) must be at least 32 characters/);
  assert.ok(!existsSync(dataDir) || readdirSync(dataDir).length === 0, 'nothing written');
});

/**
 * `typeplane test --endpoint` judges what a remote provider actually answered: the fixture providers
 * served over the provider protocol on loopback must fail on the same clauses as in-process.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { serveOverProtocol } from '../helpers/protocol-server.js';
import { fixture, root, widgetSchema } from './helpers.js';
import { CLI } from '../helpers/cli.js';

const servers: { close(): Promise<void> }[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

/** `typeplane test -o json` against a fixture served remotely (not blocking: the server is ours). */
async function testRemote(name: string, extra: string[] = []) {
  const served = await serveOverProtocol(await fixture(name));
  servers.push(served);
  const args = ['test', '--schema', widgetSchema, '--endpoint', served.url, '--seed', '1', '--runs', '2'];
  const child = spawn(process.execPath, [...CLI, ...args, '--format', 'json', ...extra], {
    cwd: root,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // 'close', not 'exit': the report may still be unread when the child exits.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const report = stdout.trim().startsWith('{')
    ? (JSON.parse(stdout) as { results: { name: string; status: string; failures: { message: string }[] }[] })
    : undefined;
  const failed = report?.results.filter((r) => r.status === 'fail').map((r) => r.name) ?? [];
  return { code, stdout, stderr, report, failed };
}

test('the correct provider served remotely passes', async () => {
  const run = await testRemote('correct');
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(run.failed, []);
});

test('a remote DELETE that answers SUCCESS with a model fails the suite', async () => {
  const run = await testRemote('delete-returns-model');
  assert.equal(run.code, 1, run.stderr);
  assert.deepEqual(run.failed, ['delete SUCCESS carries no model']);
  const result = run.report!.results.find((r) => r.name === 'delete SUCCESS carries no model')!;
  assert.match(result.failures[0]!.message, /delete answered SUCCESS with a resource model/);
});

test('a remote provider that never returns a read-only property fails, quoting the clause; --allow-absent lets it pass', async () => {
  const run = await testRemote('read-only-never-returned');
  assert.equal(run.code, 1, run.stderr);
  assert.deepEqual(run.failed, ['read-only properties returned']);
  const message = run.report!.results.find((r) => r.name === 'read-only properties returned')!.failures[0]!
    .message;
  assert.match(message, /without the read-only \/properties\/Arn/);
  assert.match(message, /"MUST contain … any readOnlyProperties as defined in the resource schema"/);
  assert.match(message, /--allow-absent \/properties\/Arn/);

  const allowed = await testRemote('read-only-never-returned', ['--allow-absent', '/properties/Arn']);
  assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
  assert.deepEqual(allowed.failed, []);
});

test('--allow-absent naming a property that is not read-only is a usage error (exit 2)', async () => {
  const run = await testRemote('correct', ['--allow-absent', '/properties/Name']);
  assert.equal(run.code, 2);
  assert.match(
    run.stderr,
    /--allow-absent \/properties\/Name: not read-only properties of Test::Contract::Widget \(its read-only properties: \/properties\/Arn, \/properties\/CreatedAt\)/,
  );
});

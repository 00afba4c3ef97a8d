/**
 * `typeplane resource list <type> --watch` and `typeplane request list --watch`, run as child
 * processes against a real server: the list, then each change as it commits, until the server ends
 * the watch (here: its token revoked), which the command reports and exits 1 for.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { runCli, exits } from '../helpers/cli.js';
import { startTestService, WIDGET, WIDGET_TYPE, type TestService } from '../helpers/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService({ watch: { revocationCheckMs: 100 } });
  assert.equal(
    (await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' })).status,
    201,
  );
  await svc.call('POST', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}?wait=10`, {
    desiredState: { Name: 'listed' },
  });
});
after(() => svc.close());

/** A fresh reader token: revoking it is how each test ends its command's watch. */
async function reader(): Promise<{ token: string; id: string }> {
  const made = await svc.call('POST', '/v1/tokens', { role: 'reader' });
  return { token: made.body.token, id: made.body.id };
}

/** Runs `typeplane <args>` with `token`; `seen(text)` resolves once its stdout holds `text`. */
function watching(args: string[], token: string) {
  let out = '';
  const waiting: { text: string; resolve: () => void }[] = [];
  const run = runCli([...args, '--endpoint', svc.url], {
    env: { PATH: process.env.PATH, TYPEPLANE_TOKEN: token },
    timeoutMs: 30_000,
    onStart: (child: ChildProcess) =>
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        for (const w of waiting.filter((w) => out.includes(w.text))) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve();
        }
      }),
  });
  const seen = (text: string) =>
    out.includes(text) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ text, resolve }));
  return { run, seen };
}

test('resource list --watch prints the list, then each change as one JSON line, until the watch ends', async () => {
  const { token, id } = await reader();
  const { run, seen } = watching(['resource', 'list', WIDGET_TYPE, '--watch', '-o', 'json'], token);
  await seen('"listed"');
  await svc.call('POST', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}?wait=10`, {
    desiredState: { Name: 'watched', Secret: 'never-printed' },
  });
  await seen('"watched"');
  await svc.call('DELETE', `/v1/tokens/${id}`);
  const done = await run;
  exits(done, 1);
  const lines = done.stdout.trim().split('\n');
  assert.deepEqual(
    JSON.parse(lines[0]!).resourceDescriptions.map((d: { identifier: string }) => d.identifier),
    ['listed'],
  );
  const added = JSON.parse(lines[1]!);
  assert.equal(added.type, 'ADDED');
  assert.deepEqual(added.object.properties, { Name: 'watched', Size: 'S' });
  assert.ok(!done.stdout.includes('never-printed'));
  assert.match(done.stderr, /the watch ended: .*revoked/);
});

test('request list --watch prints a table line for each operation as it changes', async () => {
  const { token, id } = await reader();
  const { run, seen } = watching(['request', 'list', '--watch'], token);
  await seen('REQUEST TOKEN');
  await svc.call('DELETE', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}/listed?wait=10`, {});
  await seen('DELETE');
  await svc.call('DELETE', `/v1/tokens/${id}`);
  const done = await run;
  exits(done, 1);
  assert.match(done.stdout, /\nADDED +\S+ +DELETE +SUCCESS +Test::Shop::Widget +listed/);
});

test('resource list --filter --watch: the filter narrows the watch as it narrows the list', async () => {
  const { token, id } = await reader();
  const T = encodeURIComponent(WIDGET_TYPE);
  const { run, seen } = watching(
    ['resource', 'list', WIDGET_TYPE, '--filter', 'Color=green', '--watch', '-o', 'json'],
    token,
  );
  await seen('"resourceDescriptions"');
  await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'grey', Color: 'grey' } });
  await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'green', Color: 'green' } });
  await seen('"green"');
  await svc.call('DELETE', `/v1/tokens/${id}`);
  const done = await run;
  exits(done, 1);
  const events = done.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    events.map((e) => `${e.type} ${e.object.identifier}`),
    ['ADDED green'],
    'grey never',
  );
});

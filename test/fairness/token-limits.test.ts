/**
 * A token's own rate and burst (`POST /v1/tokens` with rate and burst, `PATCH /v1/tokens/{id}`, the
 * CLI's `token create --rate --burst` and `token update`), over real HTTP: past its burst a token is
 * answered 429 Throttling with Retry-After, its limits change within a request, bad limits are
 * refused saying how to fix them; the CLI retries a throttled call and says so on stderr; Cloud
 * Control answers ThrottlingException, which the real AWS SDK retries.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ListResourceRequestsCommand } from '@aws-sdk/client-cloudcontrol';
import { cloudControl } from '../helpers/cloudcontrol.js';
import { exits, runCli } from '../helpers/cli.js';
import { api, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

async function writer(limits: Record<string, unknown>) {
  const created = await svc.call('POST', '/v1/tokens', { role: 'writer', ...limits });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body as { token: string; id: string; rate?: number; burst?: number; accessKeyId?: string };
}

test('past its burst a token gets 429 Throttling with Retry-After, and a changed rate applies at once', async () => {
  const created = await writer({ rate: '1/m', burst: 3 });
  assert.equal(created.burst, 3);
  assert.ok(Math.abs(created.rate! - 1 / 60) < 1e-9);
  const client = api(svc.url, created.token);
  for (let i = 0; i < 3; i++) assert.equal((await client.call('GET', '/v1/types')).status, 200);
  const refused = await client.call('GET', '/v1/types');
  assert.equal(refused.status, 429);
  assert.equal(refused.body.errorCode, 'Throttling');
  assert.match(refused.body.message, /over its rate of 1\/m \(burst 3\)/);
  assert.deepEqual(refused.body.details, [{ reason: 'rate' }]);
  // The next request is a minute away: Retry-After says so.
  assert.ok(Number(refused.headers.get('retry-after')) >= 59, refused.headers.get('retry-after') ?? '');
  // Other tokens are not concerned.
  assert.equal((await svc.call('GET', '/v1/types')).status, 200);

  const raised = await svc.call('PATCH', `/v1/tokens/${created.id}`, { rate: '100/s' });
  assert.equal(raised.status, 200);
  assert.deepEqual([raised.body.rate, raised.body.burst], [100, 200]);
  assert.equal((await client.call('GET', '/v1/types')).status, 200);
  const listed = await svc.call('GET', '/v1/tokens');
  const record = listed.body.tokens.find((t: { id: string }) => t.id === created.id);
  assert.deepEqual([record.rate, record.burst], [100, 200]);

  const dropped = await svc.call('PATCH', `/v1/tokens/${created.id}`, { rate: null });
  assert.equal(dropped.status, 200);
  assert.equal(dropped.body.rate, undefined);
  for (let i = 0; i < 5; i++) assert.equal((await client.call('GET', '/v1/types')).status, 200);
});

test('bad limits are refused saying what a limit looks like; only admins change them', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ rate: 'fast' }, /rate must be requests per second, minute or hour .* such as 100\/s/],
    [{ rate: '0/s' }, /rate must be requests per second/],
    [{ rate: '10/s', burst: 0 }, /burst must be a whole number of requests from 1/],
    [{ rate: '10/s', burst: 2.5 }, /burst must be a whole number/],
    [{ burst: 10 }, /a burst needs a rate/],
  ];
  for (const [body, message] of cases) {
    const answer = await svc.call('POST', '/v1/tokens', { role: 'writer', ...body });
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.match(answer.body.message, message);
  }
  const created = await writer({});
  assert.equal(created.rate, undefined);
  const patch = (body: unknown, token = svc.token) =>
    api(svc.url, token).call('PATCH', `/v1/tokens/${created.id}`, body);
  assert.match(
    (await patch({ role: 'admin' })).body.message,
    /unknown field: role .*its role, types and description do not/,
  );
  assert.match((await patch({})).body.message, /give a rate, a burst, or rate null/);
  assert.match((await patch({ burst: 5 })).body.message, /a burst needs a rate: this token has none/);
  assert.equal((await patch({ rate: '5/s' }, created.token)).status, 403);
  const missing = await svc.call('PATCH', '/v1/tokens/no-such-token', { rate: '5/s' });
  assert.equal(missing.status, 404);
});

test('the CLI sends a throttled call again after Retry-After and says so; token create and update set limits', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TYPEPLANE_TOKEN: svc.token };
  delete env.TYPEPLANE_ENDPOINT;
  const cli = (args: string[], token = svc.token) =>
    runCli([...args, '--endpoint', svc.url], { env: { ...env, TYPEPLANE_TOKEN: token } });
  const created = await cli([
    'token',
    'create',
    '--role',
    'reader',
    '--rate',
    '1/s',
    '--burst',
    '1',
    '-o',
    'json',
  ]);
  exits(created, 0);
  const { token, id } = JSON.parse(created.stdout) as { token: string; id: string };
  const list = await cli(['token', 'list']);
  exits(list, 0);
  assert.match(list.stdout, new RegExp(`^${id}\\s+reader\\s+\\*\\s+-\\s+1/s burst 1\\s`, 'm'));
  // The token's burst is kept spent until the CLI is refused once; it then waits its Retry-After
  // (1 s) and succeeds. Should its call find a token in the bucket (a 1-in-200 chance), it runs again.
  const client = api(svc.url, token);
  let throttled: Awaited<ReturnType<typeof cli>> | undefined;
  for (let run = 0; run < 3 && !/retrying in/.test(throttled?.stderr ?? ''); run++) {
    let refused = false;
    let ended = false;
    const started = Date.now();
    const running = runCli(['type', 'list', '--endpoint', svc.url], {
      env: { ...env, TYPEPLANE_TOKEN: token },
      onStart: (child) => child.stderr!.on('data', (d: Buffer) => (refused ||= d.includes('retrying in'))),
    }).finally(() => (ended = true));
    while (!refused && !ended) {
      await client.call('GET', '/v1/types');
      await new Promise((r) => setTimeout(r, 5));
    }
    throttled = await running;
    exits(throttled, 0);
    if (refused) assert.ok(Date.now() - started >= 1000);
  }
  assert.match(
    throttled!.stderr,
    /the server is throttling this token \(429 Throttling\); retrying in 1\.\d s \(retry 1 of 5\)/,
  );
  const updated = await cli(['token', 'update', id, '--rate', '6000/m', '--burst', '50']);
  exits(updated, 0);
  assert.equal(updated.stdout, `${id} rate 100/s burst 50\n`);
  const none = await cli(['token', 'update', id]);
  exits(none, 2);
  assert.match(none.stderr, /give --rate \(and maybe --burst\), --burst, or --no-rate/);
  exits(await cli(['token', 'update', id, '--no-rate']), 0);
  const unlimited = (await svc.call('GET', '/v1/tokens')).body.tokens.find(
    (t: { id: string }) => t.id === id,
  );
  assert.equal(unlimited.rate, undefined);
});

test('Cloud Control answers a throttled key ThrottlingException, which the AWS SDK retries', async () => {
  const keys = await svc.call('POST', '/v1/tokens', { role: 'reader', awsKeys: true, rate: '5/s', burst: 1 });
  assert.equal(keys.status, 201);
  const once = cloudControl(svc.url, keys.body, { maxAttempts: 1 });
  await once.send(new ListResourceRequestsCommand({}));
  await assert.rejects(once.send(new ListResourceRequestsCommand({})), (error: Error) => {
    assert.equal(error.name, 'ThrottlingException');
    assert.match(error.message, /over its rate of 5\/s \(burst 1\)/);
    assert.equal((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode, 429);
    return true;
  });
  const retrying = cloudControl(svc.url, keys.body, { maxAttempts: 10 });
  let retried = 0;
  for (let i = 0; i < 4; i++) {
    const answer = await retrying.send(new ListResourceRequestsCommand({}));
    retried += (answer.$metadata.attempts ?? 1) - 1;
  }
  assert.ok(retried > 0, 'the SDK retried throttled calls and they succeeded');
});

/**
 * `typeplane token create|list|revoke` and `--token` / TYPEPLANE_TOKEN on the API commands, as child
 * processes against a real server.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ListResourceRequestsCommand } from '@aws-sdk/client-cloudcontrol';
import { cloudControl } from '../helpers/cloudcontrol.js';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { exits, runCli, type CliRun } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

/**
 * The CLI against the test server (or `endpoint`); TYPEPLANE_TOKEN only as `env` says (the outer
 * one never leaks in).
 */
function typeplane(args: string[], env: Record<string, string> = {}, endpoint = svc.url): Promise<CliRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...env };
  if (!('TYPEPLANE_TOKEN' in env)) delete childEnv.TYPEPLANE_TOKEN;
  if (!('TYPEPLANE_PROVIDER_TOKEN' in env)) delete childEnv.TYPEPLANE_PROVIDER_TOKEN;
  delete childEnv.TYPEPLANE_ENDPOINT;
  return runCli([...args, '--endpoint', endpoint], { env: childEnv });
}

test('token create prints the token alone; list shows it without the secret; revoke ends it', async () => {
  const created = await typeplane(
    ['token', 'create', '--role', 'reader', '--types', 'Test::*', 'Other::*', '--description', 'ci'],
    { TYPEPLANE_TOKEN: svc.token },
  );
  exits(created, 0);
  const token = created.stdout.trim();
  assert.match(created.stdout, /^tp_[A-Za-z0-9_-]{43}\n$/);
  assert.match(created.stderr, /^created reader token [0-9a-f-]{36}; it is shown only now\n$/);

  const [list, listJson, withFlag] = await Promise.all([
    typeplane(['token', 'list'], { TYPEPLANE_TOKEN: svc.token }),
    typeplane(['token', 'list', '-o', 'json'], { TYPEPLANE_TOKEN: svc.token }),
    // --token wins over TYPEPLANE_TOKEN.
    typeplane(['type', 'list', '--token', token], {
      TYPEPLANE_TOKEN: 'tp_not-a-real-token-at-all-0000000000000000',
    }),
  ]);
  exits(list, 0);
  assert.match(list.stdout, /^ID\s+ROLE\s+TYPES\s+AWS ACCESS KEY\s+RATE\s+CREATED\s+DESCRIPTION\n/);
  assert.match(list.stdout, /\sreader\s+Test::\*,Other::\*\s+-\s+-\s+\S+\s+ci\n/);
  assert.match(list.stdout, /\sadmin\s+\*\s/);
  assert.ok(!list.stdout.includes(token) && !list.stdout.includes(svc.token));
  exits(listJson, 0);
  const record = (JSON.parse(listJson.stdout) as { tokens: { id: string; role: string }[] }).tokens.find(
    (t) => t.role === 'reader',
  )!;
  exits(withFlag, 0);

  const revoked = await typeplane(['token', 'revoke', record.id], { TYPEPLANE_TOKEN: svc.token });
  exits(revoked, 0);
  assert.equal(revoked.stdout, `revoked ${record.id}\n`);
  const afterRevoke = await typeplane(['type', 'list'], { TYPEPLANE_TOKEN: token });
  exits(afterRevoke, 1);
  assert.match(afterRevoke.stderr, /^error: InvalidCredentials: the token is unknown or revoked/);
});

test('without a token, or with a role that may not, the CLI says what went wrong and how to get a token', async () => {
  const [none, readerToken] = await Promise.all([
    typeplane(['type', 'list']),
    typeplane(['token', 'create', '--role', 'reader', '-o', 'json'], { TYPEPLANE_TOKEN: svc.token }),
  ]);
  exits(none, 1);
  assert.match(none.stderr, /^error: InvalidCredentials: this API needs a token/);
  assert.match(none.stderr, /prints an admin token on first start/);
  assert.match(none.stderr, /^hint: the CLI sends the token given with --token or env TYPEPLANE_TOKEN$/m);
  // Where tokens come from is said once (the server's message), not again in the hint.
  assert.equal(none.stderr.match(/prints an admin token/g)?.length, 1, none.stderr);
  assert.doesNotMatch(none.stderr, /^\s+at /m, 'no stack trace');

  exits(readerToken, 0);
  const reader = (JSON.parse(readerToken.stdout) as { token: string }).token;
  const [denied, badRole] = await Promise.all([
    typeplane(['token', 'create', '--role', 'admin'], { TYPEPLANE_TOKEN: reader }),
    typeplane(['token', 'create', '--role', 'root'], { TYPEPLANE_TOKEN: svc.token }),
  ]);
  exits(denied, 1);
  assert.match(denied.stderr, /^error: AccessDenied: a reader token cannot create, list or revoke tokens\n$/);
  exits(badRole, 1);
  assert.match(badRole.stderr, /^error: InvalidRequest: role must be admin, writer, reader or monitor/);
});

test('typeplane test --endpoint sends --token (or TYPEPLANE_PROVIDER_TOKEN) to the provider, never TYPEPLANE_TOKEN', async () => {
  // A stand-in provider that only records the Authorization header of each call and refuses it.
  const seen: (string | undefined)[] = [];
  const provider = createServer((req, res) => {
    seen.push(req.headers.authorization);
    req.resume();
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"no"}');
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/`;
  const schema = join(root, 'test/contract/state-gadget.json');
  const args = ['test', '--schema', schema, '--only', 'create→read', '--runs', '1', '--format', 'json'];
  try {
    const [flag, env, apiToken] = await Promise.all([
      typeplane([...args, '--token', 'provider-secret-1'], {}, url),
      typeplane(args, { TYPEPLANE_PROVIDER_TOKEN: 'provider-secret-2' }, url),
      typeplane(args, { TYPEPLANE_TOKEN: svc.token }, url),
    ]);
    for (const run of [flag, env, apiToken]) assert.notEqual(run.code, 0, 'the refusing provider fails');
    assert.ok(seen.includes('Bearer provider-secret-1'), JSON.stringify(seen));
    assert.ok(seen.includes('Bearer provider-secret-2'), JSON.stringify(seen));
    assert.ok(seen.includes(undefined), 'a call without a provider token has no Authorization header');
    assert.ok(!seen.some((h) => h?.includes(svc.token)), 'the API token never goes to a provider');
  } finally {
    provider.close();
  }
});

test('token create --aws-keys prints the token and an access key pair that signs Cloud Control requests', async () => {
  const run = await typeplane(['token', 'create', '--role', 'reader', '--types', 'Test::*', '--aws-keys'], {
    TYPEPLANE_TOKEN: svc.token,
  });
  exits(run, 0);
  const m =
    /^TYPEPLANE_TOKEN=(tp_\S+)\nAWS_ACCESS_KEY_ID=(TPAK[A-Z2-7]{16})\nAWS_SECRET_ACCESS_KEY=(\S{40})\n$/.exec(
      run.stdout,
    );
  assert.ok(m, run.stdout);
  assert.match(
    run.stderr,
    /^created reader token [0-9a-f-]{36} and its access key pair; they are shown only now\n$/,
  );
  const [, token, accessKeyId, secretAccessKey] = m;
  const client = cloudControl(svc.url, { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey! });
  const listed = await client.send(new ListResourceRequestsCommand({}));
  assert.ok(Array.isArray(listed.ResourceRequestStatusSummaries));
  // The bearer token printed beside the keys is the same principal on /v1.
  assert.equal((await api(svc.url, token).call('GET', '/v1/requests')).status, 200);

  const json = await typeplane(['token', 'create', '--role', 'writer', '--aws-keys', '-o', 'json'], {
    TYPEPLANE_TOKEN: svc.token,
  });
  exits(json, 0);
  const out = JSON.parse(json.stdout) as Record<string, unknown>;
  assert.match(String(out.token), /^tp_/);
  assert.match(String(out.accessKeyId), /^TPAK[A-Z2-7]{16}$/);
  assert.equal(String(out.secretAccessKey).length, 40);
  assert.equal(out.role, 'writer');
  const plain = await typeplane(['token', 'create', '--role', 'writer', '-o', 'json'], {
    TYPEPLANE_TOKEN: svc.token,
  });
  const without = JSON.parse(plain.stdout) as Record<string, unknown>;
  assert.equal(without.accessKeyId, undefined);
  assert.equal(without.secretAccessKey, undefined);
});

/**
 * GET /v1/audit has a permission of its own, an admin's: writer, reader and monitor tokens are
 * refused 403 with a message that names the audit trail and what it takes (not tokens), and the CLI's
 * `audit export` says the same; an admin token reads it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { exits, runCli } from '../helpers/cli.js';
import { api, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService({ audit: { store: true } });
});
after(() => svc.close());

test('only an admin token reads the audit trail; the others are told it takes one', async () => {
  for (const role of ['writer', 'reader', 'monitor']) {
    const created = await svc.call('POST', '/v1/tokens', { role });
    assert.equal(created.status, 201);
    const refused = await api(svc.url, created.body.token).call('GET', '/v1/audit');
    assert.equal(refused.status, 403, role);
    assert.equal(refused.body.errorCode, 'AccessDenied');
    assert.equal(
      refused.body.message,
      `a ${role} token cannot read the audit trail: it says what every token did, so GET /v1/audit takes an admin token`,
    );
    assert.doesNotMatch(refused.body.message, /tokens$|revoke/);
  }
  const admin = await svc.call('GET', '/v1/audit');
  assert.equal(admin.status, 200);
  assert.ok(Array.isArray(admin.body.records));
});

test('the CLI passes the refusal on as it is', async () => {
  const writer = await svc.call('POST', '/v1/tokens', { role: 'writer' });
  const run = await runCli(['audit', 'export'], {
    env: { ...process.env, TYPEPLANE_ENDPOINT: svc.url, TYPEPLANE_TOKEN: writer.body.token },
  });
  exits(run, 1);
  assert.match(
    run.stderr,
    /error: AccessDenied: a writer token cannot read the audit trail: .* takes an admin token/,
  );
});

/**
 * The CLI side of "a read never writes": `resource get` of a resource the provider lost says so and
 * how to drop the record, `resource list` shows what was observed, and `resource forget` drops the
 * record for a writer (a reader is refused).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { exits, runCli } from '../helpers/cli.js';

const provider = memoryProvider({}, 'forgetful');
let svc: TestService;
let readerToken: string;
let writerToken: string;

before(async () => {
  svc = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  readerToken = (await svc.call('POST', '/v1/tokens', { role: 'reader' })).body.token;
  writerToken = (await svc.call('POST', '/v1/tokens', { role: 'writer' })).body.token;
  const made = await svc.call('POST', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`, {
    desiredState: { Name: 'ada' },
  });
  assert.equal((await settle(svc, made.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  provider.store.delete('ada'); // the provider restarted and lost it
});
after(() => svc.close());

const typeplane = (token: string, args: string[]) =>
  runCli(args, {
    env: { ...process.env, NO_COLOR: '1', TYPEPLANE_TOKEN: token, TYPEPLANE_ENDPOINT: svc.url },
  });

test('resource get says the provider no longer has it, list shows it observed NotFound, and forget drops it for writers only', async () => {
  const get = await typeplane(readerToken, ['resource', 'get', WIDGET_TYPE, 'ada']);
  assert.notEqual(get.code, 0);
  assert.match(get.stderr, /provider no longer has Test::Shop::Widget ada/);
  assert.match(get.stderr, /typeplane resource forget Test::Shop::Widget ada/);

  const list = await typeplane(readerToken, ['resource', 'list', WIDGET_TYPE]);
  exits(list, 0);
  assert.match(list.stdout, /^IDENTIFIER\s+NAME\s+SIZE\s+OBSERVED$/m);
  assert.match(list.stdout, /^ada\s+ada\s+S\s+NotFound since \d{4}-\d\d-\d\dT/m);

  const refused = await typeplane(readerToken, ['resource', 'forget', WIDGET_TYPE, 'ada']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /AccessDenied|reader token cannot/);

  const forgot = await typeplane(writerToken, ['resource', 'forget', WIDGET_TYPE, 'ada']);
  exits(forgot, 0);
  assert.match(forgot.stdout, /SUCCESS/);
  assert.equal(provider.calls.filter((c) => c.action === 'delete').length, 0, 'the provider was not called');
  const empty = await typeplane(readerToken, ['resource', 'list', WIDGET_TYPE]);
  assert.doesNotMatch(empty.stdout, /ada/);
});

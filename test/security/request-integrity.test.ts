/**
 * What a request carries is kept exactly or refused with 400, over real HTTP, on both stores: lone
 * surrogates anywhere in a body (an identifier no URL could reach; a value PostgreSQL would silently
 * change), malformed UTF-8 (never replaced with U+FFFD), numbers beyond JSON (`1e400`, never kept as
 * null); query numbers in plain decimal only; the client's `x-request-id` echoed only when bounded
 * and plain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { WIDGET, WIDGET_TYPE, startTestService, type TestService } from '../helpers/service.js';
import { PG_URL, freshSchema, pgSkip } from '../helpers/postgres.js';

const W = encodeURIComponent(WIDGET_TYPE);

/** A raw POST: the bytes go out exactly as given. */
async function postBytes(
  svc: TestService,
  path: string,
  body: Buffer | string,
  contentType = 'application/json',
) {
  const res = await fetch(svc.url + path, {
    method: 'POST',
    headers: { 'content-type': contentType, authorization: `Bearer ${svc.token}` },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const STORES: [string, false | string, (t: TestContext) => Promise<TestService>][] = [
  ['SQLite', false, () => startTestService()],
  ['PostgreSQL', pgSkip, (t) => startTestService({ database: { url: PG_URL, schema: freshSchema(t) } })],
];

for (const [store, skip, start] of STORES) {
  it(
    `${store}: a lone surrogate in an identifier or any stored string is refused with 400, and nothing is kept`,
    { skip },
    async (t) => {
      const svc = await start(t);
      t.after(() => svc.close());
      assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
      const bodies = [
        '{"desiredState":{"Name":"x\\udc00"}}',
        '{"desiredState":{"Name":"ok1","Color":"\\ud800"}}',
        '{"desiredState":{"Name":"ok2","Labels":["a","b\\udfff"]}}',
        '{"desiredState":{"Name":"ok3"},"clientToken":"\\udc00"}',
      ];
      for (const body of bodies) {
        const res = await postBytes(svc, `/v1/resources/${W}?wait=5`, body);
        assert.equal(res.status, 400, `${body}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.errorCode, 'InvalidRequest');
        assert.match(res.body.message, /lone UTF-16 surrogate/);
        assert.ok(res.body.details[0].pointer.startsWith('/'), JSON.stringify(res.body));
      }
      const patch = await svc.call('POST', `/v1/resources/${W}?wait=5`, { desiredState: { Name: 'p1' } });
      assert.equal(patch.body.progressEvent.operationStatus, 'SUCCESS');
      const refused = await fetch(`${svc.url}/v1/resources/${W}/p1`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.token}` },
        body: '{"patchDocument":[{"op":"add","path":"/Color","value":"\\udc00"}]}',
      });
      assert.equal(refused.status, 400);
      const list = await svc.call('GET', `/v1/resources/${W}`);
      assert.deepEqual(
        list.body.resourceDescriptions.map((d: { identifier: string }) => d.identifier),
        ['p1'],
      );
      // A pair is well-formed text and is kept exactly.
      const emoji = await svc.call('POST', `/v1/resources/${W}?wait=5`, {
        desiredState: { Name: 'e1', Color: 'blue \u{1F600}' },
      });
      assert.equal(emoji.body.progressEvent.operationStatus, 'SUCCESS');
      assert.equal((await svc.call('GET', `/v1/resources/${W}/e1`)).body.properties.Color, 'blue \u{1F600}');
    },
  );
}

describe('request bodies and queries on one server', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  });
  after(() => svc.close());

  it('malformed UTF-8 in a resource body is refused, not replaced with U+FFFD', async () => {
    const body = Buffer.concat([
      Buffer.from('{"desiredState":{"Name":"u1","Color":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}'),
    ]);
    const res = await postBytes(svc, `/v1/resources/${W}?wait=5`, body);
    assert.equal(res.status, 400);
    assert.match(res.body.message, /not valid UTF-8/);
    assert.equal((await svc.call('GET', `/v1/resources/${W}/u1`)).status, 404);
  });

  it('malformed UTF-8 in a type document is TP1003 over HTTP too', async () => {
    const text = WIDGET.replace('Test::Shop::Widget', 'Test::Shop::Binary');
    const bytes = Buffer.from(text);
    const at = bytes.indexOf('A widget');
    bytes[at] = 0xc3; // a lead byte without its continuation
    for (const contentType of ['application/json', 'application/yaml']) {
      const res = await postBytes(svc, '/v1/types', bytes, contentType);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.details[0].rule, 'TP1003');
    }
    assert.equal(
      (await svc.call('GET', `/v1/types/${encodeURIComponent('Test::Shop::Binary')}`)).status,
      404,
    );
  });

  it('a number too large for JSON is refused rather than stored as null', async () => {
    const res = await postBytes(
      svc,
      `/v1/resources/${W}?wait=5`,
      '{"desiredState":{"Name":"n1","Count":1e400}}',
    );
    assert.equal(res.status, 400);
    assert.equal(res.body.details[0].pointer, '/desiredState/Count');
    assert.match(res.body.message, /too large for JSON/);
    assert.equal((await svc.call('GET', `/v1/resources/${W}/n1`)).status, 404);
  });

  it('maxResults and wait accept plain decimal digits only', async () => {
    for (const value of ['0x10', '1e2', ' 10 ', '+5', '10.0', '-1', '١٠']) {
      const list = await svc.call('GET', `/v1/resources/${W}?maxResults=${encodeURIComponent(value)}`);
      assert.equal(list.status, 400, `maxResults=${value}`);
      assert.match(list.body.message, /maxResults/);
      const requests = await svc.call('GET', `/v1/requests?maxResults=${encodeURIComponent(value)}`);
      assert.equal(requests.status, 400, `requests maxResults=${value}`);
    }
    for (const value of ['0x10', '1e2', ' 10 ', '+5', '-1', 'Infinity']) {
      const res = await svc.call('POST', `/v1/resources/${W}?wait=${encodeURIComponent(value)}`, {
        desiredState: { Name: 'never' },
      });
      assert.equal(res.status, 400, `wait=${value}`);
      assert.match(res.body.message, /wait/);
    }
    assert.equal((await svc.call('GET', `/v1/resources/${W}/never`)).status, 404);
    assert.equal((await svc.call('GET', `/v1/resources/${W}?maxResults=10`)).status, 200);
    const ok = await svc.call('POST', `/v1/resources/${W}?wait=2.5`, { desiredState: { Name: 'w1' } });
    assert.equal(ok.body.progressEvent.operationStatus, 'SUCCESS');
  });

  it("the client's x-request-id is echoed only when it is a bounded plain token", async () => {
    const echo = async (id: string) => {
      const res = await fetch(`${svc.url}/v1/types`, {
        headers: { authorization: `Bearer ${svc.token}`, 'x-request-id': id },
      });
      await res.arrayBuffer();
      return res.headers.get('x-request-id')!;
    };
    assert.equal(await echo('trace-0123456789abcdef'), 'trace-0123456789abcdef');
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const hostile of ['a'.repeat(129), 'x y', 'forged"} {"level":60', 'a\tb', '<script>']) {
      const got = await echo(hostile);
      assert.notEqual(got, hostile);
      assert.match(got, uuid);
    }
  });
});

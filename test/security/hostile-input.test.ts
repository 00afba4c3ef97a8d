import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { ERROR_CODES } from '../../src/errors.js';
import { MAX_BODY_DEPTH } from '../../src/http/body.js';
import { MAX_PARAM_LENGTH } from '../../src/http/errors.js';
import { MAX_PATCH_OPERATIONS } from '../../src/model/patch.js';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const T = encodeURIComponent(WIDGET_TYPE);

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const created = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'base' } });
  assert.equal((await settle(svc, created.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
});
after(() => svc.close());

/** The contract's error shape with a documented code. */
function assertRefused(res: { status: number; body: any }, status: number, message?: RegExp): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.ok(Object.hasOwn(ERROR_CODES, res.body?.errorCode), `documented code: ${JSON.stringify(res.body)}`);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(Array.isArray(res.body.details));
  if (message) assert.match(res.body.message, message);
}

const nestedArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

test('bodies nested deeper than the limit are InvalidRequest on every route that reads a body', async () => {
  const deep = nestedObject(100_000);
  const bodies: [string, string, string][] = [
    ['POST', `/v1/resources/${T}`, `{"desiredState":{"Name":"d1","Labels":${nestedArray(200_000)}}}`],
    ['POST', `/v1/resources/${T}`, `{"desiredState":${deep}}`],
    ['POST', `/v1/resources/${T}`, `{"desiredState":{"Name":"d2"},"extra":${deep}}`],
    ['PUT', `/v1/resources/${T}/base`, `{"desiredState":${deep}}`],
    ['PATCH', `/v1/resources/${T}/base`, `{"patchDocument":[{"op":"add","path":"/Color","value":${deep}}]}`],
    ['PATCH', `/v1/resources/${T}/base`, `{"patchDocument":${nestedArray(100_000)}}`],
    ['DELETE', `/v1/resources/${T}/base`, nestedArray(100_000)],
    ['POST', `/v1/requests/nope/cancel`, deep],
  ];
  for (const [method, path, body] of bodies) {
    const res = await svc.call(method, path, body);
    assertRefused(res, 400, new RegExp(`nested more than ${MAX_BODY_DEPTH} levels`));
  }
  // At the limit the body is read and judged on its content.
  const atLimit = `{"desiredState":{"Name":"d3","Color":${nestedObject(MAX_BODY_DEPTH - 2)}}}`;
  assertRefused(await svc.call('POST', `/v1/resources/${T}`, atLimit), 400, /must be string/);
  assert.equal((await svc.call('GET', `/v1/resources/${T}/base`)).status, 200);
});

test('__proto__ and constructor.prototype keys are refused and reach no prototype', async () => {
  const bodies = [
    '{"desiredState":{"Name":"p1","__proto__":{"polluted":1}}}',
    '{"__proto__":{"polluted":1},"desiredState":{"Name":"p2"}}',
    '{"desiredState":{"Name":"p3","Labels":[{"__proto__":{"polluted":1}}]}}',
    '{"desiredState":{"Name":"p4","constructor":{"prototype":{"polluted":1}}}}',
    '{"desiredState":{"Name":"p5","\\u005f_proto__":{"polluted":1}}}',
  ];
  for (const body of bodies) {
    assertRefused(await svc.call('POST', `/v1/resources/${T}`, body), 400, /__proto__/);
  }
  const patches = [
    [{ op: 'add', path: '/__proto__/polluted', value: 1 }],
    [{ op: 'add', path: '/constructor/prototype/polluted', value: 1 }],
    [{ op: 'add', path: '/Labels/__proto__', value: 'x' }],
    [{ op: 'copy', from: '/__proto__', path: '/Color' }],
    [{ op: 'move', from: '/Labels/constructor', path: '/Color' }],
  ];
  for (const patchDocument of patches) {
    assertRefused(await svc.call('PATCH', `/v1/resources/${T}/base`, { patchDocument }), 400);
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
});

test('patches over the operation limit, on "-" and on missing paths are InvalidRequest', async () => {
  const many = Array.from({ length: MAX_PATCH_OPERATIONS + 1 }, () => ({
    op: 'replace',
    path: '/Color',
    value: 'x',
  }));
  assertRefused(
    await svc.call('PATCH', `/v1/resources/${T}/base`, { patchDocument: many }),
    400,
    new RegExp(`at most ${MAX_PATCH_OPERATIONS}`),
  );
  for (const patchDocument of [
    [{ op: 'remove', path: '/Labels/-' }],
    [{ op: 'replace', path: '/Labels/-', value: 'x' }],
    [{ op: 'add', path: '/Nope', value: 1 }],
    [{ op: 'test', path: '/Color', value: 'never' }],
    [{ op: 'add', path: '', value: {} }],
    [{ op: 'add', path: 'Color', value: 'x' }],
    [{ op: 'frobnicate', path: '/Color' }],
    'not a list',
  ]) {
    assertRefused(await svc.call('PATCH', `/v1/resources/${T}/base`, { patchDocument }), 400);
  }
  assert.equal((await svc.call('GET', `/v1/resources/${T}/base`)).body.properties.Name, 'base');
});

test('malformed and wrong-type bodies are InvalidRequest in the one error shape', async () => {
  assertRefused(await svc.call('POST', `/v1/resources/${T}`, '{"desiredState":'), 400, /not valid JSON/);
  assertRefused(await svc.call('POST', `/v1/resources/${T}`, '[1,2]'), 400);
  assertRefused(await svc.call('POST', `/v1/resources/${T}`, '"text"'), 400);
  assertRefused(await svc.call('POST', `/v1/resources/${T}`, ' '), 400, /empty/);
  assertRefused(
    await svc.call('POST', `/v1/resources/${T}`, '\u0000\u0001', {
      'content-type': 'application/octet-stream',
    }),
    415,
  );
  assertRefused(await svc.call('POST', `/v1/resources/${T}`, 'x'.repeat(1024 * 1024 + 1)), 413);
});

test('bad query strings are InvalidRequest, never a 500', async () => {
  const forged = Buffer.from(JSON.stringify({ resources: 5 })).toString('base64url');
  const otherKind = Buffer.from(JSON.stringify({ operations: 1 })).toString('base64url');
  for (const query of [
    'maxResults=0',
    'maxResults=1001',
    'maxResults=-1',
    'maxResults=1.5',
    'maxResults=abc',
    'maxResults=1e400',
    'maxResults=1&maxResults=2',
    'nextToken=a&nextToken=b',
    'nextToken=%00',
    'nextToken=!!!',
    `nextToken=${forged}`,
    `nextToken=${otherKind}`,
    `nextToken=${'A'.repeat(5000)}`,
  ]) {
    assertRefused(await svc.call('GET', `/v1/resources/${T}?${query}`), 400);
  }
  for (const query of ['status=DONE', 'operation=EXPLODE', 'maxResults=0', `nextToken=${forged}`]) {
    assertRefused(await svc.call('GET', `/v1/requests?${query}`), 400);
  }
  for (const wait of ['-1', '301', 'abc', 'Infinity']) {
    assertRefused(
      await svc.call('POST', `/v1/resources/${T}?wait=${wait}`, { desiredState: { Name: 'w1' } }),
      400,
      /wait/,
    );
  }
});

test('odd paths: bad percent-encoding, NUL, "|", long segments and huge headers get contract answers', async () => {
  for (const path of ['/v1/types/%ff', '/v1/types/%', `/v1/resources/${T}/%E0%A4%A`, '/v1/requests/%c0%af']) {
    assertRefused(await svc.call('GET', path), 400, /not valid/);
  }
  for (const path of [
    `/v1/resources/${T}/a%7Cb%7Cc`,
    `/v1/resources/${T}/${'%F0%9F%92%A9'.repeat(50)}`,
    `/v1/resources/Test%3A%3AShop%3A%3AWidget%2F..%2F..`,
    '/v1/requests/%7C',
  ]) {
    assertRefused(await svc.call('GET', path), 404);
  }
  // No name, identifier or token holds U+0000: refused on every route, whatever the store.
  for (const [method, path] of [
    ['GET', `/v1/resources/${T}/%00`],
    ['DELETE', `/v1/resources/${T}/a%00b`],
    ['PATCH', `/v1/resources/${T}/%00`],
    ['GET', '/v1/types/%00%01'],
    ['GET', `/v1/resources/${T}%00`],
    ['GET', '/v1/requests/%00'],
    ['POST', '/v1/requests/x%00/cancel'],
    ['DELETE', '/v1/tokens/%00'],
  ] as const) {
    assertRefused(
      await svc.call(method, path, method === 'PATCH' ? { patchDocument: [] } : undefined),
      400,
      /U\+0000/,
    );
  }
  // A long identifier (an ARN, say) is looked up; one past the limit is refused.
  assertRefused(await svc.call('GET', `/v1/resources/${T}/${'a'.repeat(2000)}`), 404);
  assertRefused(
    await svc.call('GET', `/v1/resources/${T}/${'a'.repeat(MAX_PARAM_LENGTH + 1)}`),
    414,
    /longer than/,
  );
  assertRefused(await svc.call('GET', `/v1/resources/${T}/${'a'.repeat(20_000)}`), 431);
  assertRefused(await svc.call('GET', '/v1/types', undefined, { 'x-padding': 'p'.repeat(20_000) }), 431);
  // The server still answers afterwards.
  assert.equal((await svc.call('GET', '/healthz')).status, 200);
});

test('a YAML type document: alias bombs, deep nesting and __proto__ keys are refused', async () => {
  const yaml = (text: string) => svc.call('POST', '/v1/types', text, { 'content-type': 'application/yaml' });
  const lol = [
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...Array.from({ length: 9 }, (_, i) => {
      const prev = String.fromCharCode(97 + i);
      const name = String.fromCharCode(98 + i);
      return `${name}: &${name} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`;
    }),
  ].join('\n');
  assertRefused(await yaml(lol), 400);
  assertRefused(await yaml(`x: ${'['.repeat(10_000)}${']'.repeat(10_000)}`), 400, /nested more than/);
  assertRefused(await yaml('__proto__:\n  polluted: 1\ntypes: {}\n'), 400);
  const schema = JSON.parse(WIDGET) as Record<string, any>;
  schema.typeName = 'Test::Shop::Proto';
  schema.properties.Name = { type: 'string' };
  const text = JSON.stringify(schema).replace(
    '"Name":{"type":"string"}',
    '"Name":{"type":"string","__proto__":{"polluted":1}}',
  );
  // As a keyword it is unknown to the meta-schema.
  assertRefused(await svc.call('POST', '/v1/types', text), 400, /__proto__/);
  // As a property name it is not a valid name, in JSON and in YAML.
  const asProperty = JSON.stringify(schema).replace(
    '"Name":{"type":"string"}',
    '"Name":{"type":"string"},"__proto__":{"type":"string","default":"polluted"}',
  );
  assertRefused(await svc.call('POST', '/v1/types', asProperty), 400, /name '__proto__' is not allowed/);
  const yamlSchema = [
    'typeName: Test::Shop::Proto',
    'description: A type whose property would reach a prototype.',
    'properties:',
    '  Name: {type: string}',
    '  __proto__: {type: string, default: polluted}',
    'primaryIdentifier: [/properties/Name]',
    'additionalProperties: false',
  ].join('\n');
  assertRefused(await yaml(yamlSchema), 400, /name '__proto__' is not allowed/);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

/** What the server writes back to `request` on a fresh connection, until it closes it. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

test('requests the HTTP parser refuses get the error shape, and a HEAD gets no body', async () => {
  const padding = `x-padding: ${'p'.repeat(20_000)}\r\n`;
  const get = await rawExchange(svc.url, `GET /v1/types HTTP/1.1\r\nhost: x\r\n${padding}\r\n`);
  assert.match(get, /^HTTP\/1.1 431 /);
  assert.match(get, /connection: close/i);
  const body = JSON.parse(get.slice(get.indexOf('\r\n\r\n') + 4));
  assert.equal(body.errorCode, 'InvalidRequest');
  assert.match(body.message, /larger than/);
  const head = await rawExchange(svc.url, `HEAD /v1/types HTTP/1.1\r\nhost: x\r\n${padding}\r\n`);
  assert.match(head, /^HTTP\/1.1 431 /);
  assert.ok(head.endsWith('\r\n\r\n'), `no body after the headers: ${head.slice(-80)}`);
  const garbage = await rawExchange(svc.url, 'NOT HTTP AT ALL\r\n\r\n');
  assert.match(garbage, /^HTTP\/1.1 400 /);
  assert.equal(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4)).errorCode, 'InvalidRequest');
});

/**
 * The HTTP client for out-of-process providers, against small servers on loopback: what it sends,
 * how it passes answers through, and how each way a call can go wrong becomes a contract code.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import { ERROR_CODES } from '../../src/errors.js';
import { createRemoteProvider, type RemoteProviderOptions } from '../../src/providers/remote/index.js';
import type { HandlerRequest } from '../../src/handler/types.js';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';

const schema = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../docs/provider-protocol/${file}`, import.meta.url), 'utf8'));
const validateRequest = new Ajv({ allErrors: true }).compile(schema('handler-request.schema.json'));

interface Stub {
  url: string;
  port: number;
  /** Request bodies, parsed, in arrival order. */
  bodies: any[];
  headers: http.IncomingHttpHeaders[];
  connections: number;
  /** Requests whose connection closed before an answer was sent. */
  abandoned: number;
  close(): Promise<void>;
}

type Answer = (body: any, res: http.ServerResponse, req: http.IncomingMessage, n: number) => void;

const stubs: Stub[] = [];
const services: TestService[] = [];
after(async () => {
  await Promise.all(services.map((s) => s.close()));
  await Promise.all(stubs.map((s) => s.close()));
});

/** A provider stand-in: `answer` decides what each request gets. */
async function stub(answer: Answer, port = 0): Promise<Stub> {
  const server = http.createServer();
  const state: Stub = {
    url: '',
    port: 0,
    bodies: [],
    headers: [],
    connections: 0,
    abandoned: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => state.connections++);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const n = state.bodies.push(body);
      state.headers.push(req.headers);
      res.on('close', () => {
        if (!res.writableFinished) state.abandoned++;
      });
      answer(body, res, req, n);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}/handler`;
  stubs.push(state);
  return state;
}

const json =
  (value: unknown, status = 200): Answer =>
  (_body, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof value === 'string' ? value : JSON.stringify(value));
  };

/** A port nothing listens on (it was free a moment ago). */
async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
const logger = {
  debug() {},
  info() {},
  warn(message: string, fields?: Record<string, unknown>) {
    warnings.push({ message, ...(fields ? { fields } : {}) });
  },
  error() {},
};

function request(overrides: Partial<HandlerRequest> = {}): HandlerRequest {
  return {
    typeName: 'Test::Remote::Thing',
    desiredState: { Name: 'a', Secret: 'hush' },
    clientRequestToken: 'token-1',
    logger,
    signal: new AbortController().signal,
    ...overrides,
  };
}

function provider(url: string, options: Partial<RemoteProviderOptions> = {}) {
  return createRemoteProvider({
    name: 'stubby',
    url,
    types: ['Test::Remote::Thing'],
    retryDelayMs: 10,
    ...options,
  });
}

test('SUCCESS, IN_PROGRESS, FAILED and list answers pass through; null fields count as absent', async () => {
  const answers = [
    { status: 'SUCCESS', resourceModel: { Name: 'a', Size: 'S' }, message: 'made', errorCode: null },
    { status: 'IN_PROGRESS', callbackContext: { step: 2 }, callbackDelaySeconds: 1.5, resourceModel: null },
    { status: 'IN_PROGRESS' },
    { status: 'FAILED', errorCode: 'AlreadyExists', message: 'a exists' },
    { status: 'SUCCESS', resourceModels: [{ Name: 'a' }, { Name: 'b' }], nextToken: 'page-2' },
    { status: 'SUCCESS', resourceModels: [] },
    { status: 'SUCCESS', resourceModel: { Name: 'a' } },
  ];
  const s = await stub((body, res, req, n) => json(answers[n - 1])(body, res, req, n));
  const p = provider(s.url);
  assert.deepEqual(await p.create(request()), {
    status: 'SUCCESS',
    resourceModel: { Name: 'a', Size: 'S' },
    message: 'made',
  });
  assert.deepEqual(await p.create(request()), {
    status: 'IN_PROGRESS',
    callbackContext: { step: 2 },
    callbackDelaySeconds: 1.5,
  });
  assert.deepEqual(await p.update(request()), {
    status: 'IN_PROGRESS',
    callbackContext: {},
    callbackDelaySeconds: 0,
  });
  assert.deepEqual(await p.create(request()), {
    status: 'FAILED',
    errorCode: 'AlreadyExists',
    message: 'a exists',
  });
  assert.deepEqual(await p.list(request({ desiredState: {} })), {
    status: 'SUCCESS',
    resourceModels: [{ Name: 'a' }, { Name: 'b' }],
    nextToken: 'page-2',
  });
  assert.deepEqual(await p.list(request({ desiredState: {} })), {
    status: 'SUCCESS',
    resourceModels: [],
    nextToken: null,
  });
  assert.deepEqual(
    await p.delete(request()),
    { status: 'SUCCESS', resourceModel: { Name: 'a' } },
    'a model on a successful delete is passed on as answered (for the contract suite to judge)',
  );
  await p.close?.();
});

test('requests carry every field of the protocol and validate against the documented schema', async () => {
  const s = await stub(json({ status: 'SUCCESS', resourceModel: { Name: 'a' }, resourceModels: [] }));
  const p = provider(s.url, { headers: { authorization: 'Bearer xyz' } });
  await p.create(request());
  await p.create(request({ callbackContext: { step: 1 } }));
  await p.read(request());
  await p.update(request({ previousState: { Name: 'a', Size: 'S' } }));
  await p.delete(request());
  await p.list(request({ desiredState: {}, nextToken: 'n1', maxResults: 5 }));
  await p.list(request({ desiredState: {} }));
  for (const body of s.bodies)
    assert.ok(validateRequest(body), `${JSON.stringify(body)}: ${JSON.stringify(validateRequest.errors)}`);
  assert.deepEqual(s.bodies[0], {
    action: 'CREATE',
    typeName: 'Test::Remote::Thing',
    requestData: { resourceProperties: { Name: 'a', Secret: 'hush' }, previousResourceProperties: null },
    callbackContext: null,
    clientRequestToken: 'token-1',
    nextToken: null,
    maxResults: null,
  });
  assert.deepEqual(s.bodies[1].callbackContext, { step: 1 });
  assert.deepEqual(
    s.bodies.map((b) => b.action),
    ['CREATE', 'CREATE', 'READ', 'UPDATE', 'DELETE', 'LIST', 'LIST'],
  );
  assert.deepEqual(s.bodies[3].requestData.previousResourceProperties, { Name: 'a', Size: 'S' });
  assert.equal(s.bodies[5].nextToken, 'n1');
  assert.equal(s.bodies[5].maxResults, 5);
  assert.equal(s.headers[0]!['content-type'], 'application/json');
  assert.equal(s.headers[0]!['typeplane-protocol-version'], '1');
  assert.equal(s.headers[0]!.authorization, 'Bearer xyz');
  assert.equal(s.connections, 1, 'one keep-alive connection serves every call');
  await p.close?.();
});

test('the documented schemas are valid draft-07, and the error codes are the contract catalogue', () => {
  const ajv = new Ajv({ allErrors: true });
  const event = schema('progress-event.schema.json');
  assert.doesNotThrow(() => ajv.compile(event));
  assert.deepEqual(
    event.properties.errorCode.enum.filter((c: unknown) => c !== null).sort(),
    Object.keys(ERROR_CODES).sort(),
  );
  assert.equal(validateRequest({ action: 'READ' }), false, 'the request schema is not vacuous');
});

test('what the engine makes the client send, through a real server, validates against the schema', async () => {
  const models = new Map<string, Record<string, unknown>>();
  const s = await stub((body, res) => {
    const props = body.requestData.resourceProperties;
    const answer = (v: unknown) => json(v)(body, res, undefined as never, 0);
    switch (body.action) {
      case 'CREATE':
        if (!body.callbackContext)
          return answer({
            status: 'IN_PROGRESS',
            callbackContext: { step: 'made' },
            callbackDelaySeconds: 0,
          });
        models.set(props.Name, { ...props, Id: 'id-1' });
        return answer({ status: 'SUCCESS', resourceModel: models.get(props.Name) });
      case 'READ':
        return answer({ status: 'SUCCESS', resourceModel: models.get(props.Name) });
      case 'UPDATE':
        models.set(props.Name, props);
        return answer({ status: 'SUCCESS', resourceModel: props });
      case 'DELETE':
        models.delete(props.Name);
        return answer({ status: 'SUCCESS' });
      default:
        return answer({ status: 'FAILED', errorCode: 'InvalidRequest', message: 'unexpected' });
    }
  });
  const remote = provider(s.url);
  const svc = await startTestService({ providers: new Map([[WIDGET_TYPE, remote]]) });
  services.push(svc);
  const T = encodeURIComponent(WIDGET_TYPE);
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const created = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'w1', Secret: 'hush' },
  });
  assert.equal((await settle(svc, created.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  assert.equal((await svc.call('GET', `/v1/resources/${T}/w1`)).body.properties.Id, 'id-1');
  const patched = await svc.call('PATCH', `/v1/resources/${T}/w1`, {
    patchDocument: [{ op: 'add', path: '/Color', value: 'red' }],
  });
  assert.equal((await settle(svc, patched.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const deleted = await svc.call('DELETE', `/v1/resources/${T}/w1`);
  assert.equal((await settle(svc, deleted.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  assert.deepEqual(
    s.bodies.map((b) => b.action),
    ['CREATE', 'CREATE', 'READ', 'UPDATE', 'DELETE'],
  );
  for (const body of s.bodies)
    assert.ok(validateRequest(body), `${JSON.stringify(body)}: ${JSON.stringify(validateRequest.errors)}`);
  assert.equal(
    s.bodies[0].requestData.resourceProperties.Secret,
    'hush',
    'write-only values reach the provider',
  );
  assert.equal(s.bodies[1].clientRequestToken, s.bodies[0].clientRequestToken, 'same token on the callback');
  assert.deepEqual(s.bodies[1].callbackContext, { step: 'made' });
  assert.equal(s.bodies[3].requestData.previousResourceProperties.Color, undefined);
  assert.equal(s.bodies[3].requestData.resourceProperties.Color, 'red');
});

test('a refused connection is NetworkFailure, after retries (nothing was delivered, so even CREATE retries)', async () => {
  const url = `http://127.0.0.1:${await freePort()}/`;
  const p = provider(url, { retries: 2 });
  for (const call of [() => p.read(request()), () => p.create(request())]) {
    warnings.length = 0;
    const event = await call();
    assert.equal(event.status, 'FAILED');
    assert.equal(event.errorCode, 'NetworkFailure');
    assert.match(
      event.message!,
      /provider stubby could not be reached at http:\/\/127\.0\.0\.1:\d+\/ .*ECONNREFUSED/,
    );
    assert.match(event.message!, /after 3 attempts/);
    assert.equal(warnings.length, 2, 'each retry is logged');
    assert.ok(!JSON.stringify(warnings).includes('hush'), 'logs carry no request data');
  }
});

test('a provider named by its URL is not named twice in a message', async () => {
  const url = `http://127.0.0.1:${await freePort()}/`;
  const event = await provider(url, { name: url, retries: 0 }).read(request());
  assert.equal(event.errorCode, 'NetworkFailure');
  assert.match(event.message!, /^the provider could not be reached at http:\/\/127\.0\.0\.1:\d+\/ for READ/);
  assert.equal(event.message!.split(url).length, 2, `the URL once: ${event.message}`);
});

test('READ is retried after a refused connection until the provider is up', async () => {
  const port = await freePort();
  const p = provider(`http://127.0.0.1:${port}/`, { retries: 8, retryDelayMs: 40 });
  const pending = p.read(request());
  await new Promise((r) => setTimeout(r, 100));
  const s = await stub(json({ status: 'SUCCESS', resourceModel: { Name: 'a' } }), port);
  assert.deepEqual(await pending, { status: 'SUCCESS', resourceModel: { Name: 'a' } });
  assert.equal(s.bodies.length, 1);
});

test('a connection reset after the request was delivered: READ is retried, CREATE is not', async () => {
  const s = await stub((_body, res, req, n) => {
    if (n === 1 || n >= 3) req.socket.destroy();
    else json({ status: 'SUCCESS', resourceModel: { Name: 'a' } })(_body, res, req, n);
  });
  const p = provider(s.url, { retries: 2 });
  assert.deepEqual(await p.read(request()), { status: 'SUCCESS', resourceModel: { Name: 'a' } });
  assert.equal(s.bodies.length, 2, 'the READ was sent again once');
  const event = await p.create(request());
  assert.equal(event.errorCode, 'NetworkFailure');
  assert.match(event.message!, /stubby lost the connection .* during CREATE: .*not sent again/);
  assert.equal(s.bodies.length, 3, 'the CREATE was sent once');
  const update = await p.update(request());
  assert.equal(update.errorCode, 'NetworkFailure');
  assert.equal(s.bodies.length, 4, 'the UPDATE was sent once');
  const read = await p.read(request());
  assert.equal(read.errorCode, 'NetworkFailure');
  assert.match(read.message!, /after 3 attempts/);
  assert.equal(s.bodies.length, 7);
});

test('no answer within timeoutMs: READ is retried then NetworkFailure; CREATE is HandlerInternalFailure, sent once', async () => {
  const s = await stub(() => undefined); // never answers
  const p = provider(s.url, { timeoutMs: 150, retries: 1 });
  const read = await p.read(request());
  assert.equal(read.errorCode, 'NetworkFailure');
  assert.match(read.message!, /did not answer READ .* within 150 ms .*after 2 attempts/);
  assert.equal(s.bodies.length, 2);
  const create = await p.create(request());
  assert.equal(create.errorCode, 'HandlerInternalFailure');
  assert.match(create.message!, /stubby did not answer CREATE .*within 150 ms; not sent again/);
  assert.equal(s.bodies.length, 3);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(s.abandoned, 3, 'timed-out exchanges are closed, not left hanging');
});

test('HTTP errors are HandlerInternalFailure; READ retries 5xx but not 4xx; CREATE retries nothing', async () => {
  const s = await stub((body, res, req, n) => json('<h1>oops</h1>', n <= 2 ? 503 : 404)(body, res, req, n));
  const p = provider(s.url, { retries: 1 });
  const read = await p.read(request());
  assert.equal(read.errorCode, 'HandlerInternalFailure');
  assert.match(read.message!, /provider stubby answered READ with HTTP 503 \(application\/json, 13 bytes\)/);
  assert.equal(s.bodies.length, 2);
  const notFound = await p.read(request());
  assert.match(notFound.message!, /HTTP 404/);
  assert.equal(s.bodies.length, 3, 'a 4xx is not retried');
  assert.ok(!notFound.message!.includes('oops'), 'the body of an error answer is not passed on');
  const create = await p.create(request());
  assert.equal(create.errorCode, 'HandlerInternalFailure');
  assert.equal(s.bodies.length, 4);
});

test('answers that are not JSON, or not ProgressEvents, are HandlerInternalFailure naming the provider', async () => {
  const cases: [unknown, RegExp, 'create' | 'read' | 'list'][] = [
    ['<html>hello</html>', /answered CREATE with an answer that is not JSON \(18 bytes\)/, 'create'],
    ['', /not JSON \(0 bytes\)/, 'create'],
    [[{ status: 'SUCCESS' }], /not a ProgressEvent: \/ must be object/, 'create'],
    [{ status: 'DONE' }, /\/status must be one of SUCCESS, FAILED, IN_PROGRESS/, 'create'],
    [{ status: 'FAILED' }, /must have required property 'errorCode'/, 'create'],
    [{ status: 'FAILED', errorCode: 'Oops' }, /\/errorCode must be one of/, 'create'],
    [{ status: 'SUCCESS', resourcemodel: {} }, /unknown field "resourcemodel"/, 'create'],
    [{ status: 'IN_PROGRESS', callbackDelaySeconds: -1 }, /\/callbackDelaySeconds must be >= 0/, 'create'],
    [{ status: 'IN_PROGRESS', callbackContext: [] }, /\/callbackContext must be object,null/, 'create'],
    [{ status: 'SUCCESS', resourceModel: 'a' }, /\/resourceModel must be object,null/, 'create'],
    [{ status: 'IN_PROGRESS', callbackContext: {} }, /IN_PROGRESS to READ/, 'read'],
    [{ status: 'IN_PROGRESS', callbackContext: {} }, /IN_PROGRESS to LIST/, 'list'],
    [{ status: 'SUCCESS', resourceModel: {} }, /SUCCESS to LIST without resourceModels/, 'list'],
  ];
  const s = await stub((body, res, req, n) => json(cases[n - 1]![0])(body, res, req, n));
  const p = provider(s.url);
  for (const [answer, message, action] of cases) {
    const event = await p[action](request());
    assert.equal(event.status, 'FAILED', JSON.stringify(answer));
    assert.equal(event.errorCode, 'HandlerInternalFailure', JSON.stringify(answer));
    assert.match(event.message!, /^provider stubby /);
    assert.match(event.message!, message);
  }
  assert.equal(s.bodies.length, cases.length, 'malformed answers are not retried');
});

test('oversized answers are HandlerInternalFailure, by Content-Length or by what arrives', async () => {
  const big = Buffer.alloc(6 * 1024 * 1024, 'a');
  const s = await stub((_body, res, _req, n) => {
    if (n === 1) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(big.length) });
      res.end(big);
    } else {
      // No Content-Length: chunked, so only counting tells.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":"SUCCESS","message":"');
      res.write(Buffer.alloc(4000, 'a'));
      res.end('"}');
    }
  });
  const declared = await provider(s.url).read(request());
  assert.equal(declared.errorCode, 'HandlerInternalFailure');
  assert.match(declared.message!, /answered READ with more than 5242880 bytes/);
  const streamed = await provider(s.url, { maxResponseBytes: 1000 }).read(request());
  assert.equal(streamed.errorCode, 'HandlerInternalFailure');
  assert.match(streamed.message!, /more than 1000 bytes/);
  assert.equal(s.bodies.length, 2, 'not retried');
});

test('the caller aborting stops the call at once, during a call or between retries', async () => {
  const s = await stub(() => undefined); // never answers
  const p = provider(s.url, { timeoutMs: 10_000 });
  const abort = new AbortController();
  const started = Date.now();
  setTimeout(() => abort.abort(new Error('operation cancelled')), 50);
  const event = await p.create(request({ signal: abort.signal }));
  assert.ok(Date.now() - started < 1000, 'did not wait for the timeout');
  assert.equal(event.status, 'FAILED');
  assert.equal(event.errorCode, 'NotStabilized');
  assert.match(event.message!, /stubby was stopped during CREATE: operation cancelled/);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(s.abandoned, 1, 'the connection was closed');

  const already = AbortSignal.abort(new Error('too late'));
  assert.equal((await p.read(request({ signal: already }))).errorCode, 'NotStabilized');
  assert.equal(s.bodies.length, 1, 'nothing sent once aborted');

  const refused = provider(`http://127.0.0.1:${await freePort()}/`, { retryDelayMs: 10_000 });
  const between = new AbortController();
  const t0 = Date.now();
  setTimeout(() => between.abort(new Error('time is up')), 100);
  const backoff = await refused.read(request({ signal: between.signal }));
  assert.ok(Date.now() - t0 < 2000, 'the backoff wait was cut short');
  assert.equal(backoff.errorCode, 'NotStabilized');
  assert.match(backoff.message!, /time is up/);
});

test('options are checked when the provider is made; a closed provider answers FAILED instead of throwing', async () => {
  const base = { name: 'x', url: 'http://127.0.0.1:1/', types: ['A::B::C'] };
  assert.throws(() => createRemoteProvider({ ...base, url: 'ftp://x/' }), /http: or https:/);
  assert.throws(() => createRemoteProvider({ ...base, url: 'not a url' }), /absolute http\(s\) URL/);
  assert.throws(() => createRemoteProvider({ ...base, retries: -1 }), /retries/);
  assert.throws(() => createRemoteProvider({ ...base, timeoutMs: 0 }), /timeoutMs/);
  assert.throws(() => createRemoteProvider({ ...base, types: [] }), /types/);
  const p = createRemoteProvider({ ...base, url: 'http://user:pw@127.0.0.1:1/x?y=1', retries: 0 });
  assert.equal(p.name, 'x');
  assert.deepEqual(p.types, ['A::B::C']);
  const refused = await p.read(request());
  assert.ok(!refused.message!.includes('pw'), 'credentials in the URL are not shown');
  await p.close?.();
  assert.deepEqual(await p.read(request()), {
    status: 'FAILED',
    errorCode: 'InternalFailure',
    message: 'provider x is closed',
  });
});

/**
 * The Cloud Control front door on the server's HTTP port: a body arriving in pieces, or before its
 * caller's key is known, is read whole; a body past the limit, streamed without a declared length, is
 * cut off; a stranger is answered from the headers before a byte of body is read; answers carry request ids; each request is logged as the /v1 API logs its own, and no log line
 * holds a signature or a secret.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { issueKeys, signedHeaders, type AccessKeysOut } from '../helpers/cloudcontrol.js';
import { WIDGET, WIDGET_TYPE, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let keys: AccessKeysOut;
const logLines: string[] = [];

before(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  svc = await startTestService({ logger: pino({ level: 'info' }, sink) });
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  keys = await issueKeys(svc, 'writer');
});
after(() => svc.close());

/** Everything the server sends on a raw connection until it closes it (or `ms` pass). */
function readAll(socket: Socket, ms = 10_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, ms);
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

function rawRequest(headers: Record<string, string>): string {
  return `POST / HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
}

test('a body streamed past the limit without a declared length is cut off with 413, the server unharmed', async () => {
  const url = new URL(svc.url);
  const socket = connect(Number(url.port), url.hostname);
  const answer = readAll(socket);
  const body = JSON.stringify({ TypeName: WIDGET_TYPE, DesiredState: 'x'.repeat(1_200_000) });
  socket.write(
    rawRequest({
      ...signedHeaders({ keys, url: svc.url, operation: 'CreateResource', body }),
      'transfer-encoding': 'chunked',
    }),
  );
  for (let at = 0; at < body.length && !socket.destroyed; at += 64 * 1024) {
    const chunk = body.slice(at, at + 64 * 1024);
    socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  }
  const { text, closed } = await answer;
  assert.match(text, /^HTTP\/1\.1 413 /);
  assert.match(text, /\r\nconnection: close\r\n/i);
  assert.match(text, /"__type":"RequestEntityTooLargeException"/);
  assert.ok(closed, 'the server closes a connection whose body it did not read');
  assert.equal((await fetch(`${svc.url}/healthz`)).status, 200);
});

/** The first answer on a raw connection, once its declared body has arrived whole. */
function firstAnswer(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString();
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text);
      if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) resolve(text);
    });
    socket.on('error', reject);
  });
}

test('a body that arrives in pieces is read whole, with a declared length or chunked, and the connection serves the next request', async () => {
  const url = new URL(svc.url);
  const body = JSON.stringify({ TypeName: WIDGET_TYPE, MaxResults: 5 });
  const pieces = [body.slice(0, 7), body.slice(7, 20), body.slice(20)];
  const pause = () => new Promise((r) => setTimeout(r, 30));
  for (const framing of ['length', 'chunked'] as const) {
    const socket = connect(Number(url.port), url.hostname);
    for (let round = 1; round <= 2; round++) {
      const answer = firstAnswer(socket);
      const headers = signedHeaders({ keys, url: svc.url, operation: 'ListResources', body });
      socket.write(
        rawRequest(
          framing === 'length'
            ? { ...headers, 'content-length': String(Buffer.byteLength(body)) }
            : { ...headers, 'transfer-encoding': 'chunked' },
        ),
      );
      for (const piece of pieces) {
        await pause();
        socket.write(framing === 'length' ? piece : `${piece.length.toString(16)}\r\n${piece}\r\n`);
      }
      if (framing === 'chunked') socket.write('0\r\n\r\n');
      const text = await answer;
      assert.match(text, /^HTTP\/1\.1 200 /, `${framing}, request ${round}: ${text.slice(0, 300)}`);
      assert.ok(text.includes(`"TypeName":"${WIDGET_TYPE}"`), text);
    }
    socket.destroy();
  }
});

test("a body is read whole whether it arrives before the caller's key has been looked up or after", async () => {
  const url = new URL(svc.url);
  const body = JSON.stringify({ TypeName: WIDGET_TYPE, MaxResults: 3 });
  for (const early of [true, false]) {
    // Keys of their own: not yet seen by the server, so the first request waits for their lookup.
    const fresh = await issueKeys(svc, 'reader');
    const socket = connect(Number(url.port), url.hostname);
    const answer = firstAnswer(socket);
    const head = rawRequest({
      ...signedHeaders({ keys: fresh, url: svc.url, operation: 'ListResources', body }),
      'content-length': String(Buffer.byteLength(body)),
    });
    if (early) socket.write(head + body);
    else {
      socket.write(head);
      await new Promise((r) => setTimeout(r, 50));
      socket.write(body);
    }
    const text = await answer;
    assert.match(
      text,
      /^HTTP\/1\.1 200 /,
      `body ${early ? 'with' : 'after'} the headers: ${text.slice(0, 300)}`,
    );
    assert.ok(text.includes(`"TypeName":"${WIDGET_TYPE}"`), text);
    socket.destroy();
  }
});

test('a stranger is answered from the headers alone, before any of the body it announces arrives', async () => {
  const url = new URL(svc.url);
  const socket = connect(Number(url.port), url.hostname);
  let text = '';
  let closed = false;
  socket.on('data', (d: Buffer) => (text += d.toString()));
  socket.on('close', () => (closed = true));
  const body = JSON.stringify({ TypeName: WIDGET_TYPE });
  socket.write(
    rawRequest({
      ...signedHeaders({
        keys: {
          accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
          secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        },
        url: svc.url,
        operation: 'GetResource',
        body,
      }),
      'content-length': '500000',
    }),
  );
  const deadline = Date.now() + 5_000;
  while (!text.endsWith('}') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.match(text, /^HTTP\/1\.1 400 /, 'answered without waiting for the body');
  assert.match(text, /"__type":"UnrecognizedClientException"/);
  // The announced body is read and dropped as it comes (test/http/connection-limits.test.ts): the
  // connection stays open for it rather than being reset under a client still sending.
  assert.equal(closed, false);
  socket.destroy();
});

test("every answer carries its request id: the client's when it is a plain token, else the server's own", async () => {
  const body = JSON.stringify({ TypeName: WIDGET_TYPE });
  const send = (id: string) =>
    fetch(svc.url, {
      method: 'POST',
      headers: {
        ...signedHeaders({ keys, url: svc.url, operation: 'ListResources', body }),
        'x-request-id': id,
      },
      body,
    });
  const kept = await send('trace-0001');
  assert.equal(kept.status, 200);
  assert.equal(kept.headers.get('x-amzn-requestid'), 'trace-0001');
  assert.equal(kept.headers.get('x-request-id'), 'trace-0001');
  const replaced = await send('x'.repeat(200));
  assert.equal(replaced.status, 200);
  assert.match(replaced.headers.get('x-amzn-requestid') ?? '', /^[0-9a-f-]{36}$/);
  assert.equal(replaced.headers.get('x-request-id'), replaced.headers.get('x-amzn-requestid'));
});

test('each request is logged on arriving and on being answered, with its id and status, and no signature or secret', async () => {
  const body = JSON.stringify({ TypeName: WIDGET_TYPE, Identifier: 'nobody-here' });
  const headers = signedHeaders({ keys, url: svc.url, operation: 'GetResource', body });
  const res = await fetch(svc.url, {
    method: 'POST',
    headers: { ...headers, 'x-request-id': 'logged-1' },
    body,
  });
  assert.equal(res.status, 404);
  const mine = logLines.map((l) => JSON.parse(l)).filter((l) => l.reqId === 'logged-1');
  assert.deepEqual(
    mine.map((l) => l.msg),
    ['incoming request', 'request completed'],
  );
  assert.equal(mine[0].req.method, 'POST');
  assert.equal(mine[0].req.url, '/');
  assert.equal(mine[1].res.statusCode, 404);
  assert.equal(typeof mine[1].responseTime, 'number');
  const signature = headers.authorization!.slice(-64);
  for (const line of logLines) {
    assert.ok(!line.includes(signature), 'no log line holds a signature');
    assert.ok(!line.includes(keys.secretAccessKey), 'no log line holds a secret key');
  }
});

test('a request arriving while the server shuts down is refused with 503 ServiceUnavailable', async () => {
  // A server of its own, as this one is closed.
  const closing = await startTestService();
  const url = new URL(closing.url);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  const answer = readAll(socket);
  const body = JSON.stringify({ TypeName: WIDGET_TYPE });
  const request = rawRequest({
    ...signedHeaders({ keys, url: closing.url, operation: 'ListResources', body }),
    'content-length': String(body.length),
  });
  // The request has begun when the shutdown starts; its headers end after.
  socket.write(request.slice(0, 20));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const closed = closing.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.write(request.slice(20) + body);
  const { text } = await answer;
  await closed;
  assert.match(text, /^HTTP\/1\.1 503 /);
  assert.match(text, /"__type":"ServiceUnavailable"/);
});

/**
 * What a connection may cost the server: deadlines for a request's headers and for the whole request
 * (a client that sends a byte now and then holds no connection for long, with a token or without),
 * and a body refused before it is read being read and dropped, so that a client still sending it
 * reads the refusal and keeps its connection instead of meeting a reset. Raw sockets on loopback, so
 * that what each side sends, and when, is the test's.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { defaultMaxConnections, openFileLimit } from '../../src/http/connections.js';
import { signedHeaders } from '../helpers/cloudcontrol.js';
import { spawnServer, startTestService, tempDir, type TestService } from '../helpers/service.js';

const HEADERS_MS = 600;
const REQUEST_MS = 1200;
/** Room for a loaded machine: Node checks deadlines every 100 ms here, and the test's own timers drift. */
const SLACK_MS = 2500;

let svc: TestService;
let port: number;
let keys: { accessKeyId: string; secretAccessKey: string };

before(async () => {
  svc = await startTestService({ connectionLimits: { headersMs: HEADERS_MS, requestMs: REQUEST_MS } });
  port = Number(new URL(svc.url).port);
  const made = await svc.call('POST', '/v1/tokens', { role: 'writer', awsKeys: true });
  assert.equal(made.status, 201);
  keys = { accessKeyId: made.body.accessKeyId, secretAccessKey: made.body.secretAccessKey };
});
after(() => svc.close());

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw connection that reads the HTTP answers coming back, in order, and notes when it closed. */
class Connection {
  readonly socket: Socket;
  private received = Buffer.alloc(0);
  private readonly answers: Answer[] = [];
  private waiting: (() => void) | undefined;
  closedAt: number | undefined;
  readonly openedAt = performance.now();
  writeError: string | undefined;

  constructor(to = port) {
    this.socket = connect(to, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.parse();
      this.waiting?.();
    });
    this.socket.on('error', (e: NodeJS.ErrnoException) => (this.writeError ??= e.code ?? e.message));
    this.socket.on('close', () => {
      this.closedAt = performance.now();
      this.waiting?.();
    });
  }

  private parse(): void {
    for (;;) {
      const end = this.received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (this.received.length < end + 4 + length) return;
      const body = this.received.subarray(end + 4, end + 4 + length).toString('utf8');
      this.received = this.received.subarray(end + 4 + length);
      this.answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
    }
  }

  /** Resolves once `count` answers have arrived, or the connection has closed (fewer then). */
  async answered(count: number, timeoutMs = 10_000): Promise<Answer[]> {
    const deadline = performance.now() + timeoutMs;
    while (this.answers.length < count && this.closedAt === undefined) {
      if (performance.now() > deadline) throw new Error(`no answer ${count} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 50);
      });
    }
    return this.answers.slice();
  }

  /** Resolves once the server has closed the connection; the milliseconds since it was opened. */
  async closed(timeoutMs = 10_000): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    while (this.closedAt === undefined) {
      if (performance.now() > deadline) throw new Error(`still open after ${timeoutMs} ms`);
      await sleep(20);
    }
    return this.closedAt - this.openedAt;
  }

  /** Writes `data` and resolves once the kernel took it (rejects on a reset or a closed peer). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) =>
      this.socket.write(data, (error) => (error ? reject(error) : resolve())),
    );
  }

  /** Writes `total` bytes of filler in pieces, as a client still sending a large body would. */
  async send(total: number, piece = 256 * 1024): Promise<void> {
    const filler = Buffer.alloc(piece, 0x20);
    for (let sent = 0; sent < total; sent += piece)
      await this.write(filler.subarray(0, Math.min(piece, total - sent)));
  }
}

function post(path: string, length: number, headers: Record<string, string>): string {
  const lines = Object.entries({ host: `127.0.0.1:${port}`, 'content-length': String(length), ...headers });
  return `POST ${path} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
}

const HEALTH = `GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`;
const RESOURCES = `/v1/resources/${encodeURIComponent('Test::Shop::Widget')}`;

/**
 * Sends a request whose body is refused before it is read, waits for the refusal with most of the
 * body unsent, then sends the rest and another request on the same connection.
 */
async function refusedWhileSending(head: string, length: number) {
  const connection = new Connection();
  await connection.write(head);
  await connection.send(64 * 1024);
  const [refusal] = await connection.answered(1);
  // The rest of the body, sent after the refusal arrived: every write is taken.
  await connection.send(length - 64 * 1024);
  await connection.write(HEALTH);
  const answers = await connection.answered(2);
  connection.socket.destroy();
  return { refusal: refusal!, answers, writeError: connection.writeError };
}

test('a body over the limit is refused while the client still sends it: the client sends the rest, reads 413 and keeps its connection', async () => {
  const length = 3 * 1024 * 1024;
  const { refusal, answers, writeError } = await refusedWhileSending(
    post(RESOURCES, length, { authorization: `Bearer ${svc.token}`, 'content-type': 'application/json' }),
    length,
  );
  assert.equal(refusal.status, 413, refusal.body);
  assert.match(JSON.parse(refusal.body).message, /larger than the limit/);
  assert.notEqual(refusal.headers.connection, 'close');
  assert.equal(writeError, undefined);
  assert.deepEqual(
    answers.map((a) => a.status),
    [413, 200],
    'the connection serves the next request once the refused body has been sent',
  );
});

test('a request refused on its headers (no token) keeps its connection while its body is still sent', async () => {
  const length = 2 * 1024 * 1024;
  const { refusal, answers, writeError } = await refusedWhileSending(
    post(RESOURCES, length, { 'content-type': 'application/json' }),
    length,
  );
  assert.equal(refusal.status, 401);
  assert.equal(writeError, undefined);
  assert.deepEqual(
    answers.map((a) => a.status),
    [401, 200],
  );
});

test('Cloud Control: a body over the limit, and a request without a signature, keep their connection while the body is still sent', async () => {
  const length = 2 * 1024 * 1024;
  const body = '{}';
  const signed = signedHeaders({ keys, url: svc.url, operation: 'GetResource', body });
  const tooLarge = await refusedWhileSending(post('/', length, signed), length);
  assert.equal(tooLarge.refusal.status, 413, tooLarge.refusal.body);
  assert.equal(JSON.parse(tooLarge.refusal.body).__type, 'RequestEntityTooLargeException');
  assert.notEqual(tooLarge.refusal.headers.connection, 'close');
  assert.equal(tooLarge.writeError, undefined);
  assert.deepEqual(
    tooLarge.answers.map((a) => a.status),
    [413, 200],
  );

  const unsigned = await refusedWhileSending(
    post('/', length, {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'CloudApiService.GetResource',
    }),
    length,
  );
  assert.equal(JSON.parse(unsigned.refusal.body).__type, 'MissingAuthenticationTokenException');
  assert.equal(unsigned.writeError, undefined);
  assert.deepEqual(
    unsigned.answers.map((a) => a.status),
    [unsigned.refusal.status, 200],
  );
});

test('a declared body past what the server drains is refused and its connection closed', async () => {
  const connection = new Connection();
  await connection.write(
    post(RESOURCES, 64 * 1024 * 1024, {
      authorization: `Bearer ${svc.token}`,
      'content-type': 'application/json',
    }),
  );
  const [refusal] = await connection.answered(1);
  assert.equal(refusal!.status, 413);
  assert.equal(refusal!.headers.connection, 'close');
  await connection.closed();
});

test('an answer sent before a body longer than the server drains has arrived closes the connection (a GET carrying one, a refusal without a token)', async () => {
  for (const head of [
    `GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${64 * 1024 * 1024}\r\n\r\n`,
    post(RESOURCES, 64 * 1024 * 1024, { 'content-type': 'application/json' }),
  ]) {
    const connection = new Connection();
    await connection.write(head);
    await connection.send(64 * 1024);
    const [answer] = await connection.answered(1);
    assert.ok(answer!.status === 200 || answer!.status === 401, `${answer!.status}`);
    assert.equal(answer!.headers.connection, 'close');
    await connection.closed();
  }
});

test('headers that do not arrive within their deadline are answered 408 and the connection closed', async () => {
  const connection = new Connection();
  await connection.write('GET /healthz HTTP/1.1\r\n');
  const dribble = setInterval(() => connection.socket.write('x-slow: 1\r\n'), 100);
  try {
    const elapsed = await connection.closed();
    assert.ok(elapsed >= HEADERS_MS * 0.9 && elapsed < HEADERS_MS + SLACK_MS, `closed after ${elapsed} ms`);
  } finally {
    clearInterval(dribble);
  }
  const answers = await connection.answered(1);
  assert.equal(answers[0]?.status, 408);
});

test('a client still sending when its headers time out, and reading only later, still gets its 408', async () => {
  // Closing a socket the client still writes to makes the kernel send a reset, which drops the answer
  // on the client's side if it has not read it yet: the server must end such a connection gently.
  const clients = Array.from({ length: 5 }, async () => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let error: string | undefined;
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code));
    const closed = new Promise((r) => socket.once('close', r));
    socket.write('GET /healthz HTTP/1.1\r\n');
    socket.pause();
    const sending = setInterval(() => {
      if (socket.writable) socket.write('x-slow: 1\r\n');
    }, 5);
    // Past the deadline (checked every 100 ms here), within the time the server still reads after it.
    await new Promise((r) => setTimeout(r, HEADERS_MS + 1000));
    clearInterval(sending);
    socket.resume();
    await closed;
    return { head: received.slice(0, received.indexOf('\r\n')), error };
  });
  for (const { head, error } of await Promise.all(clients))
    assert.equal(head, 'HTTP/1.1 408 Request Timeout', `no answer read (${error ?? 'no error'})`);
});

test('a connection that sends nothing is closed at the headers deadline', async () => {
  const connection = new Connection();
  const elapsed = await connection.closed();
  assert.ok(elapsed >= HEADERS_MS * 0.9 && elapsed < HEADERS_MS + SLACK_MS, `closed after ${elapsed} ms`);
});

/** Sends each connection a byte of body every 100 ms until the server closes it, at the request deadline. */
async function dribbleBodiesPastDeadline(connections: Connection[]): Promise<void> {
  const dribble = setInterval(() => {
    for (const c of connections) if (c.closedAt === undefined) c.socket.write(' ');
  }, 100);
  try {
    for (const c of connections) {
      const elapsed = await c.closed();
      assert.ok(elapsed >= REQUEST_MS * 0.9 && elapsed < REQUEST_MS + SLACK_MS, `closed after ${elapsed} ms`);
    }
  } finally {
    clearInterval(dribble);
  }
}

test('a body sent a byte at a time past the request deadline is answered 408 and the connection closed, with a token or without', async () => {
  const withToken = new Connection();
  const without = new Connection();
  await withToken.write(
    post(RESOURCES, 1000, { authorization: `Bearer ${svc.token}`, 'content-type': 'application/json' }),
  );
  await without.write(post(RESOURCES, 1000, { 'content-type': 'application/json' }));
  await dribbleBodiesPastDeadline([withToken, without]);
  assert.equal((await withToken.answered(1))[0]?.status, 408);
  // Refused on its headers at once; the body it went on sending did not hold the connection, and the
  // connection was closed without a second answer (a 408 would read as the answer to a request not sent).
  assert.deepEqual(
    (await without.answered(2)).map((a) => a.status),
    [401],
  );
});

test('a request answered before its body arrived is not answered again when the rest comes too late (/v1 and Cloud Control)', async () => {
  const native = new Connection();
  const cloudControl = new Connection();
  await native.write(post(RESOURCES, 1000, { 'content-type': 'application/json' }));
  await cloudControl.write(
    post('/', 1000, {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'CloudApiService.GetResource',
    }),
  );
  await dribbleBodiesPastDeadline([native, cloudControl]);
  assert.deepEqual(
    (await native.answered(2)).map((a) => a.status),
    [401],
  );
  const answers = await cloudControl.answered(2);
  assert.deepEqual(
    answers.map((a) => a.status),
    [403],
  );
  assert.equal(JSON.parse(answers[0]!.body).__type, 'MissingAuthenticationTokenException');
});

test('once the body of a request answered early has arrived, the next request on its connection is answered 408 when late', async () => {
  const connection = new Connection();
  await connection.write(post(RESOURCES, 1000, { 'content-type': 'application/json' }));
  assert.equal((await connection.answered(1))[0]?.status, 401);
  await connection.write(Buffer.alloc(1000, 0x20));
  // The next request's headers, a byte at a time past their deadline.
  let sent = 0;
  const dribble = setInterval(() => {
    if (connection.closedAt === undefined && sent < HEALTH.length) connection.socket.write(HEALTH[sent++]!);
  }, 100);
  try {
    await connection.closed();
  } finally {
    clearInterval(dribble);
  }
  assert.deepEqual(
    (await connection.answered(2)).map((a) => a.status),
    [401, 408],
  );
});

test('a request sent in pieces within the deadlines is served as usual', async () => {
  const connection = new Connection();
  const body = JSON.stringify({ desiredState: { Name: 'in-pieces', Price: 3 } });
  await connection.write(
    post(RESOURCES, Buffer.byteLength(body), {
      authorization: `Bearer ${svc.token}`,
      'content-type': 'application/json',
    }),
  );
  for (const piece of [body.slice(0, 10), body.slice(10, 20), body.slice(20)]) {
    await sleep(REQUEST_MS / 6);
    await connection.write(piece);
  }
  const [answer] = await connection.answered(1);
  // The type is not registered: what matters is that the body was read and the request answered.
  assert.equal(answer!.status, 404, answer!.body);
  assert.match(JSON.parse(answer!.body).message, /Test::Shop::Widget/);
  assert.equal(connection.closedAt, undefined);
  connection.socket.destroy();
});

test('connections past the limit are closed as they arrive, the ones open are served, and the log says so once', async () => {
  const lines: string[] = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  const limited = await startTestService({ connectionLimits: { maxConnections: 4 }, logger });
  const to = Number(new URL(limited.url).port);
  try {
    const open = Array.from({ length: 4 }, () => new Connection(to));
    await Promise.all(open.map((c) => c.write('')));
    // Node counts a connection once it has accepted it: the four are in before the next ones come.
    await sleep(100);
    const past = [new Connection(to), new Connection(to)];
    for (const c of past) assert.ok((await c.closed(3_000)) < 3_000);
    assert.deepEqual(await Promise.all(past.map((c) => c.answered(1))), [[], []], 'closed without an answer');
    await open[0]!.write(HEALTH);
    assert.equal((await open[0]!.answered(1))[0]?.status, 200, 'the connections within the limit are served');
    open[1]!.socket.destroy();
    await sleep(100);
    const next = new Connection(to);
    await next.write(HEALTH);
    assert.equal((await next.answered(1))[0]?.status, 200, 'a place freed is taken by the next connection');
    for (const c of [...open, next]) c.socket.destroy();
    const warnings = lines.filter((l) => l.includes('connection limit reached'));
    assert.equal(warnings.length, 1, lines.join(''));
    assert.equal(JSON.parse(warnings[0]!).maxConnections, 4);
  } finally {
    await limited.close();
  }
});

test('the connection limit defaults to 10,000, or the open-file limit less 512 descriptors where that is lower', () => {
  const limits = `Limit                     Soft Limit           Hard Limit           Units
Max open files            1024                 524288               files
`;
  assert.equal(openFileLimit(limits), 1024);
  assert.equal(openFileLimit('nothing here'), undefined);
  assert.equal(defaultMaxConnections(1024), 512);
  assert.equal(defaultMaxConnections(1_048_576), 10_000);
  assert.equal(defaultMaxConnections(300), 64);
  assert.equal(defaultMaxConnections(undefined), 10_000);
});

test('serve --request-timeout and --max-connections set the limits; values out of range are refused', async () => {
  const server = await spawnServer(tempDir(), [
    '--request-timeout',
    '1',
    '--max-connections',
    '3',
    '--handlers',
    '8',
    '--handlers-per-type',
    '2',
  ]);
  try {
    const connection = new Connection(Number(new URL(server.url).port));
    await connection.write(
      post(RESOURCES, 1000, { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }),
    );
    const dribble = setInterval(() => connection.closedAt === undefined && connection.socket.write(' '), 100);
    try {
      const elapsed = await connection.closed();
      assert.ok(elapsed >= 900 && elapsed < 1000 + SLACK_MS, `closed after ${elapsed} ms`);
    } finally {
      clearInterval(dribble);
    }
    assert.equal((await connection.answered(1))[0]?.status, 408);
    const open = Array.from({ length: 3 }, () => new Connection(Number(new URL(server.url).port)));
    await sleep(100);
    const past = new Connection(Number(new URL(server.url).port));
    assert.ok((await past.closed(3_000)) < 3_000, 'the fourth connection is closed');
    for (const c of open) assert.equal(c.closedAt, undefined);
    for (const c of open) c.socket.destroy();
  } finally {
    server.child.kill('SIGKILL');
  }
  await assert.rejects(
    spawnServer(tempDir(), ['--max-connections', 'many']),
    /--max-connections takes a whole number from 1 to 1000000, not 'many'/,
  );
  await assert.rejects(
    spawnServer(tempDir(), ['--request-timeout', '0']),
    /--request-timeout must be a number of seconds from 1 to 3600, not '0'/,
  );
});

/**
 * A request's logger is made when the request first logs: its lines carry the request's id as before,
 * a level the server does not log costs no child logger, and a route's own logging still goes out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { requestLogger } from '../../src/http/request-logger.js';
import { WIDGET, WIDGET_TYPE, startTestService } from '../helpers/service.js';

function collecting(level: string): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level }, sink);
  return { logger, lines: () => written.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

test('a level the server does not log makes no child logger; an enabled one logs with the bindings', () => {
  const { logger, lines } = collecting('warn');
  let children = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<Logger['child']>) => {
    children++;
    return child(...args);
  }) as Logger['child'];
  const log = requestLogger(logger, { reqId: 'r-1' }, {});
  log.info({ req: 'x' }, 'incoming request');
  log.debug('nothing');
  assert.equal(children, 0);
  assert.equal(log.level, 'warn');
  log.error({ err: 'boom' }, 'unexpected error');
  log.warn('again');
  assert.equal(children, 1);
  assert.deepEqual(
    lines().map((l) => [l.msg, l.reqId]),
    [
      ['unexpected error', 'r-1'],
      ['again', 'r-1'],
    ],
  );
  // The counting stand-in goes: children inherit what the parent holds, and it would bind them to it.
  delete (logger as { child?: unknown }).child;
  const nested = log.child({ component: 'inner' });
  nested.warn('nested');
  assert.equal(lines().at(-1)!.component, 'inner');
  assert.equal(lines().at(-1)!.reqId, 'r-1');
  log.level = 'info';
  log.info('now logged');
  assert.equal(lines().at(-1)!.msg, 'now logged');
});

test("a route's options with a level of their own get their child at once", () => {
  const { logger, lines } = collecting('warn');
  const log = requestLogger(logger, { reqId: 'r-2' }, { level: 'info' });
  log.info('logged at the route level');
  assert.deepEqual(
    lines().map((l) => [l.msg, l.reqId]),
    [['logged at the route level', 'r-2']],
  );
});

test("the server's request lines carry the id it answers with, and none are written at warn", async () => {
  for (const level of ['info', 'warn']) {
    const { logger, lines } = collecting(level);
    const svc = await startTestService({ logger });
    try {
      assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
      const before = lines().length;
      const read = await svc.call('GET', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}/absent`);
      assert.equal(read.status, 404);
      const id = read.headers.get('x-request-id');
      const mine = lines()
        .slice(before)
        .filter((l) => l.reqId === id);
      if (level === 'info')
        assert.deepEqual(
          mine.map((l) => l.msg),
          ['incoming request', 'request completed'],
        );
      else assert.deepEqual(lines().slice(before), []);
    } finally {
      await svc.close();
    }
  }
});

/**
 * Write-only values are masked in every form a message may quote them in, whoever wrote the message:
 * a provider quoting them JSON-escaped, with Python's `\uXXXX` escapes, single-quoted or
 * percent-encoded, a thrown `Error(JSON.stringify(desiredState))`, and the engine's own words on a
 * broken answer (an errorCode or an identifier that is a secret). Neither the answer nor the log
 * holds any of them. Real HTTP, a real store, logs to a file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import type { HandlerEvent, HandlerRequest } from '../../src/handler/types.js';
import { WIDGET, WIDGET_TYPE, startTestService, tempDir } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const T = encodeURIComponent(WIDGET_TYPE);

const pythonJson = (value: string) =>
  JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** Per case: the write-only value sent, how the provider answers, and the form its answer holds it in. */
const CASES: {
  name: string;
  secret: string;
  answer: (req: HandlerRequest, secret: string) => HandlerEvent;
  quoted: (secret: string) => string;
}[] = [
  {
    name: 'json',
    secret: 'Sup3r"Secr\\et',
    answer: (_req, s) => ({
      status: 'FAILED',
      errorCode: 'InvalidCredentials',
      message: `refused ${JSON.stringify({ Password: s })}`,
    }),
    quoted: (s) => JSON.stringify(s).slice(1, -1),
  },
  {
    name: 'python',
    secret: 'p\u00e4ssw\u00f6rd-\u03a9mega',
    answer: (_req, s) => ({
      status: 'FAILED',
      errorCode: 'InvalidCredentials',
      message: `{"detail": "bad password ${pythonJson(s).slice(1, -1)}"}`,
    }),
    quoted: (s) => pythonJson(s).slice(1, -1),
  },
  {
    name: 'python-upper',
    secret: 'gr\u00fc\u00dfe-secret',
    answer: (_req, s) => ({
      status: 'FAILED',
      errorCode: 'InvalidCredentials',
      message: `bad ${pythonJson(s).replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`)}`,
    }),
    quoted: (s) => pythonJson(s).replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`),
  },
  {
    name: 'repr',
    secret: "it's-a-secret\\x",
    answer: (_req, s) => ({
      status: 'FAILED',
      errorCode: 'InvalidCredentials',
      message: `Login(password='${s.replace(/[\\']/g, (c) => `\\${c}`)}')`,
    }),
    quoted: (s) => s.replace(/[\\']/g, (c) => `\\${c}`),
  },
  {
    name: 'url',
    secret: 'a b&c=d/secret',
    answer: (_req, s) => ({
      status: 'FAILED',
      errorCode: 'NetworkFailure',
      message: `GET https://db.example/login?p=${encodeURIComponent(s)} failed`,
    }),
    quoted: (s) => encodeURIComponent(s),
  },
  {
    name: 'thrown',
    secret: 'thr"own\\secret',
    answer: (req) => {
      throw new Error(JSON.stringify(req.desiredState));
    },
    quoted: (s) => JSON.stringify(s).slice(1, -1),
  },
  {
    name: 'error-code',
    secret: 'errorcode-secret-1',
    answer: (_req, s) => ({ status: 'FAILED', errorCode: s as never }),
    quoted: (s) => s,
  },
  {
    name: 'identifier',
    secret: 'identifier-secret-1',
    answer: (req, s) => ({ status: 'SUCCESS', resourceModel: { ...req.desiredState, Name: s } }),
    quoted: (s) => s,
  },
];

test('write-only values are masked in every quoted form, in answers and logs', async () => {
  const dir = tempDir();
  const logFile = join(dir, 'server.log');
  const logger = pino({ level: 'trace' }, pino.destination({ dest: logFile, sync: true }));
  const provider = memoryProvider({
    create: (req) => {
      const found = CASES.find((c) => c.name === req.desiredState.Color);
      return found!.answer(req, String(req.desiredState.Secret));
    },
  });
  const svc = await startTestService({ logger, providers: new Map([[WIDGET_TYPE, provider]]) });
  try {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    for (const [i, c] of CASES.entries()) {
      const res = await svc.call('POST', `/v1/resources/${T}?wait=5`, {
        desiredState: { Name: `case-${i}`, Color: c.name, Secret: c.secret },
      });
      const event = res.body.progressEvent;
      assert.equal(event.operationStatus, 'FAILED', `${c.name}: ${JSON.stringify(res.body)}`);
      const again = (await svc.call('GET', `/v1/requests/${event.requestToken}`)).body;
      for (const answer of [res.body, again]) {
        const text = JSON.stringify(answer);
        const form = c.quoted(c.secret);
        // The answer is JSON: a quoted form appears in it escaped once more.
        assert.ok(!event.statusMessage.includes(form), `${c.name}: ${event.statusMessage}`);
        assert.ok(!text.includes(JSON.stringify(form).slice(1, -1)), `${c.name}: ${text}`);
        assert.ok(!text.includes(c.secret), `${c.name}: ${text}`);
      }
      assert.match(event.statusMessage, /\*\*\*/, `${c.name}: the message still says something was masked`);
    }
  } finally {
    await svc.close();
  }
  const logs = readFileSync(logFile, 'utf8');
  assert.ok(logs.length > 0);
  for (const c of CASES) {
    for (const form of [c.secret, c.quoted(c.secret), JSON.stringify(c.quoted(c.secret)).slice(1, -1)])
      assert.ok(!logs.includes(form), `${c.name}: the log holds ${form}`);
  }
});

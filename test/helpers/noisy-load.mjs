// A saturating tenant, in a process of its own (so the test's own clock is not behind its work):
// `node noisy-load.mjs <url> <token> <path> <clients> <seconds>` runs <clients> keep-alive clients
// creating as fast as they can (a 429 is sent again at once), then prints one JSON line: answers by
// status, the Retry-After values seen on 429s, and the first 429's body.
import { Buffer } from 'node:buffer';
import http from 'node:http';

const [url, token, path, clients, seconds] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(clients) });
const until = Date.now() + Number(seconds) * 1000;
const statuses = {};
const retryAfter = new Set();
let throttled;
let seq = 0;

function create() {
  const name = `n${process.pid}-${seq++}`;
  const body = JSON.stringify({ desiredState: { Name: name, Size: 'M' } });
  return new Promise((resolve) => {
    const request = http.request(
      new URL(path, url),
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (d) => (text += d));
        response.on('end', () => {
          statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
          if (response.statusCode === 429) {
            retryAfter.add(response.headers['retry-after'] ?? '(none)');
            throttled ??= text;
          }
          resolve();
        });
      },
    );
    request.on('error', () => {
      statuses.error = (statuses.error ?? 0) + 1;
      resolve();
    });
    request.end(body);
  });
}

async function client() {
  while (Date.now() < until) await create();
}

await Promise.all(Array.from({ length: Number(clients) }, client));
agent.destroy();
process.stdout.write(JSON.stringify({ statuses, retryAfter: [...retryAfter], throttled }) + '\n');

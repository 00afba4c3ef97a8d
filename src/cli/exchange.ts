/**
 * @module One HTTP exchange over node:http(s): the answer's status, headers and body as text. What
 * the CLI's client sends its calls with (fetch's implementation costs more CPU to load than the rest
 * of a command's start).
 */
import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Exchanged {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * Sends `payload` (if any, with its Content-Length) and reads the whole answer; rejects on transport
 * errors. `ca`: the certificates an https:// server's must chain to, instead of the system's CAs.
 */
export async function exchange(
  method: string,
  url: URL,
  headers: OutgoingHttpHeaders,
  payload?: string,
  ca?: Buffer,
): Promise<Exchanged> {
  const res = await openExchange(method, url, headers, payload, ca);
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? '',
    headers: res.headers,
    text: await readText(res),
  };
}

/** As {@link exchange}, but resolves once the answer starts: its body is read as it arrives (a download). */
export function openExchange(
  method: string,
  url: URL,
  headers: OutgoingHttpHeaders,
  payload?: string,
  ca?: Buffer,
): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const sent = payload === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(payload) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: sent, ...(ca ? { ca } : {}) }, resolve);
    req.on('error', reject);
    req.end(payload);
  });
}

/** The whole body of an answer, as text. */
export async function readText(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * @module A generator thread: renders the artifacts it is sent, one at a time, and compresses the
 * large ones, so that neither the generating nor the compressing runs on the server's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { ResourceType } from '../../schema/index.js';
import { renderArtifact } from '../artifact.js';
import type { AnswerMessage, Encodings, JobMessage } from './messages.js';

/** Below this a compressed form saves less than its headers cost. */
const COMPRESS_FROM_BYTES = 1024;
/**
 * Brotli quality 4: the corpus's 21 MB OpenAPI document becomes 1.3 MB in 0.4 s (quality 11 would
 * take tens of seconds for 10% less); gzip at its default level 6: 1.5 MB in 0.65 s.
 */
const BROTLI_QUALITY = 4;

const port = parentPort;
if (!port) throw new Error('the artifact generator runs as a worker thread');

/** The job being received: its id and the models sent so far. */
let job = { id: 0, texts: [] as string[] };

port.on('message', (message: JobMessage) => {
  if (message.id !== job.id) job = { id: message.id, texts: [] };
  if (message.kind === 'types') {
    job.texts.push(...message.texts);
    return;
  }
  const { texts } = job;
  job = { id: 0, texts: [] };
  let answer: AnswerMessage;
  try {
    const types = texts.map((text) => JSON.parse(text) as ResourceType);
    const rendered = renderArtifact(message.artifact, types);
    answer = rendered
      ? { id: message.id, found: true, contentType: rendered.contentType, encodings: encode(rendered.body) }
      : { id: message.id, found: false };
  } catch (error) {
    answer = { id: message.id, error: error instanceof Error ? error.message : String(error) };
  }
  const transfer = 'encodings' in answer ? Object.values(answer.encodings).map((b) => b.buffer) : [];
  port.postMessage(answer, transfer);
});

function encode(body: string): Encodings {
  const identity = own(new TextEncoder().encode(body));
  if (identity.length < COMPRESS_FROM_BYTES) return { identity };
  return {
    identity,
    gzip: own(gzipSync(identity)),
    br: own(
      brotliCompressSync(identity, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
        },
      }),
    ),
  };
}

/** Bytes in a buffer of their own, so it can be transferred (a small Buffer may share Node's pool). */
function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes
    : new Uint8Array(bytes);
}

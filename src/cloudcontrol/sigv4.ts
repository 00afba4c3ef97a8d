/**
 * @module The server side of AWS Signature Version 4, for requests in the `Authorization` header.
 *
 * In two steps, so that a caller who cannot be who they say costs no body reading: `readSignature`
 * checks the header's form, the credential scope and the request time from the headers alone; once
 * the body has arrived, `verifySignature` rebuilds the canonical request (method, path, query, the
 * signed headers as they arrived, the body's SHA-256), derives the signing key from the secret and
 * compares signatures in constant time. Any region is accepted (the signing key is derived for the
 * region the client named); the service must be `cloudcontrolapi`.
 *
 * Messages follow AWS's, with what to do added: SDKs show them as they are.
 */
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { CloudControlError } from './errors.js';

export const SERVICE = 'cloudcontrolapi';
const ALGORITHM = 'AWS4-HMAC-SHA256';
/** How far a request's time may be from the server's, either way (AWS's bound). */
export const MAX_SKEW_MS = 5 * 60 * 1000;
const MAX_AUTHORIZATION_LENGTH = 4096;
const MAX_SIGNED_HEADERS = 64;
/** Headers a signature must cover: without the target, a signed GetResource could be replayed as a DeleteResource. */
const REQUIRED_SIGNED = ['host', 'x-amz-date', 'x-amz-target'];
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const REGION = /^[a-z0-9-]{1,64}$/;

/** What the headers say about the signature, checked for form, scope and time. */
export interface SignatureClaim {
  accessKeyId: string;
  /** The `x-amz-date` header as sent (`YYYYMMDDTHHMMSSZ`). */
  amzDate: string;
  /** `YYYYMMDD/region/cloudcontrolapi/aws4_request`. */
  scope: string;
  date: string;
  region: string;
  signedHeaders: string[];
  signature: string;
}

function incomplete(message: string): CloudControlError {
  return new CloudControlError('IncompleteSignatureException', message);
}

function invalid(message: string): CloudControlError {
  return new CloudControlError('InvalidSignatureException', message);
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** `20260101T000000Z` → epoch milliseconds, or NaN. */
/** The last time parsed: requests within a second carry the same one. */
let lastAmzDate = { text: '', ms: NaN };

function amzDateMs(value: string): number {
  if (value === lastAmzDate.text) return lastAmzDate.ms;
  const m = AMZ_DATE.exec(value);
  if (!m) return NaN;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  // Date.UTC rolls 20261399 over into another date: only a real date and time are taken.
  const date = new Date(ms);
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return NaN;
  lastAmzDate = { text: value, ms };
  return ms;
}

function amzDateOf(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]|\.\d{3}/g, '');
}

const SIGNATURE = /^[0-9a-f]{64}$/;
const SIGNED_HEADERS = new RegExp(`^[a-z0-9-]{1,128}(;[a-z0-9-]{1,128}){0,${MAX_SIGNED_HEADERS - 1}}$`);
/** The Authorization header as SDKs send it, read in one pass. */
const USUAL =
  /^AWS4-HMAC-SHA256 Credential=([^,\s]+), ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/** The three parts of an Authorization header; anything unusual is read part by part, for a precise refusal. */
function authorizationParts(authorization: string): {
  credential: string;
  signedHeaders: string;
  signature: string;
} {
  const usual = USUAL.exec(authorization);
  if (usual) return { credential: usual[1]!, signedHeaders: usual[2]!, signature: usual[3]! };
  const space = authorization.indexOf(' ');
  const algorithm = space < 0 ? authorization : authorization.slice(0, space);
  if (algorithm !== ALGORITHM)
    throw incomplete(
      /^bearer$/i.test(algorithm)
        ? "the Cloud Control API takes requests signed with AWS Signature Version 4, not bearer tokens: create an access key pair with 'typeplane token create --aws-keys' (bearer tokens work on /v1)"
        : `Unsupported AWS 'algorithm': '${algorithm.slice(0, 40)}'; sign with ${ALGORITHM}`,
    );
  const parts = new Map<string, string>();
  for (const part of authorization.slice(space + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) parts.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const missing = ['Credential', 'SignedHeaders', 'Signature'].filter((p) => !parts.get(p));
  if (missing.length > 0)
    throw incomplete(
      missing.map((p) => `Authorization header requires '${p}' parameter.`).join(' ') +
        ` Authorization=${ALGORITHM} Credential=..., SignedHeaders=..., Signature=...`,
    );
  return {
    credential: parts.get('Credential')!,
    signedHeaders: parts.get('SignedHeaders')!,
    signature: parts.get('Signature')!,
  };
}

/**
 * The signature a request claims, from its headers, or the AWS exception refusing it.
 *
 * @throws CloudControlError MissingAuthenticationTokenException, IncompleteSignatureException,
 * InvalidSignatureException (scope, or a time more than five minutes from `now`), InvalidClientTokenId
 * (a session token).
 */
export function readSignature(
  headers: Record<string, string | string[] | undefined>,
  now: number,
): SignatureClaim {
  const authorization = header(headers, 'authorization');
  if (authorization === undefined || authorization === '')
    throw new CloudControlError(
      'MissingAuthenticationTokenException',
      "Missing Authentication Token: sign the request with AWS Signature Version 4, using an access key pair from 'typeplane token create --aws-keys'",
    );
  if (authorization.length > MAX_AUTHORIZATION_LENGTH)
    throw incomplete(`the Authorization header is longer than ${MAX_AUTHORIZATION_LENGTH} characters`);
  const parts = authorizationParts(authorization);
  if (header(headers, 'x-amz-security-token') !== undefined)
    throw new CloudControlError(
      'InvalidClientTokenId',
      "session credentials (x-amz-security-token) are not accepted: Typeplane issues long-term access key pairs ('typeplane token create --aws-keys'); unset AWS_SESSION_TOKEN",
    );
  const credential = parts.credential.split('/');
  if (credential.length !== 5 || credential.some((c) => c === ''))
    throw incomplete(
      "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '" +
        parts.credential.slice(0, 200) +
        "'",
    );
  const [accessKeyId, date, region, service, terminator] = credential as [
    string,
    string,
    string,
    string,
    string,
  ];
  const signature = parts.signature;
  if (!SIGNATURE.test(signature))
    throw incomplete('the Signature must be 64 lowercase hexadecimal digits (HMAC-SHA256)');
  if (!SIGNED_HEADERS.test(parts.signedHeaders))
    throw incomplete(
      `SignedHeaders must be at most ${MAX_SIGNED_HEADERS} lowercase header names separated by ';'`,
    );
  const signedHeaders = parts.signedHeaders.split(';');
  const unsigned = REQUIRED_SIGNED.filter((h) => !signedHeaders.includes(h));
  if (unsigned.length > 0)
    throw invalid(`the signature must cover the headers ${unsigned.join(', ')}: add them to SignedHeaders`);
  const amzDate = header(headers, 'x-amz-date') ?? '';
  const time = amzDateMs(amzDate);
  if (Number.isNaN(time))
    throw incomplete(
      `the x-amz-date header must be an ISO 8601 basic time like ${amzDateOf(now)}, not '${amzDate.slice(0, 40)}'`,
    );
  if (terminator !== 'aws4_request')
    throw invalid(
      `Credential should be scoped with a valid terminator: 'aws4_request', not '${terminator.slice(0, 40)}'.`,
    );
  if (service !== SERVICE) throw invalid(`Credential should be scoped to correct service: '${SERVICE}'.`);
  if (!REGION.test(region))
    throw invalid('Credential should be scoped to a valid region (lowercase letters, digits and -).');
  if (date !== amzDate.slice(0, 8))
    throw invalid(
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${date.slice(0, 8)}' != '${amzDate.slice(0, 8)}'`,
    );
  if (time < now - MAX_SKEW_MS)
    throw invalid(
      `Signature expired: ${amzDate} is now earlier than ${amzDateOf(now - MAX_SKEW_MS)} (${amzDateOf(now)} - 5 min.)`,
    );
  if (time > now + MAX_SKEW_MS)
    throw invalid(
      `Signature not yet current: ${amzDate} is still later than ${amzDateOf(now + MAX_SKEW_MS)} (${amzDateOf(now)} + 5 min.)`,
    );
  return {
    accessKeyId,
    amzDate,
    scope: `${date}/${region}/${service}/${terminator}`,
    date,
    region,
    signedHeaders,
    signature,
  };
}

/** RFC 3986 percent-encoding, as SigV4 canonical forms use it. */
function escape(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function canonicalQuery(query: string): string {
  if (query === '') return '';
  const pairs: [string, string][] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const [key, value] = eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
    try {
      pairs.push([escape(decodeURIComponent(key)), escape(decodeURIComponent(value))]);
    } catch {
      throw incomplete('the query string is not well-formed percent-encoded UTF-8');
    }
  }
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** The signed headers' values as they arrived (repeated headers joined by commas, spaces folded). */
function canonicalHeaders(rawHeaders: readonly string[], signed: readonly string[]): string {
  const values = new Map<string, string[]>(signed.map((name) => [name, []]));
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const list = values.get(rawHeaders[i]!.toLowerCase());
    if (list) list.push(rawHeaders[i + 1]!.trim().replace(/\s+/g, ' '));
  }
  let out = '';
  for (const name of signed) {
    const list = values.get(name)!;
    if (list.length === 0)
      throw invalid(`the signed header '${name}' is not in the request: sign only headers that are sent`);
    out += `${name}:${list.join(',')}\n`;
  }
  return out;
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** SHA-256 of a body, as hex (the payload hash of the canonical request). */
export function payloadHash(body: Buffer): string {
  return hash('sha256', body, 'hex');
}

/**
 * Signing keys by key id and scope: a key is good for a day and a region, and deriving one takes four
 * HMACs, most of a verification's cost. The secret is kept with it, so a key is used only with the
 * secret it was derived from.
 */
const signingKeys = new Map<string, { secretAccessKey: string; key: Buffer }>();
const MAX_SIGNING_KEYS = 10_000;

function signingKey(claim: SignatureClaim, secretAccessKey: string): Buffer {
  const id = `${claim.accessKeyId}/${claim.scope}`;
  const cached = signingKeys.get(id);
  if (cached?.secretAccessKey === secretAccessKey) return cached.key;
  const key = hmac(
    hmac(hmac(hmac(`AWS4${secretAccessKey}`, claim.date), claim.region), SERVICE),
    'aws4_request',
  );
  if (signingKeys.size >= MAX_SIGNING_KEYS) signingKeys.clear();
  signingKeys.set(id, { secretAccessKey, key });
  return key;
}

export interface ArrivedRequest {
  method: string;
  /** The request target as sent: path and query. */
  url: string;
  rawHeaders: readonly string[];
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Check a claimed signature against the request as it arrived and the key pair's secret.
 *
 * @throws CloudControlError InvalidSignatureException when the signature or the payload hash does not match.
 */
export function verifySignature(
  claim: SignatureClaim,
  secretAccessKey: string,
  request: ArrivedRequest,
  bodyHash: string,
): void {
  const declared = header(request.headers, 'x-amz-content-sha256');
  if (declared !== undefined && declared !== bodyHash)
    throw invalid(
      declared === 'UNSIGNED-PAYLOAD'
        ? 'unsigned payloads are not accepted: sign the SHA-256 of the body'
        : 'The provided x-amz-content-sha256 header does not match what was computed.',
    );
  const q = request.url.indexOf('?');
  const path = q < 0 ? request.url : request.url.slice(0, q);
  const canonicalRequest = [
    request.method,
    path,
    canonicalQuery(q < 0 ? '' : request.url.slice(q + 1)),
    canonicalHeaders(request.rawHeaders, claim.signedHeaders),
    claim.signedHeaders.join(';'),
    bodyHash,
  ].join('\n');
  const stringToSign = [ALGORITHM, claim.amzDate, claim.scope, hash('sha256', canonicalRequest, 'hex')].join(
    '\n',
  );
  const expected = hmac(signingKey(claim, secretAccessKey), stringToSign);
  // Both are 32 bytes (readSignature checked the claim is 64 hex digits): the comparison takes the
  // same time whatever they hold.
  if (!timingSafeEqual(expected, Buffer.from(claim.signature, 'hex')))
    throw invalid(
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    );
}

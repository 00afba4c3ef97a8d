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
import { CloudControlError, unrecognizedClient } from './errors.js';
import { HmacSha256Key } from './hmac.js';

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

/** What an Authorization header says apart from the signature: the same for a client's every request of a day. */
interface Credential {
  accessKeyId: string;
  /** `YYYYMMDD/region/cloudcontrolapi/aws4_request`. */
  scope: string;
  date: string;
  region: string;
  signedHeaders: string[];
  /** `SignedHeaders` as sent (`;`-separated), as the canonical request holds it. */
  signedHeaderList: string;
  /** The signing key derived for this credential, with the secret it was derived from (see `signingKey`). */
  signing?: { secretAccessKey: string; key: HmacSha256Key };
}

/** What the headers say about the signature, checked for form, scope and time. */
export interface SignatureClaim {
  /** The credential the claim was read as: one object for a client's every request of a day. */
  credential: Credential;
  /** The `x-amz-date` header as sent (`YYYYMMDDTHHMMSSZ`). */
  amzDate: string;
  signature: string;
  /** Kept for the client's next requests once the signature holds (see `knownCredential`). */
  toRemember?: { key: string; credential: Credential };
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

/**
 * Times parsed lately: requests of the same second carry the same text, and clients a second or two
 * apart (clocks, signing ahead of sending) a few texts at once. Only good times are kept, at most
 * {@link MAX_AMZ_DATES}.
 */
const amzDates = new Map<string, number>();
const MAX_AMZ_DATES = 64;

/** `20260101T000000Z` → epoch milliseconds, or NaN. */
function amzDateMs(value: string): number {
  const known = amzDates.get(value);
  if (known !== undefined) return known;
  const m = AMZ_DATE.exec(value);
  if (!m) return NaN;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  // Date.UTC rolls 20261399 over into another date: only a real date and time are taken.
  const date = new Date(ms);
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return NaN;
  if (amzDates.size >= MAX_AMZ_DATES) amzDates.clear();
  amzDates.set(value, ms);
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
  /** In the form SDKs send, signature last. */
  usual: boolean;
} {
  const usual = USUAL.exec(authorization);
  if (usual) return { credential: usual[1]!, signedHeaders: usual[2]!, signature: usual[3]!, usual: true };
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
    usual: false,
  };
}

const SIGNATURE_LENGTH = 64;
/**
 * Credentials read from headers of the usual form that passed every check and carried a good
 * signature (a stranger fills no memory), by the header less its signature: a client's next request
 * differs only in the signature (any 64 hex digits leave the form and every part read from it as they
 * were), so it is read with one lookup.
 */
const credentials = new Map<string, Credential>();
const MAX_CREDENTIALS = 10_000;

/** The credential found last, and its key: a client's requests come in runs, matched without hashing the header. */
let last: { key: string; credential: Credential } | undefined;

/**
 * The credential of a header of the usual form seen before, by all but its last 64 characters. Whether
 * those are a signature's 64 hexadecimal digits is left to `verifySignature`: any other text cannot
 * equal the signature computed, and a refusal then reads the header again for its precise answer.
 */
function knownCredential(authorization: string): Credential | undefined {
  const prefix = authorization.length - SIGNATURE_LENGTH;
  if (prefix <= 0) return undefined;
  // Compared as a slice: V8's startsWith walks a long prefix several times slower than equality.
  if (last !== undefined && last.key.length === prefix && authorization.slice(0, prefix) === last.key)
    return last.credential;
  const key = authorization.slice(0, prefix);
  const known = credentials.get(key);
  if (known) last = { key, credential: known };
  return known;
}

function remember({ key, credential }: { key: string; credential: Credential }): void {
  if (credentials.size >= MAX_CREDENTIALS) {
    credentials.clear();
    last = undefined;
  }
  credentials.set(key, credential);
}

/**
 * The signature a request claims, from its headers, or the AWS exception refusing it.
 *
 * @throws CloudControlError MissingAuthenticationTokenException, IncompleteSignatureException,
 * InvalidSignatureException (scope, or a time more than five minutes from `now`),
 * UnrecognizedClientException (a session token).
 */
export function readSignature(
  headers: Record<string, string | string[] | undefined>,
  now: number,
  /** Whether a credential seen before may be taken without reading the header again. */
  remembered = true,
): SignatureClaim {
  const authorization = header(headers, 'authorization');
  if (authorization === undefined || authorization === '')
    throw new CloudControlError(
      'MissingAuthenticationTokenException',
      "Missing Authentication Token: sign the request with AWS Signature Version 4, using an access key pair from 'typeplane token create --aws-keys'",
    );
  if (authorization.length > MAX_AUTHORIZATION_LENGTH)
    throw incomplete(`the Authorization header is longer than ${MAX_AUTHORIZATION_LENGTH} characters`);
  const known = remembered ? knownCredential(authorization) : undefined;
  if (known) {
    refuseSessionToken(headers);
    const amzDate = requestTime(headers, now);
    checkTime(known.date, amzDate, now);
    return { credential: known, amzDate, signature: authorization.slice(-SIGNATURE_LENGTH) };
  }
  const parts = authorizationParts(authorization);
  refuseSessionToken(headers);
  const elements = parts.credential.split('/');
  if (elements.length !== 5 || elements.some((c) => c === ''))
    throw incomplete(
      "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '" +
        parts.credential.slice(0, 200) +
        "'",
    );
  const [accessKeyId, date, region, service, terminator] = elements as [
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
  const amzDate = requestTime(headers, now);
  if (terminator !== 'aws4_request')
    throw invalid(
      `Credential should be scoped with a valid terminator: 'aws4_request', not '${terminator.slice(0, 40)}'.`,
    );
  if (service !== SERVICE) throw invalid(`Credential should be scoped to correct service: '${SERVICE}'.`);
  if (!REGION.test(region))
    throw invalid('Credential should be scoped to a valid region (lowercase letters, digits and -).');
  checkTime(date, amzDate, now);
  const credential: Credential = {
    accessKeyId,
    scope: `${date}/${region}/${service}/${terminator}`,
    date,
    region,
    signedHeaders,
    signedHeaderList: parts.signedHeaders,
  };
  return {
    credential,
    amzDate,
    signature,
    ...(parts.usual ? { toRemember: { key: authorization.slice(0, -SIGNATURE_LENGTH), credential } } : {}),
  };
}

function refuseSessionToken(headers: Record<string, string | string[] | undefined>): void {
  if (header(headers, 'x-amz-security-token') !== undefined)
    throw unrecognizedClient(
      "Session credentials (x-amz-security-token) are not accepted: Typeplane issues long-term access key pairs ('typeplane token create --aws-keys'); unset AWS_SESSION_TOKEN",
    );
}

/** The request's `x-amz-date`, once it names a time (see `amzDateMs`). */
function requestTime(headers: Record<string, string | string[] | undefined>, now: number): string {
  const amzDate = header(headers, 'x-amz-date') ?? '';
  if (Number.isNaN(amzDateMs(amzDate)))
    throw incomplete(
      `the x-amz-date header must be an ISO 8601 basic time like ${amzDateOf(now)}, not '${amzDate.slice(0, 40)}'`,
    );
  return amzDate;
}

/** The credential's day is the request's, and the request's time within five minutes of `now`. */
function checkTime(date: string, amzDate: string, now: number): void {
  if (date.length !== 8 || !amzDate.startsWith(date))
    throw invalid(
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${date.slice(0, 8)}' != '${amzDate.slice(0, 8)}'`,
    );
  // Parsed by requestTime: found among the times kept.
  const time = amzDateMs(amzDate);
  if (time < now - MAX_SKEW_MS)
    throw invalid(
      `Signature expired: ${amzDate} is now earlier than ${amzDateOf(now - MAX_SKEW_MS)} (${amzDateOf(now)} - 5 min.)`,
    );
  if (time > now + MAX_SKEW_MS)
    throw invalid(
      `Signature not yet current: ${amzDate} is still later than ${amzDateOf(now + MAX_SKEW_MS)} (${amzDateOf(now)} + 5 min.)`,
    );
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

/** A header value as SigV4 canonicalizes it: trimmed, runs of spaces folded (most need neither). */
function foldSpaces(value: string): string {
  const trimmed = value.trim();
  return /\s\s|[^\S ]/.test(trimmed) ? trimmed.replace(/\s+/g, ' ') : trimmed;
}

/** The signed headers' values as they arrived (repeated headers joined by commas, spaces folded). */
function canonicalHeaders(rawHeaders: readonly string[], signed: readonly string[]): string {
  // Values in the order of `signed` (at most 64 names: a scan beats a map's hashing).
  const values: (string | undefined)[] = new Array<string | undefined>(signed.length);
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    let at = signed.indexOf(name);
    if (at < 0) continue;
    const value = foldSpaces(rawHeaders[i + 1]!);
    // A name listed twice in SignedHeaders is given twice, as the signer gave it.
    for (; at >= 0; at = signed.indexOf(name, at + 1)) {
      const earlier = values[at];
      values[at] = earlier === undefined ? value : `${earlier},${value}`;
    }
  }
  let out = '';
  for (let at = 0; at < signed.length; at++) {
    const value = values[at];
    if (value === undefined)
      throw invalid(
        `the signed header '${signed[at]}' is not in the request: sign only headers that are sent`,
      );
    out += `${signed[at]}:${value}\n`;
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
 * HMACs; kept ready for the one HMAC each request then needs. The secret is kept with it, so a key is
 * used only with the secret it was derived from.
 */
const signingKeys = new Map<string, { secretAccessKey: string; key: HmacSha256Key }>();
const MAX_SIGNING_KEYS = 10_000;

function signingKey(claim: SignatureClaim, secretAccessKey: string): HmacSha256Key {
  // A remembered credential carries its key: most requests find it without a lookup.
  const credential = claim.credential;
  const carried = credential.signing;
  if (carried?.secretAccessKey === secretAccessKey) return carried.key;
  const id = `${credential.accessKeyId}/${credential.scope}`;
  let cached = signingKeys.get(id);
  if (cached?.secretAccessKey !== secretAccessKey) {
    cached = {
      secretAccessKey,
      key: new HmacSha256Key(
        hmac(
          hmac(hmac(hmac(`AWS4${secretAccessKey}`, credential.date), credential.region), SERVICE),
          'aws4_request',
        ),
      ),
    };
    if (signingKeys.size >= MAX_SIGNING_KEYS) signingKeys.clear();
    signingKeys.set(id, cached);
  }
  credential.signing = cached;
  return cached.key;
}

/** Room for the two signatures compared (64 hexadecimal digits each): no buffers made per request. */
const expectedBytes = Buffer.alloc(SIGNATURE_LENGTH);
const claimedBytes = Buffer.alloc(SIGNATURE_LENGTH);

/** Whether two signatures are equal, in a time that does not depend on where they differ. */
function sameSignature(expected: string, claimed: string): boolean {
  // Lengths are not secret; both are 64 characters whenever the form is right.
  if (expected.length !== SIGNATURE_LENGTH || claimed.length !== SIGNATURE_LENGTH) return false;
  expectedBytes.write(expected, 'latin1');
  claimedBytes.write(claimed, 'latin1');
  // Writing as latin1 keeps a character's low byte only: equal bytes are also checked as equal text.
  return timingSafeEqual(expectedBytes, claimedBytes) && expected === claimed;
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
  const query = q < 0 ? '' : canonicalQuery(request.url.slice(q + 1));
  const canonicalRequest = `${request.method}\n${path}\n${query}\n${canonicalHeaders(request.rawHeaders, claim.credential.signedHeaders)}\n${claim.credential.signedHeaderList}\n${bodyHash}`;
  const stringToSign = `${ALGORITHM}\n${claim.amzDate}\n${claim.credential.scope}\n${hash('sha256', canonicalRequest, 'hex')}`;
  const expected = signingKey(claim, secretAccessKey).hex(stringToSign);
  if (!sameSignature(expected, claim.signature)) {
    // A header read by its known credential is read again in full: text that is no signature is
    // refused as such.
    if (!SIGNATURE.test(claim.signature)) readSignature(request.headers, Date.now(), false);
    throw invalid(
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    );
  }
  if (claim.toRemember) remember(claim.toRemember);
}

/**
 * @module API tokens, kept in the store's key-value space under `typeplane:tokens`.
 *
 * A token is 256 random bits (`tp_` + base64url). Only its SHA-256 is stored, as the record's key:
 * a lookup by hash needs no secret comparison, so there is nothing to time, and a copy of the
 * database gives no usable token. A plain hash (no salt, no slow KDF) suits random secrets of this
 * size; it would not suit passwords. Tokens seen in the last second are remembered in memory by the
 * token itself: a Map compares two strings only once their hashes (seeded per process) match, so
 * answer times tell nothing usable about a token there either.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { TypeplaneError } from '../errors.js';
import { checkBurst, defaultBurst, parseRate } from '../fairness/index.js';
import type { KvEntry, Store } from '../store/index.js';
import type { AccessKeyPair, AccessKeys } from './access-keys.js';
import { isRole, parseTypeGlobs, type Principal, type Role } from './policy.js';

const NAMESPACE = 'typeplane:tokens';
/** Who makes the first admin token: one claim, inserted only if absent. */
const BOOTSTRAP_NAMESPACE = 'typeplane:bootstrap';
const FIRST_ADMIN = 'first-admin-token';
const STALE_CLAIM_MS = 60_000;
const WRITTEN_BY = 'typeplane:auth';
const PAGE = 100;

/** What is stored and listed about a token: never the token itself. */
export interface TokenRecord {
  id: string;
  role: Role;
  types?: string[];
  description?: string;
  createdAt: string;
  /** The id of the AWS-style access key pair issued with the token (`--aws-keys`), if any. */
  accessKeyId?: string;
  /** The token's own rate, in requests per second, and burst (see src/fairness); absent: no rate of its own. */
  rate?: number;
  burst?: number;
}

/**
 * Bearer token syntax (RFC 6750 `b64token`). Tokens Typeplane makes are `tp_` + 43 characters;
 * `TYPEPLANE_ADMIN_TOKEN` may be any such string of at least 32 characters.
 */
const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/;
export const MIN_TOKEN_LENGTH = 32;
const MAX_TOKEN_LENGTH = 512;

/** An admin token given to start with (TYPEPLANE_ADMIN_TOKEN) must be long and of token syntax. */
export function checkAdminToken(adminToken: string): void {
  if (adminToken.length < MIN_TOKEN_LENGTH || !isTokenSyntax(adminToken))
    throw new Error(
      `cannot start: the admin token (TYPEPLANE_ADMIN_TOKEN) must be at least ${MIN_TOKEN_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + /; 'typeplane serve' prints a generated one on first start`,
    );
}

export function isTokenSyntax(token: string): boolean {
  return token.length <= MAX_TOKEN_LENGTH && TOKEN_SYNTAX.test(token);
}

export function generateToken(): string {
  return `tp_${randomBytes(32).toString('base64url')}`;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function toRecord(value: unknown): TokenRecord | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string' || !isRole(v.role) || typeof v.createdAt !== 'string') return undefined;
  return {
    id: v.id,
    role: v.role,
    ...(Array.isArray(v.types) ? { types: v.types.filter((t): t is string => typeof t === 'string') } : {}),
    ...(typeof v.description === 'string' ? { description: v.description } : {}),
    createdAt: v.createdAt,
    ...(typeof v.accessKeyId === 'string' ? { accessKeyId: v.accessKeyId } : {}),
    ...(typeof v.rate === 'number' && typeof v.burst === 'number' ? { rate: v.rate, burst: v.burst } : {}),
  };
}

function principalOf(record: TokenRecord): Principal {
  return {
    tokenId: record.id,
    role: record.role,
    ...(record.types ? { types: record.types } : {}),
    ...(record.description !== undefined ? { description: record.description } : {}),
    ...(record.rate !== undefined ? { rate: record.rate, burst: record.burst! } : {}),
  };
}

/**
 * A token's limits as given (`rate`: `100/s`, `6000/m`, a number per second, or null for none;
 * `burst`: a whole number, twice the rate by default), checked; undefined when neither is given.
 */
function limitsOf(
  rate: unknown,
  burst: unknown,
  current?: TokenRecord,
): { rate: number; burst: number } | null | undefined {
  if (rate === undefined && burst === undefined) return undefined;
  if (rate === null) {
    if (burst !== undefined)
      throw new TypeplaneError('InvalidRequest', 'a burst needs a rate: give both, or rate null alone');
    return null;
  }
  const perSecond =
    rate === undefined
      ? current?.rate
      : typeof rate === 'number'
        ? parseRate(String(rate))
        : typeof rate === 'string'
          ? parseRate(rate)
          : parseRate(JSON.stringify(rate) ?? '');
  if (perSecond === undefined)
    throw new TypeplaneError('InvalidRequest', 'a burst needs a rate: this token has none; give --rate too');
  return { rate: perSecond, burst: burst === undefined ? defaultBurst(perSecond) : checkBurst(burst) };
}

function entry(record: TokenRecord): KvEntry {
  return { value: { ...record }, writtenBy: WRITTEN_BY };
}

export interface NewToken {
  role: Role;
  /** Type globs, a list whose items may be comma-separated; checked by `parseTypeGlobs`. */
  types?: unknown;
  description?: string;
  /** Also issue an access key pair acting as the token, for requests signed with SigV4. */
  accessKey?: boolean;
  /** Requests per second of its own (`100/s`, `6000/m`, or a number) and burst; see src/fairness. */
  rate?: unknown;
  burst?: unknown;
}

/** A change to a token's limits: a rate and burst, or `rate: null` to drop its own rate. */
export interface TokenLimits {
  rate?: unknown;
  burst?: unknown;
}

/**
 * Known tokens are remembered this long, so a busy client does not cost a store read per request;
 * a revocation reaches other replicas within it (this one forgets at once).
 */
const CACHE_MS = 1000;
const CACHE_MAX = 10_000;

export class Tokens {
  /**
   * By the token as sent: a hit costs no hashing. The token is in this process's memory while its
   * request is anyway; what is stored, listed or logged is never the token.
   */
  private readonly known = new Map<string, { principal: Principal; key: string; until: number }>();
  /** Access keys found in the last second, by key id, as tokens are (their secret is in memory while in use anyway). */
  private readonly knownKeys = new Map<
    string,
    { principal: Principal; secretAccessKey: string; key: string; until: number }
  >();

  /** Without `accessKeys` (the server's sealer is needed), no access key pair can be issued. */
  constructor(
    private readonly store: Store,
    private readonly accessKeys?: AccessKeys,
  ) {}

  /**
   * Create a token (and an access key pair when asked); the returned secrets are the only time they
   * exist outside the caller.
   */
  async create(input: NewToken): Promise<{ token: string; record: TokenRecord; accessKey?: AccessKeyPair }> {
    if (input.accessKey === true && !this.accessKeys)
      throw new TypeplaneError('InternalFailure', 'this server cannot issue access keys');
    const token = generateToken();
    if (input.accessKey !== true) return { token, record: await this.save(token, input) };
    // The key pair first: a token record never names a key pair that is not there.
    const accessKey = await this.accessKeys!.issue(hashToken(token));
    try {
      return { token, record: await this.save(token, input, accessKey.accessKeyId), accessKey };
    } catch (e) {
      await this.accessKeys!.remove(accessKey.accessKeyId);
      throw e;
    }
  }

  /**
   * The principal an access key id stands for and its secret (to verify a signature with), or
   * undefined for an unknown key or one whose token was revoked.
   */
  async authenticateAccessKey(
    accessKeyId: string,
  ): Promise<{ principal: Principal; secretAccessKey: string } | undefined> {
    const cached = this.recentAccessKey(accessKeyId);
    if (cached) return cached;
    const found = await this.accessKeys?.find(accessKeyId);
    const record = found && toRecord((await this.store.kvGet(NAMESPACE, found.tokenKey))?.value);
    if (!found || !record || record.accessKeyId !== accessKeyId) {
      this.knownKeys.delete(accessKeyId);
      return undefined;
    }
    const entry = {
      principal: principalOf(record),
      secretAccessKey: found.secretAccessKey,
      key: found.tokenKey,
      until: Date.now() + CACHE_MS,
    };
    if (this.knownKeys.size >= CACHE_MAX) this.knownKeys.clear();
    this.knownKeys.set(accessKeyId, entry);
    return entry;
  }

  /** The principal a token stands for, or undefined for an unknown token. */
  async authenticate(token: string): Promise<Principal | undefined> {
    const cached = this.recent(token);
    if (cached) return cached;
    if (!isTokenSyntax(token)) return undefined;
    const key = hashToken(token);
    const found = await this.store.kvGet(NAMESPACE, key);
    const record = toRecord(found?.value);
    if (!record) {
      this.known.delete(token);
      return undefined;
    }
    const principal = principalOf(record);
    if (this.known.size >= CACHE_MAX) this.known.clear();
    this.known.set(token, { principal, key, until: Date.now() + CACHE_MS });
    return principal;
  }

  /** An access key found in the store less than a second ago; undefined otherwise. */
  recentAccessKey(accessKeyId: string): { principal: Principal; secretAccessKey: string } | undefined {
    const cached = this.knownKeys.get(accessKeyId);
    return cached && cached.until > Date.now() ? cached : undefined;
  }

  /** The principal of a token found in the store less than a second ago; undefined otherwise. */
  recent(token: string): Principal | undefined {
    const cached = this.known.get(token);
    return cached && cached.until > Date.now() ? cached.principal : undefined;
  }

  async list(): Promise<TokenRecord[]> {
    return (await this.entries()).map((e) => e.record);
  }

  /**
   * Sets or drops a token's own rate and burst; undefined when no token has this id. The change
   * reaches requests within a second (the time a token is remembered), on every replica.
   */
  async limit(id: string, change: TokenLimits): Promise<TokenRecord | undefined> {
    const found = (await this.entries()).find((e) => e.record.id === id);
    if (!found) return undefined;
    const limits = limitsOf(change.rate, change.burst, found.record);
    if (limits === undefined)
      throw new TypeplaneError('InvalidRequest', 'give a rate, a burst, or rate null (no rate of its own)');
    const { rate: _rate, burst: _burst, ...rest } = found.record;
    const record: TokenRecord = { ...rest, ...(limits ? limits : {}) };
    await this.store.kvReplace(NAMESPACE, found.key, entry(record));
    for (const [token, cached] of this.known) if (cached.key === found.key) this.known.delete(token);
    if (record.accessKeyId !== undefined) this.knownKeys.delete(record.accessKeyId);
    return record;
  }

  /** False when no token has this id. */
  async revoke(id: string): Promise<boolean> {
    const found = (await this.entries()).find((e) => e.record.id === id);
    if (!found) return false;
    for (const [token, cached] of this.known) if (cached.key === found.key) this.known.delete(token);
    const deleted = await this.store.kvDelete(NAMESPACE, found.key);
    // The key pair stops working with the token record gone; its sealed secret goes too.
    if (found.record.accessKeyId !== undefined) {
      this.knownKeys.delete(found.record.accessKeyId);
      await this.accessKeys?.remove(found.record.accessKeyId);
    }
    return deleted;
  }

  /**
   * At start: with `adminToken` (from `TYPEPLANE_ADMIN_TOKEN`), make sure it is an admin token and
   * answer nothing new; without it, create an admin token only when no token exists at all, and
   * answer it so it can be shown once.
   */
  async bootstrap(adminToken?: string): Promise<string | undefined> {
    if (adminToken !== undefined) {
      checkAdminToken(adminToken);
      const key = hashToken(adminToken);
      const existing = toRecord((await this.store.kvGet(NAMESPACE, key))?.value);
      if (existing?.role === 'admin' && existing.types === undefined) return undefined;
      const record: TokenRecord = {
        id: existing?.id ?? randomUUID(),
        role: 'admin',
        description: 'from TYPEPLANE_ADMIN_TOKEN',
        createdAt: existing?.createdAt ?? new Date().toISOString(),
      };
      if (existing) await this.store.kvReplace(NAMESPACE, key, entry(record));
      else await this.store.kvInsert(NAMESPACE, key, entry(record));
      return undefined;
    }
    const first = await this.store.kvList(NAMESPACE, { limit: 1 });
    if (first.items.length > 0) return undefined;
    // Replicas starting together on an empty store: only the one whose claim goes in makes the token.
    const claim: KvEntry = { value: { claimedAt: new Date().toISOString() }, writtenBy: WRITTEN_BY };
    if (!(await this.store.kvInsert(BOOTSTRAP_NAMESPACE, FIRST_ADMIN, claim))) {
      const earlier = await this.store.kvGet(BOOTSTRAP_NAMESPACE, FIRST_ADMIN);
      const age = Date.now() - Date.parse(String(earlier?.value.claimedAt));
      // A claim this old with no token behind it was left by a first start that died half-way.
      if (!(age > STALE_CLAIM_MS)) return undefined;
      await this.store.kvReplace(BOOTSTRAP_NAMESPACE, FIRST_ADMIN, claim);
    }
    return (await this.create({ role: 'admin', description: 'first admin token' })).token;
  }

  private async save(token: string, input: NewToken, accessKeyId?: string): Promise<TokenRecord> {
    if (!isRole(input.role))
      throw new TypeplaneError('InvalidRequest', 'role must be admin, writer, reader or monitor');
    const types = input.types === undefined ? undefined : parseTypeGlobs(input.types);
    if (types && (input.role === 'admin' || input.role === 'monitor'))
      throw new TypeplaneError(
        'InvalidRequest',
        input.role === 'admin'
          ? 'an admin token reaches every type; scope writer and reader tokens with types'
          : 'a monitor token reaches no type (it reads the metrics only); scope writer and reader tokens with types',
      );
    if (
      input.description !== undefined &&
      (typeof input.description !== 'string' || input.description.length > 256)
    )
      throw new TypeplaneError('InvalidRequest', 'description must be a string of at most 256 characters');
    const limits = limitsOf(input.rate, input.burst);
    const record: TokenRecord = {
      id: randomUUID(),
      role: input.role,
      ...(types ? { types } : {}),
      ...(input.description ? { description: input.description } : {}),
      createdAt: new Date().toISOString(),
      ...(accessKeyId !== undefined ? { accessKeyId } : {}),
      ...(limits ? limits : {}),
    };
    if (!(await this.store.kvInsert(NAMESPACE, hashToken(token), entry(record))))
      throw new TypeplaneError('InternalFailure', 'token collision; try again');
    return record;
  }

  private async entries(): Promise<{ key: string; record: TokenRecord }[]> {
    const all: { key: string; record: TokenRecord }[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.store.kvList(NAMESPACE, { limit: PAGE, ...(nextToken ? { nextToken } : {}) });
      for (const item of page.items) {
        const record = toRecord(item.entry.value);
        if (record) all.push({ key: item.key, record });
      }
      nextToken = page.nextToken;
    } while (nextToken);
    return all.sort((a, b) => a.record.createdAt.localeCompare(b.record.createdAt));
  }
}

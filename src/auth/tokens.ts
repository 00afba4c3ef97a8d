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
import type { KvEntry, Store } from '../store/index.js';
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
  };
}

function entry(record: TokenRecord): KvEntry {
  return { value: { ...record }, writtenBy: WRITTEN_BY };
}

export interface NewToken {
  role: Role;
  /** Type globs, a list whose items may be comma-separated; checked by `parseTypeGlobs`. */
  types?: unknown;
  description?: string;
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

  constructor(private readonly store: Store) {}

  /** Create a token; the returned `token` is the only time the secret exists outside the caller. */
  async create(input: NewToken): Promise<{ token: string; record: TokenRecord }> {
    const token = generateToken();
    const record = await this.save(token, input);
    return { token, record };
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
    const principal: Principal = {
      tokenId: record.id,
      role: record.role,
      ...(record.types ? { types: record.types } : {}),
    };
    if (this.known.size >= CACHE_MAX) this.known.clear();
    this.known.set(token, { principal, key, until: Date.now() + CACHE_MS });
    return principal;
  }

  /** The principal of a token found in the store less than a second ago; undefined otherwise. */
  recent(token: string): Principal | undefined {
    const cached = this.known.get(token);
    return cached && cached.until > Date.now() ? cached.principal : undefined;
  }

  async list(): Promise<TokenRecord[]> {
    return (await this.entries()).map((e) => e.record);
  }

  /** False when no token has this id. */
  async revoke(id: string): Promise<boolean> {
    const found = (await this.entries()).find((e) => e.record.id === id);
    if (!found) return false;
    for (const [token, cached] of this.known) if (cached.key === found.key) this.known.delete(token);
    return this.store.kvDelete(NAMESPACE, found.key);
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

  private async save(token: string, input: NewToken): Promise<TokenRecord> {
    if (!isRole(input.role))
      throw new TypeplaneError('InvalidRequest', 'role must be admin, writer or reader');
    const types = input.types === undefined ? undefined : parseTypeGlobs(input.types);
    if (types && input.role === 'admin')
      throw new TypeplaneError(
        'InvalidRequest',
        'an admin token reaches every type; scope writer and reader tokens with types',
      );
    if (
      input.description !== undefined &&
      (typeof input.description !== 'string' || input.description.length > 256)
    )
      throw new TypeplaneError('InvalidRequest', 'description must be a string of at most 256 characters');
    const record: TokenRecord = {
      id: randomUUID(),
      role: input.role,
      ...(types ? { types } : {}),
      ...(input.description ? { description: input.description } : {}),
      createdAt: new Date().toISOString(),
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

/**
 * @module What a token may do: its role's actions and the types its globs reach. Pure functions.
 *
 * Roles are ordered: `admin` (everything, including types and tokens) > `writer` (resources and
 * requests, read and write; types read-only) > `reader` (reads only). `monitor` stands apart: it
 * reads the metrics (`GET /metrics`) and nothing else, so a scraper's token reaches no tenant's data.
 *
 * Type globs are matched against the whole type name, case-sensitively. `*` matches any run of
 * characters, separators included, so `AWS::S3::*` reaches every S3 type, `AWS::*` every AWS type
 * and `Applications.Datastores/*` every type of that Radius namespace; every other character matches
 * itself. A token without globs reaches every type.
 */
import { TypeplaneError } from '../errors.js';

export const ROLES = ['admin', 'writer', 'reader', 'monitor'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Who is calling: the token's record, without its secret. */
export interface Principal {
  tokenId: string;
  role: Role;
  /** Type globs; absent means every type. */
  types?: string[];
  /** The token's description, as its creator wrote it (what admission policies see of who asks). */
  description?: string;
  /** The token's own rate, in requests per second, and burst, when it has them (see src/fairness). */
  rate?: number;
  burst?: number;
}

/** What a route does, for the role check. */
export type Action =
  | 'read' // GET anything a token may see
  | 'write' // create/update/delete resources, cancel requests
  | 'read-metrics' // GET /metrics
  | 'manage-types' // register and deregister types
  | 'manage-tokens' // create, list and revoke tokens
  | 'read-audit' // read the audit trail (GET /v1/audit)
  | 'manage-policies' // create, replace and delete admission policies
  | 'back-up'; // take a backup of the whole store

const ALLOWED: Record<Role, ReadonlySet<Action>> = {
  admin: new Set<Action>([
    'read-metrics',
    'read',
    'write',
    'manage-types',
    'manage-tokens',
    'read-audit',
    'manage-policies',
    'back-up',
  ]),
  writer: new Set<Action>(['read', 'write']),
  reader: new Set<Action>(['read']),
  monitor: new Set<Action>(['read-metrics']),
};

export function roleAllows(role: Role, action: Action): boolean {
  return ALLOWED[role].has(action);
}

/** Characters a glob may hold: those of type names (`::`, `.`, `/`, alphanumerics) and `*`. */
const GLOB_PATTERN = /^[A-Za-z0-9_.:/*-]{1,256}$/;
export const MAX_GLOBS = 64;

/**
 * Check and normalise globs given as a list whose items may be comma-separated
 * (`--types 'AWS::S3::*,AWS::SQS::*'` or repeated `--types`). Throws InvalidRequest.
 */
export function parseTypeGlobs(raw: unknown): string[] {
  const items = Array.isArray(raw) ? raw : [raw];
  const globs: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string')
      throw new TypeplaneError('InvalidRequest', 'types must be a list of type-name globs (strings)');
    for (const part of item.split(',').map((p) => p.trim())) {
      if (part === '') continue;
      if (!GLOB_PATTERN.test(part))
        throw new TypeplaneError(
          'InvalidRequest',
          `'${part}' is not a type glob: use the characters of type names and '*' (like 'AWS::S3::*')`,
        );
      if (!globs.includes(part)) globs.push(part);
    }
  }
  if (globs.length === 0)
    throw new TypeplaneError('InvalidRequest', 'types, when given, must name at least one glob');
  if (globs.length > MAX_GLOBS) throw new TypeplaneError('InvalidRequest', `at most ${MAX_GLOBS} type globs`);
  return globs;
}

/**
 * Whether `glob` matches the whole of `typeName`. The glob is split at its stars: the first piece
 * must start the name, the last must end it, and each piece between is found at its leftmost place
 * after the previous one (leftmost is always right when `*` is the only wildcard). No backtracking:
 * each piece is searched once, so the cost is at most the glob's length times the name's.
 */
export function globMatches(glob: string, typeName: string): boolean {
  const pieces = glob.split('*');
  if (pieces.length === 1) return glob === typeName;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (first.length + last.length > typeName.length) return false;
  if (!typeName.startsWith(first) || !typeName.endsWith(last)) return false;
  let at = first.length;
  const end = typeName.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    if (piece === '') continue;
    const found = typeName.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** Whether globs reach `typeName` (always, without globs). */
function globsReach(types: readonly string[] | undefined, typeName: string): boolean {
  return types === undefined || types.some((g) => globMatches(g, typeName));
}

/** Whether the principal's globs reach `typeName` (always, for a token without globs). */
export function typeVisible(principal: Principal, typeName: string): boolean {
  return globsReach(principal.types, typeName);
}

/**
 * The principal as the engine's caller of a change: its token's id keeps its client tokens its own,
 * its globs bound the types its models may refer to, and its role and description are what admission
 * policies and hooks are told of who asks (with the stack, when a stack's deployment makes the change).
 */
export function callerOf(principal: {
  tokenId: string;
  types?: readonly string[] | undefined;
  role?: string | undefined;
  description?: string | undefined;
  stack?: string | undefined;
}): { id: string; canSee(typeName: string): boolean; role?: string; description?: string; stack?: string } {
  const { tokenId, types, role, description, stack } = principal;
  return {
    id: tokenId,
    canSee: (typeName) => globsReach(types, typeName),
    ...(role !== undefined ? { role } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(stack !== undefined ? { stack } : {}),
  };
}

export function accessDenied(message: string): TypeplaneError {
  return new TypeplaneError('AccessDenied', message);
}

/** Throws AccessDenied when the principal's globs do not reach `typeName`. */
export function assertTypeVisible(principal: Principal, typeName: string): void {
  if (!typeVisible(principal, typeName))
    throw accessDenied(`this token is scoped to other types and cannot reach ${typeName}`);
}

/**
 * Throws AccessDenied when the principal's globs do not reach the type of the operation a request
 * token names. The caller named only the token, so the refusal names nothing (not the type).
 */
export function assertRequestVisible(principal: Principal, typeName: string): void {
  if (!typeVisible(principal, typeName))
    throw accessDenied('this token is scoped to other types and cannot reach this request');
}

/**
 * @module An operation's input members, read strictly: each member's type and bounds as Cloud
 * Control's service model gives them, unknown members refused by name, JSON documents (DesiredState,
 * PatchDocument, ResourceModel) parsed with the bounds of every request body.
 */
import { createHash } from 'node:crypto';
import { TypeplaneError } from '../errors.js';
import { parseJsonBody } from '../http/index.js';
import { CloudControlError } from './errors.js';

function bad(message: string): CloudControlError {
  return new CloudControlError('InvalidRequestException', message);
}

/** An operation's request body, its members checked against the names the operation has. */
export class Input {
  constructor(
    private readonly operation: string,
    private readonly body: Record<string, unknown>,
    members: readonly string[],
  ) {
    const unknown = Object.keys(body).filter((k) => !members.includes(k));
    if (unknown.length > 0)
      throw bad(
        `${operation} has no member${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k.slice(0, 64)}'`).join(', ')}; its members are ${members.join(', ')}`,
      );
  }

  /** A string member of 1 to `max` characters; undefined when absent and not `required`. */
  string(name: string, max: number, required: true): string;
  string(name: string, max: number, required?: false): string | undefined;
  string(name: string, max: number, required = false): string | undefined {
    const value = this.body[name];
    if (value === undefined || value === null) {
      if (required) throw bad(`${this.operation} needs ${name}`);
      return undefined;
    }
    if (typeof value !== 'string' || value.length === 0 || value.length > max)
      throw bad(`${name} must be a string of 1 to ${max} characters`);
    // No name, identifier or token holds U+0000 (nor can PostgreSQL text), as the /v1 API refuses it
    // in a path; a JSON document's text cannot hold one unescaped either.
    if (value.includes('\u0000')) throw bad(`${name} contains U+0000 (NUL), which none holds`);
    return value;
  }

  /** MaxResults: a whole number from 1 to `max`. */
  maxResults(max: number): number | undefined {
    const value = this.body.MaxResults;
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max)
      throw bad(`MaxResults must be a whole number from 1 to ${max}`);
    return value;
  }

  /** A member holding a JSON document as text, parsed. */
  json(name: string, max: number, required: true): unknown;
  json(name: string, max: number, required?: false): unknown;
  json(name: string, max: number, required = false): unknown {
    const text = required ? this.string(name, max, true) : this.string(name, max);
    if (text === undefined) return undefined;
    try {
      return parseJsonBody(text);
    } catch (e) {
      if (e instanceof TypeplaneError)
        throw bad(`${name} must be a JSON document as a string: ${e.message.replace(/^request body /, '')}`);
      throw e;
    }
  }

  /** An object member (ResourceRequestStatusFilter). */
  object(name: string): Record<string, unknown> | undefined {
    const value = this.body[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) throw bad(`${name} must be an object`);
    return value as Record<string, unknown>;
  }

  /**
   * ClientToken, as the engine keeps client tokens. Cloud Control's may hold `+`, `/` and `=`, which
   * the engine's do not: such a token is kept as `cc:` and its SHA-256 (`:` never occurs in a Cloud
   * Control token, so no token sent as it is can meet one made so).
   */
  clientToken(): string | undefined {
    const token = this.string('ClientToken', 128);
    if (token === undefined) return undefined;
    if (!/^[-A-Za-z0-9+/=]+$/.test(token))
      throw bad('ClientToken must be 1 to 128 characters of letters, digits, -, +, / and =');
    return /^[-A-Za-z0-9]+$/.test(token)
      ? token
      : `cc:${createHash('sha256').update(token).digest('base64url')}`;
  }
}

/** A list of strings, each one of `allowed` (a filter's Operations or OperationStatuses). */
export function enumList<T extends string>(
  name: string,
  value: unknown,
  allowed: readonly T[],
): T[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !allowed.includes(v as T)))
    throw bad(`${name} must be a list of ${allowed.join(', ')}`);
  return value as T[];
}

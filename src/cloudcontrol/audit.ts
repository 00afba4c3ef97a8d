/**
 * @module What the audit trail records of the Cloud Control front door: its changes
 * (CreateResource, UpdateResource, DeleteResource, CancelResourceRequest) whatever their outcome, and
 * its refusals of a caller (an unknown key, a bad signature, a role that does not allow the action)
 * whatever the action, each with the access key's token id. The request's body is not recorded (its
 * DesiredState and PatchDocument are strings that may hold write-only values); its type, identifier
 * and request token are.
 */
import { verdictAnnotations, type AnsweredRequest } from '../audit/index.js';
import type { Verdict } from '../verdict.js';
import type { Principal } from '../auth/index.js';

const CHANGES: Record<string, string> = {
  CreateResource: 'create',
  UpdateResource: 'update',
  DeleteResource: 'delete',
  CancelResourceRequest: 'cancel',
};

/** The verbs of the actions that read, for their refusals. */
const READS: Record<string, string> = {
  GetResource: 'get',
  GetResourceRequestStatus: 'get',
  ListResources: 'list',
  ListResourceRequests: 'list',
};

/** Refusals of who the caller is or what its role allows (Cloud Control's names for 401 and 403). */
const REFUSALS = new Set([
  'AccessDeniedException',
  'IncompleteSignatureException',
  'InvalidCredentialsException',
  'InvalidSignatureException',
  'MissingAuthenticationTokenException',
  'UnrecognizedClientException',
]);

/** Whether `action` changes something: it runs only once its record can be taken. */
export function isChange(action: string): boolean {
  return Object.hasOwn(CHANGES, action);
}

export interface CloudControlExchange {
  id: string;
  url: string;
  action: string;
  principal?: Principal;
  sourceIP?: string;
  userAgent?: string;
  /** The request's body as read (its names are looked up; nothing else of it is kept). */
  bytes?: Buffer;
  status: number;
  /** The answer: a 200 body, or `{ __type, message }`. */
  answer: unknown;
  receivedAt: number;
  /** What the change's review said, Audit verdicts included. */
  verdicts?: readonly Verdict[];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function fieldsOf(bytes: Buffer | undefined): Record<string, unknown> {
  try {
    const body: unknown = bytes && bytes.length > 0 ? JSON.parse(bytes.toString('utf8')) : {};
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The record of an answered request; undefined when it is neither a change nor a refusal of the caller. */
export function recordOf(exchange: CloudControlExchange): AnsweredRequest | undefined {
  const answer = (exchange.answer ?? {}) as { __type?: unknown; message?: unknown; ProgressEvent?: unknown };
  const errorCode = text(answer.__type);
  const change = isChange(exchange.action);
  if (!change && !(errorCode !== undefined && REFUSALS.has(errorCode))) return undefined;
  const body = fieldsOf(exchange.bytes);
  const event = (answer.ProgressEvent ?? {}) as Record<string, unknown>;
  const typeName = text(body.TypeName) ?? text(event.TypeName);
  const identifier = text(body.Identifier) ?? text(event.Identifier);
  const requestToken = text(event.RequestToken) ?? text(body.RequestToken);
  const principal = exchange.principal;
  return {
    requestID: exchange.id,
    method: 'POST',
    url: exchange.url,
    verb: CHANGES[exchange.action] ?? READS[exchange.action] ?? 'unknown',
    objectRef: {
      resource: exchange.action === 'CancelResourceRequest' ? 'requests' : 'resources',
      ...(typeName !== undefined ? { typeName } : {}),
      ...(identifier !== undefined ? { identifier } : {}),
      ...(requestToken !== undefined ? { requestToken } : {}),
    },
    user: principal
      ? { tokenId: principal.tokenId, role: principal.role, authentication: 'sigv4' }
      : { authentication: 'sigv4' },
    ...(exchange.sourceIP !== undefined ? { sourceIP: exchange.sourceIP } : {}),
    ...(exchange.userAgent !== undefined ? { userAgent: exchange.userAgent } : {}),
    status: exchange.status,
    ...(errorCode !== undefined ? { errorCode } : {}),
    ...(errorCode !== undefined && typeof answer.message === 'string' ? { message: answer.message } : {}),
    receivedAt: exchange.receivedAt,
    annotations: {
      'cloudcontrol.action': exchange.action.slice(0, 64),
      ...verdictAnnotations(exchange.verdicts),
    },
  };
}

/**
 * @module The provider protocol's messages (docs/provider-protocol.md): the HandlerRequest Typeplane
 * sends, and the checks a ProgressEvent answer must pass before the engine sees it.
 *
 * The JSON Schemas in docs/provider-protocol/ are the definition; the answer is validated against
 * `progress-event.schema.json` itself, read and compiled once, so the document and the client cannot
 * drift apart.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Model } from '../../model/index.js';
import type { HandlerAction, HandlerEvent, HandlerRequest } from '../../handler/index.js';

/**
 * The version sent in the `Typeplane-Protocol-Version` header: `major.minor`. A minor version only
 * adds fields (1.1: `typeConfiguration`), which providers written for an earlier one ignore.
 */
export const PROTOCOL_VERSION = '1.1';

export type WireAction = 'CREATE' | 'READ' | 'UPDATE' | 'DELETE' | 'LIST';

export const WIRE_ACTION: Record<HandlerAction, WireAction> = {
  create: 'CREATE',
  read: 'READ',
  update: 'UPDATE',
  delete: 'DELETE',
  list: 'LIST',
};

/** The request body; see handler-request.schema.json. Fields that do not apply are null, never absent. */
export interface HandlerRequestMessage {
  action: WireAction;
  typeName: string;
  requestData: { resourceProperties: Model; previousResourceProperties: Model | null };
  callbackContext: Record<string, unknown> | null;
  clientRequestToken: string;
  nextToken: string | null;
  maxResults: number | null;
  /** Since 1.1: the type's configuration, or null when it takes none or none is set. */
  typeConfiguration: Record<string, unknown> | null;
}

/** The answer as it may arrive; see progress-event.schema.json (null and absent mean the same). */
interface ProgressEventMessage {
  status: HandlerEvent['status'];
  resourceModel?: Model | null;
  resourceModels?: Model[] | null;
  nextToken?: string | null;
  callbackContext?: Record<string, unknown> | null;
  callbackDelaySeconds?: number | null;
  errorCode?: HandlerEvent['errorCode'] | null;
  message?: string | null;
}

export function requestMessage(action: HandlerAction, request: HandlerRequest): HandlerRequestMessage {
  return {
    action: WIRE_ACTION[action],
    typeName: request.typeName,
    requestData: {
      resourceProperties: request.desiredState,
      previousResourceProperties: action === 'update' ? (request.previousState ?? null) : null,
    },
    callbackContext: request.callbackContext ?? null,
    clientRequestToken: request.clientRequestToken,
    nextToken: action === 'list' ? (request.nextToken ?? null) : null,
    maxResults: action === 'list' ? (request.maxResults ?? null) : null,
    typeConfiguration: request.typeConfiguration ?? null,
  };
}

let validateEvent: ValidateFunction | undefined;

/** The compiled answer schema (compiled on first use, then shared). */
function eventValidator(): ValidateFunction {
  validateEvent ??= protocolSchemaValidator('progress-event.schema.json');
  return validateEvent;
}

/** One of docs/provider-protocol/'s schemas, read and compiled: the document is the definition. */
export function protocolSchemaValidator(fileName: string): ValidateFunction {
  // docs/ is at the package root, three levels above this file both in src/ and in dist/.
  const file = new URL(`../../../docs/provider-protocol/${fileName}`, import.meta.url);
  let schema: Record<string, unknown>;
  try {
    schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new Error(
      `cannot read the provider protocol's schema ${fileURLToPath(file)}: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
  return new Ajv({ allErrors: true }).compile(schema);
}

/** Load and compile the answer schema now, so that a missing or broken file shows at start. */
export function loadEventSchema(): void {
  eventValidator();
}

/** Most characters of a provider's message passed on (it ends up in operation records). */
const MAX_MESSAGE_LENGTH = 2000;

/**
 * The answer as a HandlerEvent, or what is wrong with it. Beyond the schema, checks what depends on the
 * action: READ and LIST answer at once (never IN_PROGRESS), a LIST SUCCESS has `resourceModels`.
 */
export function parseEvent(
  action: HandlerAction,
  body: Buffer,
): { event: HandlerEvent; problem?: never } | { problem: string; event?: never } {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    // The parser's message quotes the text, which may be anything the provider echoed: leave it out.
    return { problem: `an answer that is not JSON (${body.length} bytes)` };
  }
  const validate = eventValidator();
  if (!validate(value))
    return { problem: `an answer that is not a ProgressEvent: ${schemaErrors(validate.errors)}` };
  const answer = value as ProgressEventMessage;
  const wire = WIRE_ACTION[action];
  if (answer.status === 'IN_PROGRESS' && (action === 'read' || action === 'list')) {
    return { problem: `IN_PROGRESS to ${wire}; READ and LIST must answer SUCCESS or FAILED at once` };
  }
  if (answer.status === 'SUCCESS' && action === 'list' && !Array.isArray(answer.resourceModels)) {
    return { problem: 'SUCCESS to LIST without resourceModels' };
  }
  const event: HandlerEvent = { status: answer.status };
  if (answer.status === 'FAILED') event.errorCode = answer.errorCode!;
  // Passed on as answered, a model on a successful delete included: the engine ignores it (the delete
  // is done), and `typeplane test` must see it to fail the provider for it.
  if (answer.resourceModel != null) event.resourceModel = answer.resourceModel;
  if (action === 'list') {
    if (answer.resourceModels != null) event.resourceModels = answer.resourceModels;
    event.nextToken = answer.nextToken ?? null;
  }
  if (answer.status === 'IN_PROGRESS') {
    event.callbackContext = answer.callbackContext ?? {};
    event.callbackDelaySeconds = answer.callbackDelaySeconds ?? 0;
  }
  if (answer.message != null) event.message = truncate(answer.message, MAX_MESSAGE_LENGTH);
  return { event };
}

export function schemaErrors(errors: ErrorObject[] | null | undefined): string {
  const list = (errors ?? [])
    // `if`/`then` failures repeat what the failing `then` keyword already said.
    .filter((e) => e.keyword !== 'if')
    .map((e) => {
      const where = e.instancePath || '/';
      if (e.keyword === 'additionalProperties')
        return `${where} has an unknown field ${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)}`;
      if (e.keyword === 'enum')
        return `${where} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.filter((v) => v !== null).join(', ')}`;
      return `${where} ${e.message ?? e.keyword}`;
    });
  const shown = list.slice(0, 5).join('; ');
  return list.length > 5 ? `${shown}; and ${list.length - 5} more` : shown;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

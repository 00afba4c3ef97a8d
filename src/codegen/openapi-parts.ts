/**
 * @module Pieces the OpenAPI document's paths share: references, JSON bodies, the error answers and
 * common parameters.
 */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: unknown, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
/** A JSON request body. */
export const body = (schema: unknown, required = true) => ({
  required,
  content: { 'application/json': { schema } },
});
/** A template check's answer (a stack's validate, a recipe's check): the template's problems as diagnostics. */
export const verdict = (diagnostic: unknown) => ({
  type: 'object',
  required: ['valid', 'diagnostics', 'types'],
  properties: {
    valid: { type: 'boolean' },
    diagnostics: { type: 'array', items: diagnostic },
    types: { type: 'array', items: { type: 'string' } },
  },
});
export const ERROR_RESPONSES = {
  '400': { $ref: '#/components/responses/Error' },
  '401': { $ref: '#/components/responses/Error' },
  '403': { $ref: '#/components/responses/Error' },
  '404': { $ref: '#/components/responses/Error' },
  '409': { $ref: '#/components/responses/Error' },
  '429': { $ref: '#/components/responses/Error' },
  '500': { $ref: '#/components/responses/Error' },
  default: { $ref: '#/components/responses/Error' },
};
export const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});
export const WAIT = {
  name: 'wait',
  in: 'query',
  description: 'Seconds (at most 300) to wait for the operation to finish before answering.',
  schema: { type: 'number', minimum: 0, maximum: 300 },
};
export const PAGE = [
  { name: 'maxResults', in: 'query', schema: { type: 'integer', minimum: 1 } },
  { name: 'nextToken', in: 'query', schema: { type: 'string' } },
];
/** A list route's watch (docs/watch.md): its query parameters, and its answer beside the page's. */
export const WATCH = [
  {
    name: 'watch',
    in: 'query',
    description:
      'true: stream the changes instead of answering a page — Server-Sent Events with Accept: text/event-stream, NDJSON with application/x-ndjson or application/json;stream=watch. The list filters narrow the watch; maxResults and nextToken are refused.',
    schema: { enum: ['true', 'false', '1', '0'] },
  },
  {
    name: 'resourceVersion',
    in: 'query',
    description:
      "With watch: the changes after this version (a list's resourceVersion, or an event's); without it or with 0 (Kubernetes' any version), every resource as it stands (ADDED), then the changes (operations: from now). Last-Event-ID does the same for Server-Sent Events. Older than the change log keeps: 410.",
    schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
  },
  {
    name: 'allowWatchBookmarks',
    in: 'query',
    description: 'Accepted as Kubernetes clients send it; BOOKMARK events are always sent.',
    schema: { enum: ['true', 'false'] },
  },
];
/** A list's answer: the page as JSON, or (watch=true) the stream of WatchEvents. */
export const pageOrWatch = (schema: unknown, description: string) => ({
  description: `${description} With watch=true, a stream of WatchEvent: one a line (NDJSON), or one an SSE message whose id is its resourceVersion.`,
  content: {
    'application/json': { schema },
    'application/x-ndjson': { schema: ref('WatchEvent') },
    'text/event-stream': { schema: { type: 'string' } },
  },
});
/** The event a watch streams (its object: a resource, a ProgressEvent, or what BOOKMARK and ERROR say). */
export const WATCH_EVENT = {
  type: 'object',
  required: ['type', 'object'],
  properties: {
    type: { enum: ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] },
    object: {
      type: 'object',
      description:
        'ADDED/MODIFIED/DELETED of a resource: typeName, identifier, properties (as a read answers them; none on DELETED), resourceVersion; of an operation: its ProgressEvent and resourceVersion. BOOKMARK: resourceVersion. ERROR (the last event): errorCode, code (an HTTP status), message.',
      properties: { resourceVersion: { type: 'string' } },
    },
  },
};
export const GONE = { '410': { $ref: '#/components/responses/Error' } };

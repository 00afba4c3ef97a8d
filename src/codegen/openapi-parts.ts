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

/**
 * @module CloudFormation's custom resource protocol, as the handler sees it: the request Typeplane
 * POSTs to the ServiceToken, and the response the handler PUTs to the ResponseURL (checked whole:
 * JSON of at most 4096 bytes, as CloudFormation's limit, naming the request it answers).
 */
import { TypeplaneError } from '../../errors.js';

/** CloudFormation's limit on a response body. */
export const MAX_RESPONSE_BYTES = 4096;
/** CloudFormation's limit on a PhysicalResourceId. */
const MAX_PHYSICAL_ID = 1024;

export type RequestType = 'Create' | 'Update' | 'Delete';

export interface CustomResourceRequestBody {
  RequestType: RequestType;
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  ResourceType: string;
  LogicalResourceId: string;
  PhysicalResourceId?: string;
  ResourceProperties: Record<string, unknown>;
  OldResourceProperties?: Record<string, unknown>;
}

/** What the handler answered. */
export interface CustomResourceResponse {
  status: 'SUCCESS' | 'FAILED';
  reason?: string;
  physicalId?: string;
  data: Record<string, unknown>;
  /** The handler asked that `data` never be shown (it is still what Fn::GetAtt reads). */
  noEcho: boolean;
}

/** What the response must name: the request it answers. */
export interface Expected {
  requestId: string;
  stackId: string;
  logicalId: string;
}

/**
 * Properties as CloudFormation hands them to a handler: numbers and booleans as their text (a
 * handler written for CloudFormation compares strings).
 */
export function asSent(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(asSent);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asSent(v)]));
  return value;
}

/** The handler's response body checked; a TypeplaneError (InvalidRequest) says what is wrong. */
export function parseResponse(body: Buffer, expected: Expected): CustomResourceResponse {
  const invalid = (message: string, pointer = '') =>
    new TypeplaneError('InvalidRequest', `this custom resource response is refused: ${message}`, [
      { pointer, message },
    ]);
  if (body.length > MAX_RESPONSE_BYTES)
    throw invalid(`it is ${body.length} bytes; a response is at most ${MAX_RESPONSE_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw invalid(`it is not JSON (${(e as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid('it must be a JSON object with Status, RequestId, StackId, LogicalResourceId');
  const r = value as Record<string, unknown>;
  if (r.Status !== 'SUCCESS' && r.Status !== 'FAILED')
    throw invalid(`Status must be SUCCESS or FAILED, not ${JSON.stringify(r.Status)}`, '/Status');
  const names: [keyof Expected, string][] = [
    ['requestId', 'RequestId'],
    ['stackId', 'StackId'],
    ['logicalId', 'LogicalResourceId'],
  ];
  for (const [key, field] of names)
    if (r[field] !== expected[key])
      throw invalid(`${field} must be the request's (${expected[key]})`, `/${field}`);
  if (r.PhysicalResourceId !== undefined && typeof r.PhysicalResourceId !== 'string')
    throw invalid('PhysicalResourceId must be a string', '/PhysicalResourceId');
  if (
    typeof r.PhysicalResourceId === 'string' &&
    (r.PhysicalResourceId === '' || r.PhysicalResourceId.length > MAX_PHYSICAL_ID)
  )
    throw invalid(`PhysicalResourceId must be 1 to ${MAX_PHYSICAL_ID} characters`, '/PhysicalResourceId');
  if (r.Reason !== undefined && typeof r.Reason !== 'string')
    throw invalid('Reason must be a string', '/Reason');
  if (r.Data !== undefined && (typeof r.Data !== 'object' || r.Data === null || Array.isArray(r.Data)))
    throw invalid('Data must be an object of attribute names to values', '/Data');
  if (r.NoEcho !== undefined && typeof r.NoEcho !== 'boolean')
    throw invalid('NoEcho must be true or false', '/NoEcho');
  return {
    status: r.Status,
    ...(typeof r.Reason === 'string' ? { reason: r.Reason } : {}),
    ...(typeof r.PhysicalResourceId === 'string' ? { physicalId: r.PhysicalResourceId } : {}),
    data: (r.Data as Record<string, unknown> | undefined) ?? {},
    noEcho: r.NoEcho === true,
  };
}

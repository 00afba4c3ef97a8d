/**
 * @module The types of custom resources: `Custom::<Name>` and `AWS::CloudFormation::CustomResource`,
 * registered nowhere, served by the stack itself (see custom-resources.ts). Their properties are the
 * template's own — `ServiceToken` (the handler's URL, which must be allowed), `ServiceTimeout`
 * (seconds, 1 to 3600, as CloudFormation's) and anything else, handed to the handler — and every
 * attribute is one the handler's `Data` may set, read with `Fn::GetAtt`.
 */
import type { ErrorDetail } from '../../errors.js';
import type { CompiledType } from '../../registry/compile.js';
import { stackServedType } from '../stack-served-type.js';
import { serviceTokenProblem } from './service-tokens.js';

export const CUSTOM_RESOURCE_TYPE = 'AWS::CloudFormation::CustomResource';
/** CloudFormation's: `Custom::` then up to 60 letters, digits and `_@-`. */
const CUSTOM_NAME = /^Custom::[A-Za-z0-9_@-]{1,60}$/;

/** CloudFormation's default and longest wait for a handler's answer, in seconds. */
export const MAX_SERVICE_TIMEOUT_S = 3600;

export function isCustomResourceType(typeName: string): boolean {
  return typeName === CUSTOM_RESOURCE_TYPE || CUSTOM_NAME.test(typeName);
}

/** A ServiceTimeout as written (CloudFormation takes a number or its text): seconds, or a problem. */
export function serviceTimeoutSeconds(value: unknown): number | string {
  if (value === undefined) return MAX_SERVICE_TIMEOUT_S;
  const n = typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_SERVICE_TIMEOUT_S)
    return `ServiceTimeout must be a whole number of seconds from 1 to ${MAX_SERVICE_TIMEOUT_S} (the default)`;
  return n;
}

/** The compiled type of custom resource type `typeName`, its ServiceToken checked against `allowed`. */
export function customResourceType(typeName: string, allowed: readonly string[]): CompiledType {
  const type = stackServedType(
    typeName,
    'A custom resource: its handler (ServiceToken) creates, updates and deletes it.',
    {
      type: 'object',
      properties: {
        ServiceToken: { type: 'string' },
        ServiceTimeout: { type: ['integer', 'string'] },
      },
      // Any other property goes to the handler; any attribute is one its Data may set (in allOf, where
      // a template's Fn::GetAtt finds a top-level attribute pattern).
      allOf: [{ patternProperties: { '': {} } }],
    },
  );
  const validateInput = (model: Record<string, unknown>): ErrorDetail[] => {
    const out: ErrorDetail[] = [];
    const token = model.ServiceToken;
    if (typeof token !== 'string')
      out.push({
        pointer: '/ServiceToken',
        message:
          token === undefined
            ? "ServiceToken is required: the URL of the custom resource's handler"
            : 'ServiceToken must be a string (the URL of the handler)',
      });
    else {
      const problem = serviceTokenProblem(token, allowed);
      if (problem) out.push({ pointer: '/ServiceToken', message: problem });
    }
    const timeout = serviceTimeoutSeconds(model.ServiceTimeout);
    if (typeof timeout === 'string') out.push({ pointer: '/ServiceTimeout', message: timeout });
    return out;
  };
  return { type, validateInput, validateOutput: () => [] };
}

/**
 * @module The type of a nested stack, `AWS::CloudFormation::Stack` as a template declares it: its
 * `TemplateURL` (a template handed over with the parent, see packaged.ts), `Parameters`,
 * `TimeoutInMinutes`, and the tolerated `NotificationARNs` and `Tags`; its `Outputs.<Name>`
 * attributes are the nested stack's outputs. Served by the stack itself (nested-stacks.ts).
 */
import type { ErrorDetail } from '../../errors.js';
import type { CompiledType } from '../../registry/compile.js';
import { stackServedType } from '../stack-served-type.js';
import { NESTED_STACK_TYPE } from './names.js';

const SCALAR = { type: ['string', 'number', 'boolean'] };

const TYPE = stackServedType(
  NESTED_STACK_TYPE,
  'A nested stack: a template deployed as a stack of its own, whose lifecycle is its parent’s.',
  {
    type: 'object',
    properties: {
      TemplateURL: { type: 'string', minLength: 1, maxLength: 1024 },
      TemplateBody: { type: 'string' },
      Parameters: {
        type: 'object',
        patternProperties: { '': { anyOf: [SCALAR, { type: 'array', items: SCALAR }] } },
      },
      TimeoutInMinutes: { type: ['integer', 'string'] },
      NotificationARNs: { type: 'array', items: { type: 'string' }, maxItems: 5 },
      Tags: { type: 'array', items: { type: 'object' } },
      Outputs: { type: 'object', patternProperties: { '': {} } },
    },
    additionalProperties: false,
  },
  ['/properties/Outputs'],
);

const KNOWN = new Set(Object.keys((TYPE.schema.properties as object) ?? {}));

/** The compiled type of `AWS::CloudFormation::Stack` as nested stacks have it. */
export const NESTED_STACK: CompiledType = {
  type: TYPE,
  validateInput(model) {
    const out: ErrorDetail[] = [];
    for (const name of Object.keys(model))
      if (!KNOWN.has(name))
        out.push({
          pointer: `/${name}`,
          message: `${name} is not a property of a nested stack (TemplateURL, Parameters, TimeoutInMinutes, NotificationARNs, Tags)`,
        });
    if (typeof model.TemplateURL !== 'string')
      out.push({
        pointer: '/TemplateURL',
        message: 'TemplateURL is required: the path of the nested template',
      });
    else if (typeof model.TemplateBody !== 'string')
      out.push({
        pointer: '/TemplateURL',
        message: `the template at ${model.TemplateURL.slice(0, 200)} was not handed over with this stack: the CLI sends the templates a TemplateURL names as a path relative to the parent template; the API takes them in the request's \`templates\` (TemplateURL → text)`,
      });
    const parameters = model.Parameters;
    if (
      parameters !== undefined &&
      (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
    )
      out.push({
        pointer: '/Parameters',
        message: 'Parameters maps the nested template’s parameter names to values',
      });
    if (timeoutMinutes(model.TimeoutInMinutes) === null)
      out.push({
        pointer: '/TimeoutInMinutes',
        message: 'TimeoutInMinutes must be a whole number of minutes, 1 or more',
      });
    return out;
  },
  validateOutput: () => [],
};

/** TimeoutInMinutes as written: minutes, undefined when absent, null when it is not a whole number ≥ 1. */
export function timeoutMinutes(value: unknown): number | undefined | null {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : null;
}

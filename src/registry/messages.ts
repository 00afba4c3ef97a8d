/**
 * @module ajv's errors as error details: the pointer of the offending value in the model and a
 * sentence a user can act on.
 */
import type { ErrorObject } from 'ajv';
import type { ErrorDetail } from '../errors.js';

/** More details than this are summarised in one last detail. */
export const MAX_DETAILS = 100;
const MAX_LISTED_VALUES = 20;

export function toDetails(errors: readonly ErrorObject[] | null | undefined): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  let more = 0;
  for (const error of errors ?? []) {
    const detail = toDetail(error);
    const key = `${detail.pointer}\u0000${detail.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (details.length < MAX_DETAILS) details.push(detail);
    else more++;
  }
  if (more > 0) details.push({ pointer: '', message: `and ${more} more problem${more === 1 ? '' : 's'}` });
  return details;
}

function toDetail(error: ErrorObject): ErrorDetail {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const name = String(params.missingProperty);
      return { pointer: `${at}/${escape(name)}`, message: `required property '${name}' is missing` };
    }
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      return {
        pointer: `${at}/${escape(name)}`,
        message: `'${name}' is not a declared property; remove it or check its spelling`,
      };
    }
    case 'enum':
      return { pointer: at, message: `must be one of ${listValues(params.allowedValues)}` };
    case 'const':
      return { pointer: at, message: `must be ${showValue(params.allowedValue)}` };
    case 'type': {
      const types = String(params.type).split(',');
      return {
        pointer: at,
        message: `must be ${types.length > 1 ? `${types.slice(0, -1).join(', ')} or ${types.at(-1)}` : types[0]}`,
      };
    }
    case 'dependencies':
      return {
        pointer: at,
        message: `must have ${String(params.deps)
          .split(', ')
          .map((d) => `'${d}'`)
          .join(', ')} when '${String(params.property)}' is present`,
      };
    default:
      if (error.propertyName !== undefined) {
        return {
          pointer: `${at}/${escape(error.propertyName)}`,
          message: `property name ${error.message ?? 'is not valid'}`,
        };
      }
      return { pointer: at, message: error.message ?? `fails ${error.keyword}` };
  }
}

function listValues(values: unknown): string {
  if (!Array.isArray(values)) return showValue(values);
  const shown = values.slice(0, MAX_LISTED_VALUES).map(showValue).join(', ');
  return values.length > MAX_LISTED_VALUES ? `${shown}, … (${values.length} values)` : shown;
}

function showValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function escape(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

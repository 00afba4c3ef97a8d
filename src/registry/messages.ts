/**
 * @module ajv's errors as error details: the pointer of the offending value in the model and a
 * sentence a user can act on.
 */
import type { ErrorObject } from 'ajv';
import type { ErrorDetail } from '../errors.js';
import { closestName } from '../schema/similar-names.js';

/** More details than this are summarised in one last detail. */
export const MAX_DETAILS = 100;
const MAX_LISTED_VALUES = 20;

/** `schema`: the schema the errors are against, whose declared properties an unknown one is compared with. */
export function toDetails(
  errors: readonly ErrorObject[] | null | undefined,
  schema?: unknown,
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  let more = 0;
  for (const error of errors ?? []) {
    const detail = toDetail(error, schema);
    const key = `${detail.pointer}\u0000${detail.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (details.length < MAX_DETAILS) details.push(detail);
    else more++;
  }
  if (more > 0) details.push({ pointer: '', message: `and ${more} more problem${more === 1 ? '' : 's'}` });
  return details;
}

function toDetail(error: ErrorObject, schema: unknown): ErrorDetail {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const name = String(params.missingProperty);
      return { pointer: `${at}/${escape(name)}`, message: `required property '${name}' is missing` };
    }
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const near = closestName(name, declaredBeside(schema, error.schemaPath));
      return {
        pointer: `${at}/${escape(name)}`,
        message: `'${name}' is not a declared property; ${near ? `did you mean '${near}'?` : 'remove it or check its spelling'}`,
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

/** The properties declared by the schema node holding the `additionalProperties` at `schemaPath` (`#/…`). */
function declaredBeside(schema: unknown, schemaPath: string): string[] {
  let node = schema;
  for (const token of schemaPath.split('/').slice(1, -1)) {
    if (typeof node !== 'object' || node === null) return [];
    node = (node as Record<string, unknown>)[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  const properties = (node as { properties?: unknown } | null)?.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
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

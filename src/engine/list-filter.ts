/**
 * @module List filters: `?Kind=sensor&Enabled=true` keeps the resources whose top-level scalar
 * properties equal every value given (AND), as the contract lets a list take properties as criteria.
 *
 * Filters are checked against the type before anything is read: a parameter naming no top-level
 * property, a property that is not a string, number, integer or boolean, or a write-only one (a
 * filter would be an oracle for its value) is InvalidRequest, so a misspelt filter never silently
 * returns everything.
 */
import { TypeplaneError } from '../errors.js';
import { typesAt, type Model, type ScalarType } from '../model/index.js';
import { resolverOf } from '../model/properties.js';
import type { ResourceType } from '../schema/index.js';

/** At most this many filters in one list (each one a query parameter). */
const MAX_FILTERS = 16;

export interface ListFilter {
  property: string;
  types: Set<ScalarType>;
  value: string;
}

/** The filters of a list, checked against the type; empty when none were given. */
export function parseFilters(type: ResourceType, given: Record<string, unknown> | undefined): ListFilter[] {
  const entries = Object.entries(given ?? {});
  if (entries.length > MAX_FILTERS)
    throw new TypeplaneError('InvalidRequest', `a list takes at most ${MAX_FILTERS} filters`);
  return entries.map(([property, value]) => {
    const where = [{ pointer: `/query/${property}`, message: '' }];
    if (typeof value !== 'string')
      throw new TypeplaneError(
        'InvalidRequest',
        `the filter ${property} is given more than once; give it once`,
        [{ ...where[0]!, message: 'give it once' }],
      );
    const pointer = `/properties/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const nodes = resolverOf(type).walk(pointer);
    const problem = !nodes
      ? 'is not a property of the type'
      : type.writeOnlyProperties.includes(pointer)
        ? 'is write-only, so resources cannot be filtered by it'
        : !isScalar(type, pointer, nodes)
          ? 'is not a string, number, integer or boolean property'
          : undefined;
    if (problem) {
      const scalars = filterableProperties(type);
      throw new TypeplaneError(
        'InvalidRequest',
        `the query parameter ${property} ${problem}; a list takes maxResults, nextToken and filters on ${
          scalars.length > 0 ? scalars.join(', ') : '(no property of this type)'
        }`,
        [{ ...where[0]!, message: problem }],
      );
    }
    return { property, types: typesAt(type, pointer), value };
  });
}

/** Whether a model passes every filter (a property it lacks passes none). */
export function matches(model: Model, filters: readonly ListFilter[]): boolean {
  return filters.every(({ property, types, value }) => {
    if (!Object.hasOwn(model, property)) return false;
    const actual = model[property];
    switch (typeof actual) {
      case 'string':
        return types.has('string') && actual === value;
      case 'number':
        return (
          (types.has('number') || types.has('integer')) && NUMBER.test(value) && Number(value) === actual
        );
      case 'boolean':
        return types.has('boolean') && String(actual) === value;
      default:
        return false;
    }
  });
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

function isScalar(type: ResourceType, pointer: string, nodes: Record<string, unknown>[]): boolean {
  if (typesAt(type, pointer).size === 0) return false;
  return nodes.every((node) => {
    const kinds = Array.isArray(node.type) ? node.type : [node.type];
    return (
      !kinds.includes('object') &&
      !kinds.includes('array') &&
      node.properties === undefined &&
      node.items === undefined
    );
  });
}

/** The top-level properties a list can be filtered on, for the error message. */
function filterableProperties(type: ResourceType): string[] {
  const properties = (type.schema.properties ?? {}) as Record<string, unknown>;
  return Object.keys(properties)
    .filter((name) => {
      const pointer = `/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const nodes = resolverOf(type).walk(pointer);
      return (
        nodes !== undefined && !type.writeOnlyProperties.includes(pointer) && isScalar(type, pointer, nodes)
      );
    })
    .slice(0, 20);
}

/**
 * @module Whether the meta-schema's `definitions/property` accepts a property schema, read the way
 * the semantic walk reads a node: once over its own keys (most have three or four). ajv's validator
 * for that definition looks each of its ~40 keywords up on every node of every document, and a
 * corpus's nodes come in hundreds of shapes: two thirds of what the meta-schema's check cost.
 *
 * Only a yes is trusted (structure.ts): a node this refuses is checked by the whole validator,
 * which says why. So it must never accept what the meta-schema refuses; refusing more (ajv's quirks
 * aside, it refuses exactly as much) only costs time. A test holds it to that on the corpus and on
 * generated nodes.
 */
import { NAME_PATTERN, POINTER_PATTERN, TYPE_NAME_PATTERN, resourceSchemaMetaSchema } from './meta-schema.js';

// The keywords' allowed values, as the meta-schema lists them.
const KEYWORDS = resourceSchemaMetaSchema.definitions.property.properties;
const JSON_TYPES: ReadonlySet<unknown> = new Set(KEYWORDS.type.items.enum);
const ARRAY_TYPES: ReadonlySet<unknown> = new Set(KEYWORDS.arrayType.enum);
// The meta-schema's patterns, compiled as ajv compiles them (with the `u` flag).
const NAME = new RegExp(NAME_PATTERN, 'u');
const TYPE_NAME = new RegExp(TYPE_NAME_PATTERN, 'u');
const POINTER = new RegExp(POINTER_PATTERN, 'u');

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
const isCount = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0;

/** Whether `definitions/property` accepts `node` and every property schema inside it. */
export function propertyNodeAccepts(node: unknown): boolean {
  if (!isObject(node)) return false;
  let hasType = false;
  let needsType = false;
  let hasProperties = false;
  let hasPatternProperties = false;
  for (const key in node) {
    const value = node[key];
    switch (key) {
      case 'type':
        hasType = true;
        if (!(typeof value === 'string' ? JSON_TYPES.has(value) : typeList(value))) return false;
        break;
      case 'description':
      case '$ref':
      case '$comment':
      case 'title':
      case 'pattern':
      case 'format':
      case 'contentEncoding':
      case 'contentMediaType':
        if (typeof value !== 'string') return false;
        break;
      case 'properties':
        hasProperties = true;
        if (!isObject(value)) return false;
        for (const name in value) if (!NAME.test(name) || !propertyNodeAccepts(value[name])) return false;
        break;
      case 'patternProperties':
        hasPatternProperties = true;
        if (!isObject(value)) return false;
        if (!membersAccept(value)) return false;
        break;
      case 'additionalProperties':
        if (value !== false) return false;
        break;
      case 'items':
      case 'contains':
        if (!propertyNodeAccepts(value)) return false;
        break;
      case 'enum':
        needsType = true;
        if (!Array.isArray(value) || value.length === 0) return false;
        break;
      case 'const':
        needsType = true;
        break;
      case 'default':
      case 'x-typeplane-validations':
      case 'x-kubernetes-validations':
        break;
      case 'examples':
        if (!Array.isArray(value)) return false;
        break;
      case 'readOnly':
      case 'writeOnly':
      case 'uniqueItems':
      case 'insertionOrder':
        if (typeof value !== 'boolean') return false;
        break;
      case 'multipleOf':
        if (!isNumber(value) || (value as number) <= 0) return false;
        break;
      case 'maximum':
      case 'exclusiveMaximum':
      case 'minimum':
      case 'exclusiveMinimum':
        if (!isNumber(value)) return false;
        break;
      case 'maxLength':
      case 'minLength':
      case 'maxItems':
      case 'minItems':
      case 'maxProperties':
      case 'minProperties':
        if (!isCount(value)) return false;
        break;
      case 'required':
        if (!distinctStrings(value)) return false;
        break;
      case 'dependencies':
        if (!isObject(value)) return false;
        for (const name in value) if (typeof value[name] !== 'object' || value[name] === null) return false;
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        if (!propertyNodesAccept(value)) return false;
        break;
      case 'arrayType':
        if (!ARRAY_TYPES.has(value)) return false;
        break;
      case 'relationshipRef':
        if (!relationshipRef(value)) return false;
        break;
      default:
        // Not a keyword of property schemas (each of PROPERTY_KEYWORDS has its case above).
        return false;
    }
  }
  return !(hasProperties && hasPatternProperties) && (hasType || !needsType);
}

/** Whether every member of `members` is a property schema that `propertyNodeAccepts` accepts. */
export function membersAccept(members: Record<string, unknown>): boolean {
  for (const name in members) if (!propertyNodeAccepts(members[name])) return false;
  return true;
}

/** Whether `list` is a non-empty array of property schemas that `propertyNodeAccepts` accepts. */
export function propertyNodesAccept(list: unknown): boolean {
  if (!Array.isArray(list) || list.length === 0) return false;
  for (let i = 0; i < list.length; i++) if (!propertyNodeAccepts(list[i])) return false;
  return true;
}

/** `type` as a list: some JSON types, each once. */
function typeList(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (let i = 0; i < value.length; i++) {
    if (!JSON_TYPES.has(value[i])) return false;
    for (let j = 0; j < i; j++) if (value[j] === value[i]) return false;
  }
  return true;
}

function distinctStrings(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  const seen = new Set<string>();
  for (const item of value) {
    if (typeof item !== 'string' || seen.has(item)) return false;
    seen.add(item);
  }
  return true;
}

function relationshipRef(value: unknown): boolean {
  if (!isObject(value)) return false;
  let keys = 0;
  for (const key in value) {
    keys++;
    if (key !== 'typeName' && key !== 'propertyPath') return false;
  }
  const { typeName, propertyPath } = value;
  return (
    keys === 2 &&
    typeof typeName === 'string' &&
    TYPE_NAME.test(typeName) &&
    typeof propertyPath === 'string' &&
    POINTER.test(propertyPath)
  );
}

/**
 * @module Checks one manifest schema (the `schema` of an API version) against the manifest subset of
 * OpenAPI, collecting every problem with the pointer of the offending value or keyword.
 *
 * Every value is checked for its kind before it is used, so a document of any shape yields
 * diagnostics, never an exception. Schema nodes shared through YAML aliases are checked once per
 * place they appear (each place has its own pointer); a node that contains itself is reported.
 */
import { COMMON_REF_ALIASES, COMMON_REF_PREFIX, COMMON_SCHEMAS, builtInRef } from '../common.js';
import { diagnostic, escapePointerToken, type RuleId } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import { KNOWN_FORMATS } from '../formats.js';
import { checkPattern } from '../regex.js';
import {
  APPLIES_TO,
  BOOLEAN_KEYWORDS,
  COMPOSITION_KEYWORDS,
  COUNT_KEYWORDS,
  REF_SIBLINGS,
  ROOT_KEYWORDS,
  SCHEMA_KEYWORDS,
  SCHEMA_TYPES,
  SECRET_SCHEMA_KEYWORD,
  SENSITIVE_KEYWORDS,
  STRICTLY_TYPED_KEYWORDS,
  UNSUPPORTED_KEYWORDS,
  closestKeyword,
  isSchemaType,
  type SchemaType,
} from './keywords.js';
import { REFERENCED_TYPE_PATTERN } from '../resource-schema/meta-schema.js';
import { PROPERTY_NAME_PATTERN } from './names.js';
import {
  CONNECTIONS_PROPERTY,
  RECIPE_PROPERTY,
  STRING_BASE_PROPERTIES,
  isBaseProperty,
} from './radius-properties.js';

type Node = Record<string, unknown>;

export const isRecord = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Where a node sits, which decides the keywords it may use; `secret` is the `schema` of a string
 * property that names a secret.
 */
type Role = 'root' | 'property' | 'items' | 'values' | 'secret';

/**
 * The one place Radius accepts `type: any` (in any case), or no type at all: the values of a
 * `platformOptions` map, which are passed through to the recipe of the platform. The model leaves
 * them unconstrained.
 */
export const ANY_TYPE = 'any';
export const ANY_TYPE_PROPERTY = 'platformOptions';

export const isAnyType = (type: unknown): boolean =>
  typeof type === 'string' && type.toLowerCase() === ANY_TYPE;

/** Keywords that shape a value: a schema without any of them (and without a type) accepts anything. */
const SHAPING_KEYWORDS = ['items', 'properties', 'additionalProperties', '$ref'] as const;

interface Walk {
  findings: Finding[];
  /** Nodes on the path from the root to the current one, to catch alias cycles. */
  ancestors: Set<object>;
}

/** Check the `schema` of one API version; `at` is its pointer in the document. */
export function checkManifestSchema(schema: unknown, at: string, findings: Finding[]): void {
  checkNode({ findings, ancestors: new Set() }, schema, at, 'root', 'the schema root', undefined);
}

export type Report = (rule: RuleId, pointer: string, message: string, target?: 'key') => void;

/** A function that adds a finding to `findings`. */
export function reporter(findings: Finding[]): Report {
  return (rule, pointer, message, target) => {
    findings.push(
      target ? { ...diagnostic(rule, pointer, message), target } : diagnostic(rule, pointer, message),
    );
  };
}

/** `name` is the property name of the node, when it is a property. */
function checkNode(
  walk: Walk,
  node: unknown,
  at: string,
  role: Role,
  label: string,
  name: string | undefined,
): void {
  const report = reporter(walk.findings);

  if (!isRecord(node)) {
    if (role === 'root') {
      report(
        'TP3006',
        at,
        `the schema must be an object schema (a mapping with type: object and properties), not ${kindOf(node)}`,
      );
    } else {
      report('TP3013', at, `${label} must be a schema (a mapping with a 'type'), not ${kindOf(node)}`);
    }
    return;
  }
  if (walk.ancestors.has(node)) {
    report('TP3013', at, `${label} contains itself (through a YAML alias); a schema must be a finite tree`);
    return;
  }
  if (role === 'root' && Object.keys(node).length === 0) {
    report(
      'TP3022',
      at,
      "the schema is empty ({}), so Typeplane does not validate the properties of this type's resources: any properties are accepted and passed to the provider, which must check them; describe them (type: object with properties) to have them checked",
    );
    return;
  }
  walk.ancestors.add(node);
  try {
    checkKeywords(node, at, role, label, report);
    if (Object.hasOwn(node, '$ref')) {
      checkRef(node, at, role, label, report);
    } else {
      const type = checkType(node, at, role, label, name, report);
      // Keywords the root may not use are reported above; their values need no second look.
      if (role === 'root') checkText(node, at, report);
      else checkValues(node, at, label, type, report);
      if (role === 'root') checkRadiusProperties(node, at, report);
      checkChildren(walk, node, at, role, label, name, type, report);
    }
  } finally {
    walk.ancestors.delete(node);
  }
}

/** Unknown, unsupported and misplaced keywords. */
function checkKeywords(node: Node, at: string, role: Role, label: string, report: Report): void {
  for (const key of Object.keys(node)) {
    const where = `${at}/${escapePointerToken(key)}`;
    if (Object.hasOwn(COMPOSITION_KEYWORDS, key)) {
      report(
        'TP3008',
        where,
        `'${key}' is not supported in manifest schemas; ${COMPOSITION_KEYWORDS[key]}`,
        'key',
      );
    } else if (Object.hasOwn(UNSUPPORTED_KEYWORDS, key)) {
      report(
        'TP3011',
        where,
        `'${key}' is not supported in manifest schemas; ${UNSUPPORTED_KEYWORDS[key]}`,
        'key',
      );
    } else if (!SCHEMA_KEYWORDS.has(key)) {
      const known = role === 'root' ? ROOT_KEYWORDS : SCHEMA_KEYWORDS;
      const suggestion = closestKeyword(key, known);
      report(
        'TP3011',
        where,
        `unknown keyword '${clip(key)}' in ${label}; ${suggestion ? `did you mean '${suggestion}'?` : 'remove it or check its spelling'}`,
        'key',
      );
    } else if (role === 'root' && !ROOT_KEYWORDS.has(key) && key !== '$ref') {
      // (A root `$ref` is reported as TP3006.)
      report(
        'TP3011',
        where,
        `'${key}' is not allowed at the schema root, which describes the resource as a whole; it may use ${[...ROOT_KEYWORDS].join(', ')}`,
        'key',
      );
    }
  }
}

/** A `$ref` node: only built-in schemas, and only annotations beside it. */
function checkRef(node: Node, at: string, role: Role, label: string, report: Report): void {
  const ref = node.$ref;
  if (role === 'root') {
    report(
      'TP3006',
      `${at}/$ref`,
      'the schema root must be written out (type: object with properties), not a $ref',
      'key',
    );
    return;
  }
  const builtIns = [...Object.keys(COMMON_SCHEMAS), ...Object.keys(COMMON_REF_ALIASES)].join(', ');
  if (typeof ref !== 'string') {
    report(
      'TP3013',
      `${at}/$ref`,
      `$ref must be a string naming a built-in schema (${builtIns}), not ${kindOf(ref)}`,
    );
  } else if (!builtInRef(ref)) {
    const why = ref.startsWith('#')
      ? 'manifests have no definitions to refer to'
      : ref.startsWith(COMMON_REF_PREFIX)
        ? 'there is no such built-in schema'
        : 'manifest schemas cannot refer to other documents';
    report(
      'TP3009',
      `${at}/$ref`,
      `$ref '${clip(ref)}' is not a built-in Typeplane schema (${why}); use one of ${builtIns}, or write the schema out`,
    );
  }
  for (const key of Object.keys(node)) {
    if (REF_SIBLINGS.has(key) || !SCHEMA_KEYWORDS.has(key)) continue;
    report(
      'TP3011',
      `${at}/${escapePointerToken(key)}`,
      `'${key}' cannot be used next to $ref in ${label}: the built-in schema defines the shape; remove it`,
      'key',
    );
  }
  checkFlags(node, at, undefined, report);
  checkText(node, at, report);
}

/** The node's `type`, or `undefined` (reported) when it has none or an invalid one. */
function checkType(
  node: Node,
  at: string,
  role: Role,
  label: string,
  name: string | undefined,
  report: Report,
): SchemaType | undefined {
  const type = node.type;
  if (role === 'root') {
    if (type === 'object') return 'object';
    if (type === undefined) {
      // Radius reads a root without a type as an object, as OpenAPI does.
      report(
        'TP3026',
        at,
        'the schema root declares no type, so it is read as an object; add type: object to say so',
      );
      return 'object';
    }
    report(
      'TP3006',
      `${at}/type`,
      `the schema root must be type: object, not ${describeValue(type)}: a resource is an object`,
    );
    return undefined;
  }
  const anyValue = role === 'values' && name === ANY_TYPE_PROPERTY;
  if (type === undefined) {
    if (anyValue && !SHAPING_KEYWORDS.some((key) => Object.hasOwn(node, key))) return undefined;
    report('TP3007', at, `${label} declares no type; add type: with one of ${SCHEMA_TYPES.join(', ')}`);
    return undefined;
  }
  if (role === 'secret' && type !== 'object') {
    report(
      'TP3013',
      `${at}/type`,
      `${label} must be type: object, its properties the keys of the secret, not ${describeValue(type)}`,
    );
    return isSchemaType(type) ? type : undefined;
  }
  if (isSchemaType(type)) return type;
  if (isAnyType(type) && anyValue) return undefined;
  const near = typeof type === 'string' ? closestKeyword(type, SCHEMA_TYPES) : undefined;
  let advice = near ? `did you mean '${near}'?` : `use one of ${SCHEMA_TYPES.join(', ')}`;
  if (Array.isArray(type)) advice = 'give a single type name; to also allow null, add nullable: true';
  else if (type === 'null') advice = 'to allow null, give the value type and add nullable: true';
  else if (type === 'float' || type === 'double') advice = `use type: number with format: ${type}`;
  else if (type === 'int' || type === 'int32' || type === 'int64' || type === 'long')
    advice = 'use type: integer (with format: int32 or int64)';
  else if (type === 'map' || type === 'dictionary')
    advice = 'use type: object with additionalProperties: { type: ... }';
  else if (type === 'list') advice = 'use type: array with items: { type: ... }';
  else if (isAnyType(type))
    advice = `'any' is allowed only for the values of a '${ANY_TYPE_PROPERTY}' map; use one of ${SCHEMA_TYPES.join(', ')}`;
  report('TP3007', `${at}/type`, `${label} has type ${describeValue(type)}, which is not a type; ${advice}`);
  return undefined;
}

/** Keyword values: their shapes, their consistency with the type and with each other. */
function checkValues(
  node: Node,
  at: string,
  label: string,
  type: SchemaType | undefined,
  report: Report,
): void {
  const where = (key: string) => `${at}/${key}`;
  if (type !== undefined) {
    for (const [key, types] of Object.entries(APPLIES_TO)) {
      if (!Object.hasOwn(node, key) || types.includes(type)) continue;
      if (STRICTLY_TYPED_KEYWORDS.has(key)) {
        report(
          'TP3013',
          where(key),
          `'${key}' applies to ${types.map(plural).join(' and ')} only, but ${label} is of type ${type}; remove it or change the type`,
          'key',
        );
      } else {
        report(
          'TP3024',
          where(key),
          `'${key}' applies to ${types.map(plural).join(' and ')} only, so it constrains nothing on ${label}, which is of type ${type}; remove it or change the type`,
          'key',
        );
      }
    }
  }
  checkFlags(node, at, type, report);
  checkText(node, at, report);

  for (const key of COUNT_KEYWORDS) {
    const value = node[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0)) {
      report('TP3013', where(key), `'${key}' must be a whole number, 0 or more, not ${describeValue(value)}`);
    }
  }
  for (const key of ['minimum', 'maximum'] as const) {
    const value = node[key];
    if (value !== undefined && !isFiniteNumber(value))
      report('TP3013', where(key), `'${key}' must be a number, not ${describeValue(value)}`);
  }
  const multipleOf = node.multipleOf;
  if (multipleOf !== undefined && !(isFiniteNumber(multipleOf) && multipleOf > 0)) {
    report(
      'TP3013',
      where('multipleOf'),
      `'multipleOf' must be a number greater than 0, not ${describeValue(multipleOf)}`,
    );
  }
  for (const [key, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const value = node[key];
    if (value === undefined) continue;
    if (value === true && !isFiniteNumber(node[bound])) {
      report(
        'TP3013',
        where(key),
        `'${key}: true' makes '${bound}' exclusive, but there is no '${bound}'; add it, or give the bound itself (${key}: 10)`,
      );
    } else if (typeof value !== 'boolean' && !isFiniteNumber(value)) {
      report(
        'TP3013',
        where(key),
        `'${key}' must be a number (or, as in OpenAPI 3.0, true with '${bound}'), not ${describeValue(value)}`,
      );
    }
  }
  for (const [low, high] of [
    ['minLength', 'maxLength'],
    ['minItems', 'maxItems'],
    ['minProperties', 'maxProperties'],
    ['minimum', 'maximum'],
  ] as const) {
    const a = node[low];
    const b = node[high];
    if (isFiniteNumber(a) && isFiniteNumber(b) && a > b) {
      report(
        'TP3013',
        where(high),
        `'${high}' (${b}) is less than '${low}' (${a}), so no value is valid; swap or fix them`,
      );
    }
  }

  const pattern = node.pattern;
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') {
      report(
        'TP3013',
        where('pattern'),
        `'pattern' must be a regular expression in a string, not ${describeValue(pattern)}`,
      );
    } else {
      const problem = checkPattern(pattern);
      if (problem)
        report(
          'TP3013',
          where('pattern'),
          `'pattern' is not a valid regular expression (${problem}); Typeplane uses RE2 syntax`,
        );
    }
  }
  const format = node.format;
  if (format !== undefined) {
    if (typeof format !== 'string') {
      report(
        'TP3013',
        where('format'),
        `'format' must be a string such as date-time, uri or email, not ${describeValue(format)}`,
      );
    } else if (!KNOWN_FORMATS.has(format)) {
      report(
        'TP3017',
        where('format'),
        `format '${clip(format)}' is not known, so values are not checked against it; known formats include date-time, uri, email, uuid, ipv4`,
      );
    }
  }

  const nullable = node.nullable === true;
  const enumValues = node.enum;
  if (enumValues !== undefined) {
    if (!Array.isArray(enumValues) || enumValues.length === 0) {
      report(
        'TP3013',
        where('enum'),
        `'enum' must be a non-empty list of the allowed values, not ${describeValue(enumValues)}`,
      );
    } else {
      const seen = new Set<string>();
      enumValues.forEach((value, i) => {
        const problem = valueProblem(value, type, nullable);
        if (problem) {
          report('TP3013', `${at}/enum/${i}`, `enum value ${describeValue(value)} ${problem}`);
          return;
        }
        const key = JSON.stringify(value);
        if (seen.has(key))
          report('TP3013', `${at}/enum/${i}`, `enum lists ${describeValue(value)} twice; remove the repeat`);
        seen.add(key);
      });
    }
  }
  if (Object.hasOwn(node, 'default')) {
    const value = node.default;
    const problem = valueProblem(value, type, nullable);
    if (problem) {
      report('TP3013', where('default'), `default ${describeValue(value)} ${problem}`);
    } else if (Array.isArray(enumValues) && !enumValues.some((v) => sameValue(v, value))) {
      report(
        'TP3013',
        where('default'),
        `default ${describeValue(value)} is not one of the enum values; use one of them`,
      );
    }
  }
  if (Object.hasOwn(node, 'example')) {
    // As kin-openapi (Radius's OpenAPI validator) does, the example must be a value of the schema's type.
    const problem = valueProblem(node.example, type, nullable);
    if (problem) report('TP3013', where('example'), `example ${describeValue(node.example)} ${problem}`);
  }
  const examples = node.examples;
  if (examples !== undefined) {
    if (!Array.isArray(examples)) {
      report(
        'TP3013',
        where('examples'),
        `'examples' must be a list of example values, not ${describeValue(examples)}; for one value use 'example'`,
      );
    } else if (!isAcyclic(examples)) {
      report(
        'TP3013',
        where('examples'),
        "'examples' contains itself (through a YAML alias); give plain values",
      );
    }
  }
}

/** Boolean keywords, and the flags that contradict each other; `type` is the node's valid type, if any. */
function checkFlags(node: Node, at: string, type: SchemaType | undefined, report: Report): void {
  const referenced = node['x-typeplane-references'];
  if (
    referenced !== undefined &&
    (typeof referenced !== 'string' || !new RegExp(REFERENCED_TYPE_PATTERN).test(referenced))
  ) {
    report(
      'TP3018',
      `${at}/x-typeplane-references`,
      `'x-typeplane-references' must name a type, like 'Typeplane.Data/postgresDatabases', not ${describeValue(referenced)}`,
    );
  }
  for (const key of BOOLEAN_KEYWORDS) {
    const value = node[key];
    if (value !== undefined && typeof value !== 'boolean') {
      report('TP3013', `${at}/${key}`, `'${key}' must be true or false, not ${describeValue(value)}`);
    }
  }
  const secret =
    SENSITIVE_KEYWORDS.find((key) => node[key] === true) ??
    (node.writeOnly === true ? 'writeOnly' : undefined);
  if (node.readOnly === true && secret) {
    report(
      'TP3025',
      `${at}/${secret}`,
      `this property is both readOnly and ${secret}: read-only values are set by the provider and ${secret} values are never returned, so no client can set or read it; keep one`,
    );
  }
  // Bicep, where Radius types end up, has sensitive strings and objects only.
  if (node['x-radius-sensitive'] === true && type !== undefined && type !== 'string' && type !== 'object') {
    report(
      'TP3028',
      `${at}/x-radius-sensitive`,
      `x-radius-sensitive applies to strings and objects only, not to ${plural(type)}; mark a string or an object, or use x-typeplane-sensitive, which applies to any type`,
    );
  }
}

/**
 * The top-level properties Radius gives a meaning: `recipe` is reserved, and its base properties,
 * when declared, have its shapes. (Radius reserves `status` too; the Radius schema design declares
 * it as the type's output, so Typeplane accepts it.)
 */
function checkRadiusProperties(root: Node, at: string, report: Report): void {
  if (!isRecord(root.properties)) return;
  for (const [member, child] of Object.entries(root.properties)) {
    const where = `${at}/properties/${escapePointerToken(member)}`;
    if (member === RECIPE_PROPERTY) {
      report(
        'TP3014',
        where,
        "property 'recipe' is reserved by Radius, which reports the recipe it ran there; rename it, or declare it inside a read-only 'status' (recipe: { $ref: 'typeplane:RecipeStatus' })",
        'key',
      );
    } else if (STRING_BASE_PROPERTIES.has(member) && isRecord(child) && child.type !== 'string') {
      report(
        'TP3027',
        where,
        `property '${member}' is a Radius base property, a resource identifier: it must be type: string`,
        'key',
      );
    } else if (
      member === CONNECTIONS_PROPERTY &&
      isRecord(child) &&
      (child.type !== 'object' || !isRecord(child.additionalProperties))
    ) {
      report(
        'TP3027',
        where,
        "property 'connections' is a Radius base property, a map from connection names to connections: it must be type: object with additionalProperties: { type: object, ... }",
        'key',
      );
    }
  }
}

function checkText(node: Node, at: string, report: Report): void {
  for (const key of ['description', 'title'] as const) {
    const value = node[key];
    if (value !== undefined && typeof value !== 'string') {
      report('TP3013', `${at}/${key}`, `'${key}' must be a string, not ${describeValue(value)}`);
    }
  }
}

/** `properties`, `additionalProperties`, `required` and `items`, and the schemas they hold. */
function checkChildren(
  walk: Walk,
  node: Node,
  at: string,
  role: Role,
  label: string,
  name: string | undefined,
  type: SchemaType | undefined,
  report: Report,
): void {
  const properties = node.properties;
  const declared = isRecord(properties) ? properties : undefined;
  // Radius reads `properties: {}` as no properties, so it may stand beside a map's value schema.
  const hasProperties = properties !== undefined && !(declared && Object.keys(declared).length === 0);
  // On a value that is not an object these keywords constrain nothing (TP3024 says so).
  const notObject = type !== undefined && type !== 'object';
  if (properties !== undefined) {
    if (!declared) {
      report(
        'TP3013',
        `${at}/properties`,
        `'properties' must be a mapping from property names to schemas, not ${describeValue(properties)}`,
      );
    } else {
      for (const [member, child] of Object.entries(declared)) {
        const where = `${at}/properties/${escapePointerToken(member)}`;
        if (role === 'root' && member === 'name') {
          report(
            'TP3014',
            where,
            "property 'name' is reserved: every resource has a name, which is its identifier, and Typeplane adds it to the model; remove this property, or rename it (for example 'displayName')",
            'key',
          );
        } else if (!PROPERTY_NAME_PATTERN.test(member)) {
          report(
            'TP3016',
            where,
            `property name '${clip(member)}' is not allowed: use 1 to 64 letters, digits, '_' or '-', starting with a letter or '_' (like 'connectionString')`,
            'key',
          );
        }
        checkNode(walk, child, where, 'property', `property '${clip(member)}'`, member);
      }
    }
  }

  const additional = node.additionalProperties;
  if (additional !== undefined) {
    const where = `${at}/additionalProperties`;
    if (additional === true && !notObject) {
      report(
        'TP3007',
        where,
        `additionalProperties: true leaves the values of ${label} untyped; give them a schema, like additionalProperties: { type: string }`,
      );
    } else if (isRecord(additional)) {
      if (hasProperties && !notObject) {
        report(
          'TP3010',
          where,
          `${label} has both 'properties' and 'additionalProperties': an object either has fixed properties or is a map; remove one (nested objects with properties accept no other members)`,
          'key',
        );
      } else if (role === 'root') {
        report(
          'TP3006',
          where,
          'the schema root cannot be a map: a resource has named properties; move the map into a property',
          'key',
        );
      }
      checkNode(
        walk,
        additional,
        where,
        'values',
        `the values of ${label}`,
        role === 'property' ? name : undefined,
      );
    } else if (additional !== false && additional !== true) {
      report(
        'TP3013',
        where,
        `'additionalProperties' must be the schema of the map's values (or false), not ${describeValue(additional)}`,
      );
    }
  }

  const required = node.required;
  if (required !== undefined) {
    if (!Array.isArray(required)) {
      report(
        'TP3013',
        `${at}/required`,
        `'required' must be a list of property names, not ${describeValue(required)}`,
      );
    } else {
      const seen = new Set<string>();
      required.forEach((name, i) => {
        const where = `${at}/required/${i}`;
        if (typeof name !== 'string') {
          report('TP3013', where, `'required' must list property names, not ${describeValue(name)}`);
        } else if (seen.has(name)) {
          report('TP3013', where, `'required' lists '${clip(name)}' twice; remove the repeat`);
        } else if (role === 'root' && (name === 'name' || isBaseProperty(name))) {
          // `name` is always required: it is the identifier. An undeclared Radius base property
          // is declared with Radius's shape (see radius-properties.ts).
        } else if (notObject) {
          // Constrains nothing on a value that is not an object (TP3024).
        } else if (!declared || !Object.hasOwn(declared, name)) {
          const hint = declared ? closestKeyword(name, Object.keys(declared)) : undefined;
          report(
            'TP3015',
            where,
            `'required' lists '${clip(name)}', which is not declared under 'properties' of ${label}; ${hint ? `did you mean '${hint}'?` : 'declare it or remove it from required'}`,
          );
        }
        if (typeof name === 'string') seen.add(name);
      });
    }
  }

  const secret = node[SECRET_SCHEMA_KEYWORD];
  if (type === 'string' && secret !== undefined) {
    checkNode(
      walk,
      secret,
      `${at}/${SECRET_SCHEMA_KEYWORD}`,
      'secret',
      `the secret schema of ${label}`,
      undefined,
    );
  }

  const items = node.items;
  if (type === 'array' && items === undefined) {
    report(
      'TP3007',
      at,
      `${label} is an array but declares no items; add items with a type, like items: { type: string }`,
    );
  } else if (Array.isArray(items)) {
    report(
      'TP3013',
      `${at}/items`,
      "'items' must be a single schema; tuples (a list of schemas) are not supported",
    );
  } else if (items !== undefined) {
    checkNode(walk, items, `${at}/items`, 'items', `the items of ${label}`, undefined);
  }
}

/** Why `value` cannot be a value of `type`, or `undefined` when it can. */
function valueProblem(value: unknown, type: SchemaType | undefined, nullable: boolean): string | undefined {
  if (!isAcyclic(value)) return 'contains itself (through a YAML alias); give a plain value';
  if (value === null)
    return nullable || type === undefined
      ? undefined
      : 'is null, which the property does not allow; add nullable: true or remove it';
  if (type === undefined) return undefined;
  const ok =
    type === 'string'
      ? typeof value === 'string'
      : type === 'integer'
        ? Number.isSafeInteger(value)
        : type === 'number'
          ? isFiniteNumber(value)
          : type === 'boolean'
            ? typeof value === 'boolean'
            : type === 'array'
              ? Array.isArray(value)
              : isRecord(value);
  if (ok) return undefined;
  const quote =
    type === 'string' && (typeof value === 'number' || typeof value === 'boolean')
      ? ` (quote it: '${String(value)}')`
      : '';
  return `is not ${article(type)}${quote}`;
}

function isAcyclic(value: unknown, ancestors: Set<object> = new Set()): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (ancestors.has(value)) return false;
  ancestors.add(value);
  const ok = (Array.isArray(value) ? value : Object.values(value)).every((v) => isAcyclic(v, ancestors));
  ancestors.delete(value);
  return ok;
}

function sameValue(a: unknown, b: unknown): boolean {
  return (
    a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b))
  );
}

const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function plural(type: SchemaType): string {
  return `${type}s`;
}

function article(type: SchemaType): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** How a value reads in a message: short, and its kind when that is what is wrong. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${clip(value)}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return kindOf(value);
}

export function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'empty (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}

/** Long names and values are shortened in messages. */
export function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

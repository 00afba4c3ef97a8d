/**
 * @module Structural check of a resource schema against Typeplane's meta-schema, with each ajv
 * error turned into a diagnostic carrying a stable rule id.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { diagnostic, escapePointerToken, pointerTokens, type RuleId } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import {
  FORBIDDEN_PROPERTY_KEYWORDS,
  PROPERTY_KEYWORDS,
  MAX_TIMEOUT_MINUTES,
  MIN_TIMEOUT_MINUTES,
  resourceSchemaMetaSchema,
} from './meta-schema.js';
import precompiled from './meta-schema.validator.js';
import outline from './meta-schema-outline.validator.js';
import { membersAccept, propertyNodesAccept } from './property-node.js';
import { closestName } from '../similar-names.js';

const TOP_LEVEL_KEYS = Object.keys(resourceSchemaMetaSchema.properties);

/** The advice for an unknown key: the known one it is closest to, or to remove it. */
function didYouMean(key: string, known: readonly string[]): string {
  const near = closestName(key, known);
  return near ? `did you mean '${near}'?` : 'remove it or check its spelling';
}

/**
 * The meta-schema validator: ajv's code for it, written ahead of time (meta-schema.validator.ts, kept
 * current by a test), so no run pays for compiling it.
 */
export function metaSchemaValidator(): ValidateFunction {
  return precompiled as unknown as ValidateFunction;
}

export function checkStructure(document: unknown): Finding[] {
  if (outlineAccepts(document) && propertySchemasAccepted(document)) return [];
  const validate = metaSchemaValidator();
  if (validate(document)) return [];
  const findings: Finding[] = [];
  for (const error of validate.errors ?? []) {
    const finding = toFinding({ ...error, schemaPath: absoluteSchemaPath(error) });
    if (finding) findings.push(finding);
  }
  return findings;
}

/**
 * The meta-schema's yes, asked for in two parts: its outline (every property schema accepted as it
 * is, ajv's code stopping at the first failure) and each property schema (property-node.ts). Only a
 * yes is trusted; a no asks the whole validator, for its errors.
 */
const outlineAccepts = outline as unknown as (document: unknown) => boolean;

/** The property schemas the outline left unchecked: where the meta-schema refers to `definitions/property`. */
function propertySchemasAccepted(document: unknown): boolean {
  // The outline has accepted the document: each of these is absent or of its type.
  const doc = document as Record<string, unknown>;
  const settings = doc.typeConfiguration as Record<string, unknown> | undefined;
  return (
    membersAccepted(doc.properties) &&
    membersAccepted(doc.definitions) &&
    branchesAccepted(doc) &&
    (settings === undefined || (membersAccepted(settings.properties) && branchesAccepted(settings)))
  );
}

function membersAccepted(members: unknown): boolean {
  return members === undefined || membersAccept(members as Record<string, unknown>);
}

function branchesAccepted(node: Record<string, unknown>): boolean {
  return (
    (node.allOf === undefined || propertyNodesAccept(node.allOf)) &&
    (node.anyOf === undefined || propertyNodesAccept(node.anyOf)) &&
    (node.oneOf === undefined || propertyNodesAccept(node.oneOf))
  );
}

let subschemaPaths: Map<object, string> | undefined;

/**
 * Where in the meta-schema an error failed, from its root. ajv's own `schemaPath` starts again at
 * `#` inside every definition compiled as a function of its own (the recursive `property`, and any
 * definition that refers to another), so `#/additionalProperties` could be the document's or a
 * property schema's. The failing subschema object (`parentSchema`) says which.
 */
function absoluteSchemaPath(error: ErrorObject): string {
  if (!subschemaPaths) {
    const paths = new Map<object, string>();
    const stack: [unknown, string][] = [[resourceSchemaMetaSchema, '#']];
    while (stack.length > 0) {
      const [node, path] = stack.pop()!;
      if (typeof node !== 'object' || node === null || paths.has(node)) continue;
      paths.set(node, path);
      for (const [key, child] of Object.entries(node))
        stack.push([child, `${path}/${escapePointerToken(key)}`]);
    }
    subschemaPaths = paths;
  }
  const parent = error.parentSchema;
  const base = typeof parent === 'object' && parent !== null ? subschemaPaths.get(parent) : undefined;
  return base === undefined ? error.schemaPath : `${base}/${error.keyword}`;
}

/** Which rule a meta-schema failure breaks, decided by where in the meta-schema it failed. */
const RULE_BY_SCHEMA_PATH: [prefix: string, rule: RuleId][] = [
  ['#/properties/typeName/', 'TP2001'],
  ['#/properties/additionalProperties/', 'TP2004'],
  ['#/definitions/handler/properties/timeoutInMinutes/', 'TP2031'],
  ['#/definitions/handler/', 'TP2030'],
  ['#/properties/handlers/', 'TP2030'],
  ['#/properties/tagging/', 'TP2032'],
  ['#/definitions/tagging/', 'TP2032'],
  ['#/definitions/pointer/', 'TP2005'],
  ['#/definitions/pointerList/', 'TP2005'],
  ['#/definitions/identifier/', 'TP2034'],
  ['#/properties/additionalIdentifiers/', 'TP2034'],
  ['#/definitions/property/properties/additionalProperties/', 'TP2023'],
  ['#/definitions/property/not', 'TP2024'],
  ['#/definitions/property/properties/insertionOrder/', 'TP2033'],
  ['#/definitions/property/properties/arrayType/', 'TP2033'],
  ['#/definitions/property/properties/relationshipRef/', 'TP2033'],
  ['#/properties/traits/', 'TP2045'],
  ['#/properties/typeConfiguration/', 'TP2035'],
  ['#/required', 'TP2002'],
];

function toFinding(error: ErrorObject): Finding | undefined {
  const path = error.instancePath;
  const name = lastToken(path);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'propertyNames') return undefined; // its inner error says which name
  if (error.propertyName !== undefined) {
    const at = `${path}/${escapePointerToken(error.propertyName)}`;
    if (ruleFor(error.schemaPath) === 'TP2035' && error.keyword === 'not') {
      return {
        ...diagnostic(
          'TP2035',
          at,
          `typeConfiguration setting '${error.propertyName}' starts with 'CloudFormation', a prefix reserved for CloudFormation's own settings; rename it`,
        ),
        target: 'key',
      };
    }
    if (ruleFor(error.schemaPath) === 'TP2045') {
      return {
        ...diagnostic(
          'TP2045',
          at,
          `reference ids key '${error.propertyName}' must name a property of the referenced type: a name like 'Name' or a pointer like '/properties/Name'`,
        ),
        target: 'key',
      };
    }
    return {
      ...diagnostic(
        'TP2026',
        at,
        `name '${error.propertyName}' is not allowed: property and definition names are 1 to 64 letters and digits (${'^[A-Za-z0-9]{1,64}$'})`,
      ),
      target: 'key',
    };
  }
  if (error.keyword === 'additionalProperties') {
    const key = String(params.additionalProperty);
    const at = `${path}/${escapePointerToken(key)}`;
    if (error.schemaPath === '#/additionalProperties') {
      return {
        ...diagnostic('TP2003', at, `unknown top-level key '${key}'; ${didYouMean(key, TOP_LEVEL_KEYS)}`),
        target: 'key',
      };
    }
    if (error.schemaPath === '#/definitions/property/additionalProperties') {
      const forbidden = Object.hasOwn(FORBIDDEN_PROPERTY_KEYWORDS, key)
        ? FORBIDDEN_PROPERTY_KEYWORDS[key]
        : undefined;
      if (forbidden) {
        return {
          ...diagnostic(
            forbidden.rule,
            at,
            `'${key}' is not supported in property schemas; ${forbidden.advice}`,
          ),
          target: 'key',
        };
      }
      return {
        ...diagnostic(
          'TP2027',
          at,
          `unknown keyword '${key}' in a property schema; ${didYouMean(key, PROPERTY_KEYWORDS)}`,
        ),
        target: 'key',
      };
    }
    if (error.schemaPath.startsWith('#/properties/handlers/')) {
      return {
        ...diagnostic(
          'TP2030',
          at,
          `unknown handler '${key}'; handlers are create, read, update, delete and list`,
        ),
        target: 'key',
      };
    }
    const rule = ruleFor(error.schemaPath) ?? 'TP1010';
    return {
      ...diagnostic(
        rule,
        at,
        rule === 'TP2035'
          ? `unknown key '${key}' in typeConfiguration (it takes properties, additionalProperties, required, description, deprecatedProperties, allOf, anyOf and oneOf)${key === 'definitions' ? "; move its definitions to the top-level 'definitions'" : ''}`
          : `unknown key '${key}' in ${name || 'the document'}; remove it or check its spelling`,
      ),
      target: 'key',
    };
  }
  if (error.keyword === 'dependencies') {
    const keyword = String(params.property);
    return diagnostic(
      'TP2029',
      `${path}/${escapePointerToken(keyword)}`,
      `'${keyword}' needs a 'type' beside it${suggestedType(error.data, keyword)}: values fixed by ${keyword} are still typed`,
    );
  }
  if (error.keyword === 'required') {
    const missing = String(params.missingProperty);
    const rule =
      ruleFor(error.schemaPath) ??
      (error.schemaPath.startsWith('#/definitions/handler/') ? 'TP2030' : 'TP1010');
    if (rule === 'TP2035')
      return diagnostic(
        rule,
        path,
        `typeConfiguration must have '${missing}'${missing === 'properties' ? ': the settings a user configures, one entry each' : ': add "additionalProperties": false'}`,
      );
    const where = path === '' ? 'the resource schema' : `'${name}'`;
    return diagnostic(rule, path, `${where} must have '${missing}'${missingAdvice(missing)}`);
  }
  // An array where a single property schema is expected.
  if (error.keyword === 'type' && error.schemaPath === '#/definitions/property/type') {
    if (isItemsKeyword(path) && Array.isArray(error.data)) {
      return diagnostic(
        'TP2025',
        path,
        "'items' must be a single schema; tuple validation (an array of schemas) is not supported",
      );
    }
    return diagnostic('TP1010', path, `'${name}' must be a schema object`);
  }
  const rule = ruleFor(error.schemaPath) ?? 'TP1010';
  return diagnostic(rule, path, describe(error, rule));
}

/**
 * Whether `pointer` is the `items` keyword of a schema (not a property named `items`): walks the
 * document's grammar, where names follow `properties`, `definitions`, `patternProperties` and
 * `dependencies`, and indices follow the composition keywords.
 */
function isItemsKeyword(pointer: string): boolean {
  const tokens = pointerTokens(pointer);
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i]!;
    if (i === tokens.length - 1) return token === 'items';
    // A keyword that takes names or indices consumes the next token too.
    i += NAMED_MEMBERS.has(token) || COMPOSITIONS.has(token) ? 2 : 1;
  }
  return false;
}

const NAMED_MEMBERS = new Set(['properties', 'definitions', 'patternProperties', 'dependencies']);
const COMPOSITIONS = new Set(['allOf', 'anyOf', 'oneOf']);

function ruleFor(schemaPath: string): RuleId | undefined {
  for (const [prefix, rule] of RULE_BY_SCHEMA_PATH) if (schemaPath.startsWith(prefix)) return rule;
  return undefined;
}

function describe(error: ErrorObject, rule: RuleId): string {
  const name = nameOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const pointerAdvice = "a property pointer like '/properties/Name' or '/properties/Tags/*/Key'";
  switch (rule) {
    case 'TP2001':
      return `typeName must be three parts of 2 to 64 letters or digits joined by '::', like 'Org::Service::Resource'`;
    case 'TP2004':
      return "top-level 'additionalProperties' must be false: a resource model accepts only the properties it declares";
    case 'TP2005':
      return typeof error.data === 'string'
        ? `${name} is '${error.data}', not ${pointerAdvice}`
        : `${name} must be ${pointerAdvice}`;
    case 'TP2023':
      return "'additionalProperties' may only be false; describe maps with 'patternProperties' instead";
    case 'TP2024':
      return "'properties' and 'patternProperties' cannot be used together; choose a fixed shape or a map";
    case 'TP2035':
      if (error.keyword === 'const')
        return "typeConfiguration's 'additionalProperties' must be false: a configuration accepts only the settings it declares";
      if (error.keyword === 'minProperties')
        return "typeConfiguration's 'properties' must declare at least one setting";
      break;
    case 'TP2031':
      return `timeoutInMinutes must be a whole number from ${MIN_TIMEOUT_MINUTES} to ${MAX_TIMEOUT_MINUTES}`;
    case 'TP2034':
      return error.keyword === 'minItems'
        ? `${name} must list at least one property pointer`
        : error.keyword === 'uniqueItems'
          ? `${name} lists the same pointer twice`
          : `${name} must be a list of property pointers`;
    case 'TP2033':
      if (error.keyword === 'pattern' && lastToken(error.instancePath) === 'propertyPath') {
        return `relationshipRef.propertyPath must be ${pointerAdvice}, in the referenced type`;
      }
      if (error.keyword === 'pattern' && lastToken(error.instancePath) === 'typeName') {
        return "relationshipRef.typeName must be a type name like 'Org::Service::Resource'";
      }
      break;
    case 'TP2045':
      if (error.schemaPath.endsWith('/properties/typeName/pattern')) {
        return "a reference's typeName must name a type, like 'Org::Service::Resource' or 'Namespace.Area/typeName'";
      }
      if (error.keyword === 'pattern') {
        return `reference member '${String(error.data)}' must be a property pointer in this schema, like '/properties/DatabaseName'`;
      }
      if (error.keyword === 'minProperties') {
        return "'ids' must map at least one property; omit it to match the referenced type's identifiers by name";
      }
      break;
    default:
      break;
  }
  if (error.keyword === 'pattern' && error.schemaPath === '#/definitions/property/properties/type/pattern') {
    return `'${String(error.data)}' is not a JSON type; use one of ${JSON_TYPES.join(', ')}`;
  }
  switch (error.keyword) {
    case 'type':
      return `${name} must be ${article(String(params.type))}`;
    case 'enum':
      return `${name} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${name} must be ${JSON.stringify(params.allowedValue)}`;
    case 'pattern':
      return `${name} must match ${String(params.pattern)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
      return `${name} ${error.message ?? 'is out of range'}`;
    case 'minItems':
      return `${name} must not be empty`;
    case 'minProperties':
      return `${name} must declare at least one member`;
    case 'uniqueItems':
      return `${name} must not repeat items (items ${String(params.j)} and ${String(params.i)} are equal)`;
    default:
      return `${name} ${error.message ?? 'is invalid'}`;
  }
}

/** `, like "type": "string"`, from the type of the fixed values when they agree on one. */
function suggestedType(node: unknown, keyword: string): string {
  const fixed = (node as Record<string, unknown> | null)?.[keyword];
  const values = keyword === 'enum' && Array.isArray(fixed) ? fixed : [fixed];
  const types = new Set(
    values.map((v) =>
      v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v,
    ),
  );
  const [only] = types;
  return types.size === 1 && JSON_TYPES.includes(only!) ? `, like "type": "${only}"` : '';
}

function missingAdvice(key: string): string {
  const advice: Record<string, string> = {
    typeName: ", like 'Org::Service::Resource'",
    description: ': one sentence that says what the resource is',
    properties: ': the resource model, one entry per property',
    primaryIdentifier: ": a list of property pointers that identify a resource, like ['/properties/Name']",
    additionalProperties: ': add "additionalProperties": false',
    permissions: ': the permissions the handler needs (may be an empty list)',
  };
  return advice[key] ?? '';
}

function article(type: string): string {
  const t = type.replace(/,/g, ' or ');
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/** How a value is named in messages: `'Name'`, `'primaryIdentifier[0]'`, or the document. */
function nameOf(pointer: string): string {
  if (pointer === '') return 'the document';
  const tokens = pointerTokens(pointer);
  let i = tokens.length - 1;
  let index = '';
  while (i > 0 && /^(0|[1-9]\d*)$/.test(tokens[i]!)) index = `[${tokens[i--]}]` + index;
  return `'${tokens[i]}${index}'`;
}

function lastToken(pointer: string): string {
  const i = pointer.lastIndexOf('/');
  return pointer
    .slice(i + 1)
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
}

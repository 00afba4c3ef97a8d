/**
 * @module One JSON Schema for stack templates (CloudFormation style) over the registered types: the
 * template-independent part — sections, resource declarations — with each resource's `Properties`
 * checked according to its `Type` (if/then over the types). A property value may always be an
 * intrinsic function (`{ Ref: … }`, `{ 'Fn::GetAtt': … }`), and read-only properties are left out:
 * a template cannot set them.
 */
import type { ResourceType } from '../schema/index.js';
import { markedModel, propertiesSchemaFileName } from './property-schema.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

export const STACK_TEMPLATE_SCHEMA_ID = 'https://typeplane.dev/schemas/stack-template.json';

/** `{ Ref: x }`, `{ 'Fn::Sub': … }`, `{ Condition: x }`: one member named like an intrinsic function. */
const INTRINSIC: Schema = {
  type: 'object',
  minProperties: 1,
  maxProperties: 1,
  propertyNames: { pattern: '^(Ref|Condition|Fn::[A-Za-z]+)$' },
  description:
    "An intrinsic function, evaluated when the stack is applied: { Ref: … }, { 'Fn::GetAtt': … }, { 'Fn::Sub': … }, …",
};

/** `Fn::ForEach::<Loop>` (Transform: AWS::LanguageExtensions), where Resources, Outputs or Conditions name one. */
const FOR_EACH = {
  '^Fn::ForEach::': {
    type: 'array',
    minItems: 3,
    maxItems: 3,
    description:
      'A loop (Transform: AWS::LanguageExtensions): [Identifier, Collection, {OutputKey: OutputValue}], the key made for each item of the collection with ${Identifier} or &{Identifier}.',
  },
};

/** The schema of templates whose resources are of `types`. */
export function stackTemplateSchema(types: readonly ResourceType[]): Schema {
  const definitions: Schema = { intrinsic: INTRINSIC };
  const typeNames: string[] = [];
  const branches: Schema[] = [];
  for (const type of types) {
    const key = propertiesSchemaFileName(type).replace(/\.json$/, '');
    const names = type.apiVersion ? [type.typeName, `${type.typeName}@${type.apiVersion}`] : [type.typeName];
    typeNames.push(...names);
    definitions[key] = templateProperties(type, key);
    branches.push({
      if: { properties: { Type: { enum: names } }, required: ['Type'] },
      then: { properties: { Properties: { $ref: `#/definitions/${key}` } } },
    });
  }
  const object = (description: string): Schema => ({ type: 'object', description });
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: STACK_TEMPLATE_SCHEMA_ID,
    title: 'Typeplane stack template',
    description: 'A stack: resources of registered types, applied together in dependency order.',
    type: 'object',
    additionalProperties: false,
    required: ['Resources'],
    properties: {
      AWSTemplateFormatVersion: { type: 'string', description: "The template format version, '2010-09-09'." },
      Description: { type: 'string', description: 'What the stack is for.' },
      Metadata: object('Anything, kept with the template.'),
      Parameters: object('Values given when the stack is applied, by name.'),
      Rules: object('Checks on parameter values.'),
      Mappings: object('Lookup tables for Fn::FindInMap.'),
      Conditions: {
        ...object('Named conditions resources and outputs depend on.'),
        patternProperties: FOR_EACH,
      },
      Transform: {
        description: 'AWS::LanguageExtensions (Fn::ForEach, …); other transforms are refused.',
      },
      Outputs: { ...object('Values the stack returns, by name.'), patternProperties: FOR_EACH },
      Resources: {
        type: 'object',
        minProperties: 1,
        description: 'The resources, by logical id.',
        patternProperties: FOR_EACH,
        additionalProperties: { $ref: '#/definitions/resource' },
      },
    },
    definitions: {
      ...definitions,
      resource: {
        type: 'object',
        required: ['Type'],
        additionalProperties: false,
        properties: {
          Type: {
            description:
              "The resource's type: a registered type name (a manifest type may add '@<apiVersion>').",
            ...(typeNames.length > 0 ? { enum: typeNames } : { type: 'string' }),
          },
          Properties: { type: 'object', description: "The resource's desired state." },
          DependsOn: {
            description: 'Logical ids of resources to apply first.',
            anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
          },
          Condition: {
            type: 'string',
            description: 'The condition that decides whether the resource exists.',
          },
          DeletionPolicy: {
            enum: ['Delete', 'Retain', 'RetainExceptOnCreate'],
            description:
              'What deleting the resource from the stack does to it (RetainExceptOnCreate: retained, but deleted when the deployment that created it rolls back).',
          },
          UpdateReplacePolicy: {
            enum: ['Delete', 'Retain'],
            description: 'What a replacement does to the old resource.',
          },
          Metadata: { type: 'object' },
          CreationPolicy: { type: 'object' },
          UpdatePolicy: { type: 'object' },
        },
        allOf: branches,
      },
    },
  };
}

/** A type's model for templates: no read-only members, any value an intrinsic, refs under `key`. */
function templateProperties(type: ResourceType, key: string): Schema {
  const schema = markedModel(type);
  const prefix = `#/definitions/${key}/definitions/`;
  const rewrite = (node: unknown, isValue: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => rewrite(n, false));
    if (!isObject(node)) return node;
    const out: Schema = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/definitions/'))
        out[k] = prefix + v.slice('#/definitions/'.length);
      else if (k === 'properties' && isObject(v)) {
        const kept = Object.entries(v).filter(([, p]) => !(isObject(p) && p.readOnly === true));
        out[k] = Object.fromEntries(kept.map(([name, p]) => [name, rewrite(p, true)]));
        if (Array.isArray(node.required))
          out.required = node.required.filter((r) => kept.some(([name]) => name === r));
      } else if (k === 'required' && isObject(node.properties)) continue;
      else if ((k === 'items' || k === 'additionalProperties') && isObject(v)) out[k] = rewrite(v, true);
      else if (k === 'patternProperties' && isObject(v))
        out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, rewrite(s, true)]));
      else if (k === 'definitions' && isObject(v))
        out[k] = Object.fromEntries(Object.entries(v).map(([d, s]) => [d, rewrite(s, false)]));
      else if ((k === 'oneOf' || k === 'anyOf' || k === 'allOf') && Array.isArray(v))
        out[k] = v.map((b) => rewrite(b, false));
      else out[k] = v;
    }
    return isValue ? { anyOf: [out, { $ref: '#/definitions/intrinsic' }] } : out;
  };
  return { ...(rewrite(schema, false) as Schema), description: type.description };
}

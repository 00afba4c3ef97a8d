/**
 * @module The model of a type a stack serves itself (custom resources, nested stacks): registered
 * nowhere, with no handlers, identifiers or traits of its own — only its schema and read-only properties.
 */
import type { JsonSchema, ResourceType } from '../schema/index.js';

export function stackServedType(
  typeName: string,
  description: string,
  schema: JsonSchema,
  readOnlyProperties: string[] = [],
): ResourceType {
  return {
    typeName,
    dialect: 'resource-schema',
    description,
    schema,
    primaryIdentifier: [],
    additionalIdentifiers: [],
    readOnlyProperties,
    writeOnlyProperties: [],
    createOnlyProperties: [],
    conditionalCreateOnlyProperties: [],
    deprecatedProperties: [],
    handlers: {},
    traits: { noReplace: false, references: [] },
  };
}

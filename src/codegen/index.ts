/**
 * @module Code generation from resource types: what a type's consumers get.
 */
export { generateTypeScript, interfaceName } from './typescript.js';
export {
  generateBicep,
  bicepNamespace,
  bicepResourceName,
  bicepExtensionName,
  BICEP_EXTENSION_VERSION,
  type BicepExtension,
} from './bicep.js';
export {
  resourceSchemaEditorSchema,
  manifestEditorSchema,
  RESOURCE_SCHEMA_EDITOR_ID,
  MANIFEST_EDITOR_ID,
} from './editor-schemas.js';
export { typePropertiesSchema, propertiesSchemaFileName, propertiesSchemaId } from './property-schema.js';
export { stackTemplateSchema, STACK_TEMPLATE_SCHEMA_ID } from './stack-template-schema.js';
export { generateOpenApi, openApiTypeKey, type OpenApiOptions } from './openapi.js';
export {
  renderArtifact,
  BICEP_FILES,
  META_SCHEMA_FILES,
  type ArtifactName,
  type BicepFile,
  type MetaSchemaFile,
  type RenderedArtifact,
} from './artifact.js';

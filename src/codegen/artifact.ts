/**
 * @module One served artifact, named as data and rendered from types: what the server hands to its
 * generator threads (a name and plain models in, text out), so that the choice of generator lives
 * here once, whichever thread runs it.
 */
import type { ResourceType } from '../schema/index.js';
import { bicepNamespace, generateBicep } from './bicep.js';
import { manifestEditorSchema, resourceSchemaEditorSchema } from './editor-schemas.js';
import { generateOpenApi } from './openapi.js';
import { propertiesSchemaFileName, typePropertiesSchema } from './property-schema.js';
import { stackTemplateSchema } from './stack-template-schema.js';

export const BICEP_FILES = ['index.json', 'types.json', 'index.md', 'types.md'] as const;
export type BicepFile = (typeof BICEP_FILES)[number];

export const META_SCHEMA_FILES = ['resource-schema.json', 'manifest.json'] as const;
export type MetaSchemaFile = (typeof META_SCHEMA_FILES)[number];

/** Which artifact; its types are given apart (see `renderArtifact`). */
export type ArtifactName =
  | { kind: 'openapi'; version: string }
  | { kind: 'bicep'; namespace: string; file: BicepFile }
  | { kind: 'meta-schema'; file: MetaSchemaFile }
  | { kind: 'stack-template' }
  | { kind: 'properties-schema'; file: string };

export interface RenderedArtifact {
  body: string;
  contentType: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The artifact generated from `types` (in the order given), or undefined when it does not exist
 * among them (a namespace or properties schema none of them has).
 */
export function renderArtifact(
  artifact: ArtifactName,
  types: readonly ResourceType[],
): RenderedArtifact | undefined {
  switch (artifact.kind) {
    case 'openapi':
      return asJson(generateOpenApi(types, { version: artifact.version }));
    case 'stack-template':
      return asJson(stackTemplateSchema(types));
    case 'meta-schema':
      return asJson(
        artifact.file === 'manifest.json' ? manifestEditorSchema() : resourceSchemaEditorSchema(),
      );
    case 'properties-schema': {
      const type = types.find((t) => propertiesSchemaFileName(t) === artifact.file);
      return type ? asJson(typePropertiesSchema(type)) : undefined;
    }
    case 'bicep': {
      const wanted = artifact.namespace.toLowerCase();
      const [extension] = generateBicep(types.filter((t) => bicepNamespace(t).toLowerCase() === wanted));
      if (!extension) return undefined;
      return {
        body: extension.files[artifact.file],
        contentType: artifact.file.endsWith('.md') ? 'text/markdown; charset=utf-8' : JSON_TYPE,
      };
    }
  }
}

/** Compact: the OpenAPI document of a large registry is tens of megabytes, indented nearly twice that. */
function asJson(value: unknown): RenderedArtifact {
  return { body: JSON.stringify(value) + '\n', contentType: JSON_TYPE };
}

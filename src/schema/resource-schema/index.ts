/**
 * @module The resource schema dialect (CloudFormation resource provider definitions).
 */
import { hasErrors } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import type { ResourceType } from '../model.js';
import { checkStructure } from './structure.js';
import { checkSemantics } from './semantic.js';
import { resourceSchemaToModel } from './to-model.js';
import { findRefCycles } from './ref-cycles.js';
import { bicepExpressibleFindings } from '../rules/bicep-expressible.js';

export { resourceSchemaMetaSchema, META_SCHEMA_AJV_OPTIONS } from './meta-schema.js';
export { metaSchemaValidator } from './structure.js';
export { PointerResolver } from './semantic.js';
export { originOf } from './reference-origins.js';

export interface DialectResult {
  findings: Finding[];
  /** The normalised types, present only when there is no error. */
  types: ResourceType[];
  /** The types' Bicep warnings when they were asked for and made along the way (see `checkResourceSchema`). */
  bicepFindings?: Finding[];
}

export interface ResourceSchemaOptions {
  /** Also make the Bicep warnings (TP5001–TP5003) of a document without errors. */
  bicep?: boolean;
}

export function checkResourceSchema(
  document: unknown,
  source?: string,
  options: ResourceSchemaOptions = {},
): DialectResult {
  const doc = document as Record<string, unknown>;
  const findings = checkStructure(document);
  const semantic = checkSemantics(doc, options.bicep ? { bicep: true } : {});
  findings.push(...semantic.findings, ...findRefCycles(doc, semantic.localRefs));
  if (hasErrors(findings)) return { findings, types: [] };
  const types = [resourceSchemaToModel(doc, semantic, source)];
  if (!options.bicep) return { findings, types };
  // The semantic walk made them, unless built-in schemas were inlined into the model's definitions
  // after it: then the model is walked again, with those.
  const bicepFindings =
    semantic.usesCommonSchemas || !semantic.bicepFindings
      ? bicepExpressibleFindings(types)
      : semantic.bicepFindings;
  return { findings, types, bicepFindings };
}

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

export { resourceSchemaMetaSchema, META_SCHEMA_AJV_OPTIONS } from './meta-schema.js';
export { metaSchemaValidator } from './structure.js';
export { PointerResolver } from './semantic.js';
export { originOf } from './reference-origins.js';

export interface DialectResult {
  findings: Finding[];
  /** The normalised types, present only when there is no error. */
  types: ResourceType[];
}

export function checkResourceSchema(document: unknown, source?: string): DialectResult {
  const findings = checkStructure(document);
  const semantic = checkSemantics(document as Record<string, unknown>);
  findings.push(
    ...semantic.findings,
    ...findRefCycles(document as Record<string, unknown>, semantic.localRefs),
  );
  if (hasErrors(findings)) return { findings, types: [] };
  return { findings, types: [resourceSchemaToModel(document as Record<string, unknown>, semantic, source)] };
}

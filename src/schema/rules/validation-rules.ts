/**
 * @module Rules TP9001–TP9006: the validation rules a schema carries (`x-typeplane-validations`,
 * `x-kubernetes-validations`; see ../validations.ts), checked as the registry will compile them. A
 * problem inside a rule's text is placed at its line and column there.
 *
 * Runs on the normalised types, for both dialects: a manifest type's schema is written at
 * `/types/<name>/apiVersions/<version>/schema`, a resource schema's at the document's root.
 */
import { diagnostic, escapePointerToken } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import type { ResourceType } from '../model.js';
import { compileSchemaRules } from '../validations.js';

export function validationRuleFindings(types: readonly ResourceType[]): Finding[] {
  const findings: Finding[] = [];
  for (const type of types) {
    const base =
      type.dialect === 'manifest'
        ? `/types/${escapePointerToken(type.typeName.slice(type.typeName.indexOf('/') + 1))}/apiVersions/${escapePointerToken(type.apiVersion ?? '')}/schema`
        : '';
    for (const p of compileSchemaRules(type.schema).problems) {
      const finding: Finding = diagnostic(p.rule, base + p.pointer, p.message);
      if (p.within) finding.within = { line: p.within.line, column: p.within.column, text: p.within.text };
      findings.push(finding);
    }
  }
  return findings;
}

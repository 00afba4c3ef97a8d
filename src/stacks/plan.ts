/**
 * @module A plan: for every logical resource, what applying the template would do, as data. Values
 * that depend on resources being added or changed are "known after apply"; secrets are masked.
 */
import type { Diagnostic, ResourceType } from '../schema/index.js';
import { touchesWriteOnly } from '../model/index.js';
import type { Verdict } from '../verdict.js';
import { createScope, type Analysis } from './analyze.js';
import { hasUnknown, plain, type Action, type PatchOperation } from './changes.js';
import { conformProperties } from './conform.js';
import {
  EvaluationError,
  KNOWN_AFTER_APPLY,
  Unknown,
  evaluateProperties,
  type AppliedResource,
  type ParameterValue,
  type PseudoParameters,
} from './intrinsics.js';
import { decideNamed, namedProperty } from './physical-names.js';
import { refValue } from './ref-value.js';
import { MASK } from './parameters.js';
import type { ResourceRecord } from './records.js';
import { retained } from './retention.js';
import { invalidTemplate, stackDiagnostic } from './rules.js';
import { mask, maskReason } from './secrets.js';
import { locate } from './template.js';
import type { DriftDifference } from './drift.js';
import { importChange, type Importing } from './import/index.js';
import type { NestedPlan } from './nested/plan.js';

export interface PlannedChange {
  logicalId: string;
  type: string;
  /** Import: an existing resource brought into the stack (import/), not created. */
  action: Action | 'Import';
  identifier?: string;
  /** Import: how the properties its provider reports differ from the template's, as drift shows them. */
  differences?: DriftDifference[];
  /** Modify: the property changes as JSON Patch. */
  patch?: PatchOperation[];
  /** Modify: the value each replaced or removed path of the patch holds now (masked as the patch is). */
  before?: Record<string, unknown>;
  /** Replace: the create-only properties forcing it, and whether the old resource is deleted first. */
  replacement?: { properties: string[]; deleteFirst: boolean };
  /** Add: the properties to create with. */
  properties?: Record<string, unknown>;
  /** Remove: Retain keeps the resource (it only leaves the stack). */
  retain?: boolean;
  /** What admission policies and hooks say of it, when its values are known at plan time (review-plan.ts). */
  verdicts?: Verdict[];
  /**
   * Not judged by this plan (rules, policies, hooks) but when it is made: why, and the pointers into
   * its properties whose values are known only after apply (`unknown`) or hold a masked secret.
   */
  notJudged?: { message: string; unknown?: string[]; masked?: string[] };
  /** A nested stack added or modified: the changes its own deployment would make (nested/plan.ts). */
  nested?: NestedPlan;
}

/**
 * The changes applying `analysis` would make. A value that fails to evaluate only now (an operand
 * read from a resource the stack holds) refuses the plan with located diagnostics, secrets masked.
 */
export function computePlan(
  analysis: Analysis,
  records: ReadonlyMap<string, ResourceRecord>,
  context: {
    stackName: string;
    stackId: string;
    pseudo: PseudoParameters;
    importValue: (name: string) => string | undefined;
    /** The resources being imported (import/), by logical id. */
    importing?: ReadonlyMap<string, Importing>;
  },
): PlannedChange[] {
  const secrets = analysis.secretValues;
  /** What a dependant sees of each resource: recorded, merged with its new properties, or unknown. */
  const applied = new Map<string, AppliedResource>();
  const scope = createScope({
    template: analysis.template,
    parameters: new Map<string, ParameterValue>(analysis.parameters),
    ...context,
    applied: (id) => applied.get(id),
    secret: { parameters: analysis.secretParameters, imports: analysis.secretImports },
  });
  const changes: PlannedChange[] = [];
  const diagnostics: Diagnostic[] = [];
  const included = new Set<string>();
  for (const logicalId of analysis.order) {
    const resource = analysis.resources.get(logicalId)!;
    const type = resource.compiled.type;
    const rec = records.get(logicalId);
    let evaluated: Record<string, unknown>;
    try {
      if (scope.included(logicalId) === false) continue;
      included.add(logicalId);
      evaluated = conformProperties(
        type,
        evaluateProperties(
          resource.declaration.properties,
          scope,
          `/Resources/${logicalId}/Properties`,
        ) as Record<string, unknown>,
      );
    } catch (e) {
      if (!(e instanceof EvaluationError)) throw e;
      const problem = stackDiagnostic(e.rule, e.pointer, maskReason(e.message, secrets));
      diagnostics.push(locate(problem, analysis.template.document, undefined));
      continue;
    }
    const importing = rec ? undefined : context.importing?.get(logicalId);
    if (importing) {
      changes.push(importChange(logicalId, type, evaluated, importing, secrets));
      applied.set(logicalId, appliedOf(type, importing.identifier, importing.model));
      continue;
    }
    const { decision, desired } = decideNamed(
      type,
      rec,
      evaluated,
      () => new Unknown([`${logicalId}.${namedProperty(type)}`]),
    );
    const change: PlannedChange = { logicalId, type: type.typeName, action: decision.action };
    if (rec?.identifier !== undefined) change.identifier = rec.identifier;
    switch (decision.action) {
      case 'Add':
        change.properties = mask(plain(desired), secrets, type) as Record<string, unknown>;
        break;
      case 'Modify':
        change.patch = decision.patch!.map((op) => maskOperation(op, type, secrets));
        change.before = valuesBefore(rec!.properties, decision.patch!, type, secrets);
        applied.set(logicalId, appliedOf(type, rec!.identifier!, { ...rec!.model, ...desired }));
        break;
      case 'Replace':
        change.replacement = { properties: decision.createOnly!, deleteFirst: decision.deleteFirst! };
        change.properties = mask(plain(desired), secrets, type) as Record<string, unknown>;
        break;
      case 'NoChange':
        applied.set(logicalId, appliedOf(type, rec!.identifier!, rec!.model));
        break;
    }
    changes.push(change);
  }
  if (diagnostics.length > 0) throw invalidTemplate(diagnostics);
  const removed = [...records.values()].filter((r) => !included.has(r.logicalId));
  for (const rec of removed.reverse())
    changes.push({
      logicalId: rec.logicalId,
      type: rec.type,
      action: 'Remove',
      ...(rec.identifier !== undefined ? { identifier: rec.identifier } : {}),
      ...(retained(rec.deletionPolicy) ? { retain: true } : {}),
    });
  return changes;
}

function maskOperation(op: PatchOperation, type: ResourceType, secrets: string[]): PatchOperation {
  if (op.value === undefined) return op;
  if (touchesWriteOnly(type, op.path)) return { ...op, value: MASK };
  return { ...op, value: mask(op.value, secrets, type, op.path) };
}

/** What each path a patch replaces or removes holds in `properties` now, masked as {@link maskOperation} masks. */
function valuesBefore(
  properties: Record<string, unknown>,
  patch: PatchOperation[],
  type: ResourceType,
  secrets: string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const op of patch) {
    if (op.op !== 'replace' && op.op !== 'remove') continue;
    let value: unknown = properties;
    for (const token of op.path.split('/').slice(1))
      value = (value as Record<string, unknown> | undefined)?.[token.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (value === undefined) continue;
    out[op.path] = touchesWriteOnly(type, op.path) ? MASK : mask(value, secrets, type, op.path);
  }
  return out;
}

/** Whether a change still holds values known only after apply (shown as such). */
export function pending(change: PlannedChange): boolean {
  return hasUnknown(change.patch ?? change.properties ?? {});
}

export { KNOWN_AFTER_APPLY };

/** A resource as its dependants see it: identifier, model, and what `Ref` gives. */
function appliedOf(type: ResourceType, identifier: string, model: Record<string, unknown>): AppliedResource {
  const ref = refValue(type, identifier, model);
  return ref === identifier ? { identifier, model } : { identifier, model, ref };
}

/**
 * @module The plan stage: a stack's plan made (its changes computed against the stack's resources)
 * and stored as data, to be shown and applied later by id; and a stored plan read back, with whether
 * the stack is still as the plan assumed.
 */
import { randomUUID } from 'node:crypto';
import type { Diagnostic } from '../schema/index.js';
import type { StacksCore } from './core.js';
import { importValuesOf } from './import-names.js';
import { computePlan, type PlannedChange } from './plan.js';
import { planNotFound, typesIn, typesOf, unnamed, type Authorize } from './reach.js';
import type { PlanRecord, ResourceRecord, StackCaller, StackRecord } from './records.js';
import type { Analysis } from './analyze.js';
import { callerOfStack, reviewPlan } from './review-plan.js';
import { NEVER_CREATED } from './status.js';
import { sealParameters } from './stored-parameters.js';
import { analyzeForStack } from './validate.js';
import { assertImportOnly, resolveImports, type Importing, type ResourceToImport } from './import/index.js';
import { planDigests, type ResolvedParameter } from './parameter-store/index.js';
import { planNestedStacks } from './nested/plan.js';

/** A stored plan as an answer shows it. */
export interface PlanView {
  planId: string;
  stackName: string;
  createdAt: string;
  changes: PlannedChange[];
  /** The template's warnings (an answer carries them as validate does). */
  diagnostics: Diagnostic[];
  /** Each parameter of an SSM parameter type: the SSM parameter it names, and the value read. */
  resolvedParameters?: ResolvedParameter[];
  current: boolean;
}

export async function makePlan(
  core: StacksCore,
  name: string,
  text: string,
  parameters: Record<string, unknown>,
  authorize: Authorize,
  caller?: StackCaller,
  resourcesToImport?: ResourceToImport[],
): Promise<PlanRecord> {
  const analysis = await analyzeForStack(core, name, text, parameters, authorize);
  const current = await core.records.getStack(name);
  authorize(typesOf(analysis));
  // Read once: the types they have now must be in the caller's reach, and the plan compares with them.
  const held = current ? await core.records.getResources(name) : new Map<string, ResourceRecord>();
  if (current) await unnamed(`stack ${name}`, () => authorize(typesIn(held)));
  const records =
    current && !NEVER_CREATED.has(current.record.status) ? held : new Map<string, ResourceRecord>();
  const importing =
    resourcesToImport && (await resolveImports(core, name, analysis, resourcesToImport, records, authorize));
  const changes = await changesOf(core, name, analysis, current?.record, records, importing);
  await planNestedStacks(core, name, changes, records, authorize);
  await reviewPlan(core, changes, records, callerOfStack(caller, name), importing || undefined);
  const plan: PlanRecord = {
    planId: randomUUID(),
    stack: name,
    baseVersion: current?.record.version ?? 0,
    template: text,
    parameters: sealParameters(core.records, name, parameters, analysis.secretParameters),
    changes,
    warnings: analysis.warnings,
    ...(resourcesToImport ? { resourcesToImport } : {}),
    ...(analysis.resolvedParameters?.length
      ? {
          resolvedParameters: analysis.resolvedParameters,
          resolvedDigests: planDigests(analysis, (data) => core.sealer.mac(data)),
        }
      : {}),
    createdAt: new Date().toISOString(),
  };
  await core.records.putPlan(plan);
  return plan;
}

export async function getPlan(
  core: StacksCore,
  name: string,
  planId: string,
  authorize: Authorize,
): Promise<PlanView> {
  const plan = await core.records.getPlan(name, planId);
  if (!plan || plan.stack !== name) throw planNotFound(name, planId);
  // The caller named the plan only: a refusal names none of its types.
  await unnamed(`plan ${planId}`, () =>
    authorize([...new Set((plan.changes as PlannedChange[]).map((c) => c.type))]),
  );
  const stack = await core.records.getStack(name);
  return {
    planId,
    stackName: name,
    createdAt: plan.createdAt,
    changes: plan.changes as PlannedChange[],
    diagnostics: (plan.warnings ?? []) as Diagnostic[],
    ...(plan.resolvedParameters
      ? { resolvedParameters: plan.resolvedParameters as ResolvedParameter[] }
      : {}),
    current: (stack?.record.version ?? 0) === plan.baseVersion,
  };
}

/** What applying `analysis` to the stack as recorded would change (see computePlan). */
export async function changesOf(
  core: StacksCore,
  name: string,
  analysis: Analysis,
  stack: StackRecord | undefined,
  records: ReadonlyMap<string, ResourceRecord>,
  /** The resources an import brings in (import/): its plan changes nothing else, or is refused. */
  importing?: ReadonlyMap<string, Importing>,
): Promise<PlannedChange[]> {
  const imports = await importValuesOf(core.records, analysis.template, {
    parameters: analysis.parameters,
    stackName: name,
    pseudo: core.ctx.pseudo,
  });
  const changes = computePlan(analysis, records, {
    stackName: name,
    stackId: stack?.stackId ?? 'known after apply',
    pseudo: core.ctx.pseudo,
    importValue: (n) => imports.get(n)?.value,
    ...(importing ? { importing } : {}),
  });
  if (importing) assertImportOnly(changes, importing, (id) => analysis.resources.get(id)!.compiled.type);
  return changes;
}

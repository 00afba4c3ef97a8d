/**
 * @module The outputs stage, and a successful deployment's end: outputs evaluated (secret ones
 * sealed), exports and imports recorded, the stack's new template, parameters and status written.
 * An output's `{{resolve:ssm:…}}` references are resolved, as CloudFormation resolves them in Outputs;
 * secure ones (`ssm-secure`, `secretsmanager`) stay the reference's text, never the secret.
 */
import { asEvaluationError } from '../analyze.js';
import { plain } from '../changes.js';
import { evaluate, type Scope } from '../intrinsics.js';
import type { StackOutput, StackRecord, StackStatus, StoredValue } from '../records.js';
import type { OutputDeclaration } from '../template.js';
import { outputReferencesResolved } from '../parameter-store/index.js';
import { fromSecret, holdsSecret } from '../secrets.js';
import type { DeploymentState, EvaluatedOutputs } from './state.js';

/** An output's value in `scope`, as plain data; undefined when its Condition does not hold. */
export function outputValue(output: OutputDeclaration, scope: Scope): { value: unknown } | undefined {
  const at = `/Outputs/${output.name}`;
  if (output.condition !== undefined && scope.condition(output.condition, `${at}/Condition`) !== true)
    return undefined;
  return { value: plain({ v: evaluate(output.value, scope, `${at}/Value`) }).v };
}

export async function evaluateOutputs(d: DeploymentState, scope: Scope): Promise<EvaluatedOutputs> {
  const outputs: StackOutput[] = [];
  const exports = new Map<string, StoredValue>();
  const analysis = d.analysis!;
  for (const output of analysis.template.outputs.values()) {
    const at = `/Outputs/${output.name}`;
    const evaluated = outputValue(output, scope);
    if (evaluated === undefined) continue;
    let value = evaluated.value;
    if (JSON.stringify(value).includes('{{resolve:'))
      value = await outputReferencesResolved(value, d.ctx.parameterStore, d.caller);
    // An output built from a NoEcho parameter (or a secret import) is as secret as the parameter.
    const secret = holdsSecret(value, d.secrets) || fromSecret(output.value, d.secretSources(analysis));
    const stored = secret ? d.ctx.records.seal(value, `stack-output:${d.name}/${output.name}`) : { value };
    const entry: StackOutput = { name: output.name, value: stored };
    if (output.description !== undefined) entry.description = output.description;
    if (output.exportName !== undefined) {
      const exportName = String(evaluate(output.exportName, scope, `${at}/Export/Name`));
      entry.exportName = exportName;
      exports.set(exportName, secret ? d.ctx.records.seal(value, `stack-export:${exportName}`) : { value });
    }
    outputs.push(entry);
  }
  return { outputs, exports };
}

export async function finishSuccess(d: DeploymentState): Promise<void> {
  const analysis = d.analysis!;
  const scope = d.scope(analysis);
  try {
    d.outputs ??= await evaluateOutputs(d, scope);
  } catch (e) {
    // Resumed after its forward phase, with outputs that no longer evaluate: it ends, failed.
    const reason = `output: ${asEvaluationError(e, '/Outputs').message}`;
    return d.finish(d.record.update ? 'UPDATE_FAILED' : 'CREATE_FAILED', reason);
  }
  const { outputs, exports } = d.outputs;
  for (const [name, value] of exports) await d.ctx.records.putExport(name, d.name, value);
  for (const name of d.stack.exports) if (!exports.has(name)) await d.ctx.records.deleteExport(name, d.name);
  const imports = [...d.imports.keys()];
  for (const name of imports) await d.ctx.records.setImport(name, d.name, true);
  for (const name of d.stack.imports)
    if (!d.imports.has(name)) await d.ctx.records.setImport(name, d.name, false);
  const status: StackStatus = d.record.update ? 'UPDATE_COMPLETE' : 'CREATE_COMPLETE';
  // The stack's record and its event in one commit (the record says the status already: the event
  // alone); the deployment's record goes only once the stack no longer names it.
  const updated = d.ctx.records.updateStack(d.name, (s) => {
    const next: StackRecord = {
      ...s,
      status,
      version: s.version + 1,
      template: d.record.template!,
      parameters: d.record.parameters!,
      outputs,
      exports: [...exports.keys()],
      imports,
    };
    if (analysis.template.description !== undefined) next.description = analysis.template.description;
    delete next.statusReason;
    delete next.deployment;
    return next;
  });
  await Promise.all([updated, d.event(status), d.written()]);
  await d.ctx.records.deleteDeployment(d.id);
  d.ended(status);
}

/**
 * @module The validate stage: a template read and analysed against the types the caller reaches,
 * every problem at once — on its own (validate), or for a stack about to be planned or deployed,
 * with the values it imports from other stacks.
 */
import { TypeplaneError } from '../errors.js';
import type { Diagnostic, ResourceType } from '../schema/index.js';
import { hasErrors } from '../schema/index.js';
import { analyzeTemplate, type Analysis, type TypeSource } from './analyze.js';
import type { PseudoParameters } from './intrinsics.js';
import type { StacksCore } from './core.js';
import { importedValues, secretImports } from './imports.js';
import { importNames } from './import-names.js';
import { resolveParameters } from './parameters.js';
import { recordedTypes, typesOf, unnamed, type Authorize } from './reach.js';
import { capDiagnostics, invalidTemplate } from './rules.js';
import { assertStackName } from './status.js';
import { loadTemplateYielding, locate } from './template.js';
import { authorizeStoreReads, resolveParameterTypes } from './parameter-store/index.js';
import { scopedTypes } from './types.js';
import { languageExtensions } from './language-extensions/index.js';

/** What `Fn::GetAtt` would find empty: warned of at validation and plan, not failed at deploy. */
function readOnlyNeverSet(core: StacksCore): (type: ResourceType) => readonly string[] {
  return (type) => core.ctx.engine.readOnlyNeverSet(type);
}

export async function validate(
  core: StacksCore,
  text: string,
  parameters: Record<string, unknown> | undefined,
  authorize: Authorize,
): Promise<{ valid: boolean; diagnostics: Diagnostic[]; types: string[] }> {
  return validateTemplate(text, {
    types: scopedTypes(core.ctx.types, authorize),
    ...(parameters ? { parameters } : {}),
    pseudo: core.ctx.pseudo,
    readOnlyNeverSet: readOnlyNeverSet(core),
  });
}

/** What {@link validateTemplate} checks a template against. */
export interface TemplateCheck {
  types: TypeSource;
  /** The values to check with; without them, each parameter lacking a value is a warning (TP4025). */
  parameters?: Record<string, unknown>;
  pseudo: PseudoParameters;
  readOnlyNeverSet?: (type: ResourceType) => readonly string[];
}

/**
 * `typeplane stack validate`'s findings on a template, against `types`: what the server answers, and
 * what an editor shows (src/lsp) with the types it knows.
 */
export async function validateTemplate(
  text: string,
  check: TemplateCheck,
): Promise<{ valid: boolean; diagnostics: Diagnostic[]; types: string[] }> {
  const { parameters } = check;
  const loaded = await loadTemplateYielding(
    text,
    undefined,
    languageExtensions({ ...(parameters ? { parameters } : {}), pseudo: check.pseudo }),
  );
  if (!loaded.template) return { valid: false, diagnostics: capDiagnostics(loaded.diagnostics), types: [] };
  const result = await analyzeTemplate(loaded.template, {
    types: check.types,
    parameters: parameters ?? {},
    requireValues: parameters !== undefined,
    pseudo: check.pseudo,
    ...(check.readOnlyNeverSet ? { readOnlyNeverSet: check.readOnlyNeverSet } : {}),
  });
  const diagnostics = capDiagnostics([...loaded.diagnostics, ...result.diagnostics]);
  return {
    valid: !hasErrors(diagnostics),
    diagnostics,
    types: result.analysis ? typesOf(result.analysis) : [],
  };
}

/** Analyse a template for a stack: every problem at once, or the analysis. */
export async function analyzeForStack(
  core: StacksCore,
  name: string,
  text: string,
  parameters: Record<string, unknown>,
  authorize: Authorize,
): Promise<Analysis> {
  assertStackName(name);
  if (typeof text !== 'string' || text.trim() === '')
    throw new TypeplaneError('InvalidRequest', 'template must be the template text (JSON or YAML)');
  const loaded = await loadTemplateYielding(
    text,
    undefined,
    languageExtensions({ parameters, pseudo: core.ctx.pseudo, stackName: name }),
  );
  if (!loaded.template || hasErrors(loaded.diagnostics)) throw invalidTemplate(loaded.diagnostics);
  // SSM parameter types read the server's own parameters, as this caller may (read anew each time).
  authorizeStoreReads(loaded.template, authorize);
  const fromStore = await resolveParameterTypes(loaded.template, parameters, core.ctx.parameterStore);
  // The exports imported, by names computed from the parameters too (a value refused is left to the
  // analysis, which reports it).
  const names = importNames(loaded.template, {
    parameters: resolveParameters(loaded.template, fromStore.parameters).values,
    stackName: name,
    pseudo: core.ctx.pseudo,
  });
  // An imported value is another stack's: the caller must reach that stack's every type to read it.
  for (const exportName of names) {
    const holder = await core.records.getExport(exportName);
    if (holder)
      await unnamed(`the stack exporting ${exportName}`, async () =>
        authorize(await recordedTypes(core.records, holder.stack)),
      );
  }
  const imports = await importedValues(core.records, loaded.template, names);
  const result = await analyzeTemplate(loaded.template, {
    types: scopedTypes(core.ctx.types, authorize),
    parameters: fromStore.parameters,
    requireValues: true,
    stackName: name,
    pseudo: core.ctx.pseudo,
    importValue: (n) => imports.get(n)?.value,
    secretImports: secretImports(imports),
    readOnlyNeverSet: readOnlyNeverSet(core),
  });
  if (!result.analysis || hasErrors(fromStore.diagnostics))
    throw invalidTemplate([
      ...fromStore.diagnostics.map((d) => locate(d, loaded.template!.document, undefined)),
      ...result.diagnostics,
    ]);
  return { ...result.analysis, resolvedParameters: fromStore.resolved };
}

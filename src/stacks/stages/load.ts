/**
 * @module The first stage of a deployment: its stored template and parameters read and analysed
 * again (a resumed deployment has nothing else), the values it imports read, its secrets known
 * (NoEcho parameters, secret imports, the Data of custom resources answered NoEcho).
 */
import { analyzeTemplate } from '../analyze.js';
import { secretImports } from '../imports.js';
import { importValuesOf } from '../import-names.js';
import { resolveParameters } from '../parameters.js';
import { openParameters } from '../stored-parameters.js';
import { loadTemplateYielding } from '../template.js';
import { resolveParameterTypes } from '../parameter-store/index.js';
import { languageExtensions } from '../language-extensions/index.js';
import type { DeploymentState } from './state.js';
import { noEchoTexts } from '../custom-resources/index.js';

/** Leaves `d.analysis` unset (and the deployment failed) when the template no longer analyses. */
export async function load(d: DeploymentState): Promise<void> {
  // Begun here moments ago, from the same template and parameters: analysed already.
  if (d.begun && d.record.kind === 'deploy') {
    d.imports = await importValuesOf(d.ctx.records, d.begun.template, {
      parameters: d.begun.parameters,
      stackName: d.name,
      pseudo: d.ctx.pseudo,
    });
    d.analysis = d.begun;
    d.secrets = [...d.begun.secretValues, ...noEchoTexts(d.resources.values())];
    return;
  }
  const parameters = openParameters(d.ctx.records, d.name, d.record.parameters);
  const loaded = await loadTemplateYielding(
    d.record.template ?? '',
    undefined,
    languageExtensions({ parameters, pseudo: d.ctx.pseudo, stackName: d.name }),
  );
  if (!loaded.template) return d.fail('the template can no longer be read');
  // Read again, as when it began (its caller's access was checked then).
  const fromStore = await resolveParameterTypes(loaded.template, parameters, d.ctx.parameterStore);
  if (fromStore.diagnostics.length > 0)
    return d.fail(`the template's parameters no longer resolve: ${fromStore.diagnostics[0]!.message}`);
  d.imports = await importValuesOf(d.ctx.records, loaded.template, {
    parameters: resolveParameters(loaded.template, fromStore.parameters).values,
    stackName: d.name,
    pseudo: d.ctx.pseudo,
  });
  const result = await analyzeTemplate(loaded.template, {
    types: d.ctx.types,
    parameters: fromStore.parameters,
    requireValues: true,
    stackName: d.name,
    pseudo: d.ctx.pseudo,
    importValue: (name) => d.imports.get(name)?.value,
    secretImports: secretImports(d.imports),
  });
  // A template stored before a rule refused it (a condition naming a resource) fails here, once.
  if (!result.analysis)
    return d.fail(
      `the template is no longer valid: ${result.diagnostics
        .filter((diagnostic) => diagnostic.severity === 'error')
        .slice(0, 3)
        .map((diagnostic) => `${diagnostic.rule} ${diagnostic.message}`)
        .join('; ')}`,
    );
  d.analysis = result.analysis;
  d.secrets = [...result.analysis.secretValues, ...noEchoTexts(d.resources.values())];
}

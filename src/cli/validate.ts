/**
 * @module `typeplane validate <files or folders...>`
 */
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { Option, type Command } from 'commander';
import { loadTypes } from '../schema/index.js';
import type { Diagnostic } from '../schema/index.js';
import { noteSkipped, plural, progressLine } from './output.js';
import { excludedBy } from './path-glob.js';
import { yaml } from './yaml.js';

const FORMATS = ['text', 'json', 'yaml'] as const;

export interface ValidateCommandOptions {
  output: (typeof FORMATS)[number];
  /** The older name of --output, still taken. */
  format?: string;
  strict: boolean;
  quiet: boolean;
  exclude: string[];
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description(
      'check resource schemas (JSON/YAML), manifests (YAML) and hook schemas; folders are searched recursively',
    )
    .argument('<paths...>', 'files or folders')
    .addOption(
      new Option('-o, --output <format>', 'output format (json and yaml: a report per file)')
        .choices(FORMATS)
        .default('text'),
    )
    .addOption(new Option('--format <format>').hideHelp())
    .option('--strict', 'treat warnings as errors', false)
    .option('-q, --quiet', 'print errors only, not warnings', false)
    .option(
      '--exclude <glob>',
      "skip files and folders the glob matches (* within a folder's name, ** across folders; repeatable)",
      (glob: string, globs: string[]) => [...globs, glob],
      [],
    )
    .addHelpText(
      'after',
      `
Hook schemas (CloudFormation's hook definition) are checked as their registration checks them.
In folders, files that are no type document (stack templates, generated Bicep types and JSON
Schemas) are skipped with a note; named on their own they are errors.

Exit codes: 0 valid, 1 invalid (or, with --strict, any warning), 2 usage error (a missing file
or folder too).

Examples:
  $ typeplane validate examples/
  $ typeplane validate examples/ -o json
  $ typeplane validate examples/postgresDatabases.yaml --strict
  $ typeplane validate types/ --exclude 'drafts/**' --exclude '*.draft.yaml'`,
    )
    .action(async (paths: string[], options: ValidateCommandOptions, command: Command) => {
      const missing = paths.find((path) => !existsSync(path));
      if (missing !== undefined)
        command.error(`error: no such file or folder: ${missing}`, { exitCode: 2, code: 'typeplane.usage' });
      if (options.format !== undefined) {
        if (!(FORMATS as readonly string[]).includes(options.format))
          command.error(`error: -o/--output must be one of ${FORMATS.join(', ')}, not '${options.format}'`, {
            exitCode: 2,
            code: 'typeplane.usage',
          });
        options.output = options.format as ValidateCommandOptions['output'];
      }
      tierUpLater();
      process.exitCode = await runValidate(paths, options);
    });
}

/**
 * A validate is one short batch, and V8 tiers up for long-lived programs: a check's function is
 * optimised after ~66 KB of its bytecode has run, before the documents' hundreds of shapes have
 * reached it, then thrown away and compiled again as new ones do (the AWS corpus: 93 compiles, over
 * a second of compiler time on a second core, the semantic walk alone 8 times). Tiering up about three
 * times later compiles half as much for the same steady state: whole process, a fifth less CPU and a
 * tenth less wall time for the corpus. Only this command's process: the server keeps V8's defaults.
 */
function tierUpLater(): void {
  setFlagsFromString('--interrupt-budget=200000');
}

/** Returns the exit code: 0 valid, 1 invalid. */
export async function runValidate(paths: string[], options: ValidateCommandOptions): Promise<number> {
  const progress = options.output === 'text' ? progressLine(process.stderr, 'validating') : undefined;
  const { results, skipped } = await loadTypes(paths, {
    cwd: process.cwd(),
    bicepWarnings: true,
    // Only the diagnostics and the types' names are shown.
    models: false,
    exclude: excludedBy(options.exclude),
    onProgress: (done, total) => progress?.update(done, total),
    // Loaded when a hook schema is met: most folders have none.
    checkHook: async (content, file) =>
      (await import('../policy/hooks/index.js')).checkHookSchema(content, { file }),
  });
  progress?.clear();

  const failed = (d: Diagnostic) => d.severity === 'error' || options.strict;
  let errors = 0;
  let warnings = 0;
  let validFiles = 0;
  let types = 0;
  let hooks = 0;
  for (const result of results) {
    const fileErrors = result.diagnostics.filter(failed).length;
    errors += fileErrors;
    warnings += result.diagnostics.length - fileErrors;
    if (fileErrors === 0) {
      validFiles++;
      types += result.types.length;
      if (result.dialect === 'hook') hooks++;
    }
  }
  const ok = errors === 0;

  if (options.output !== 'text') {
    const report = {
      valid: ok,
      summary: { files: results.length, validFiles, hooks, errors, warnings, skipped: skipped.length },
      skipped,
      files: results.map((r) => ({
        file: r.file,
        dialect: r.dialect ?? null,
        valid: !r.diagnostics.some(failed),
        types: r.types.map((t) => (t.apiVersion ? `${t.typeName}@${t.apiVersion}` : t.typeName)),
        diagnostics: r.diagnostics.map((d) => ({ ...d, severity: failed(d) ? 'error' : d.severity })),
      })),
    };
    process.stdout.write(
      options.output === 'yaml' ? yaml().stringify(report) : JSON.stringify(report, null, 2) + '\n',
    );
    return ok ? 0 : 1;
  }

  const lines: string[] = [];
  for (const result of results) {
    for (const d of result.diagnostics) {
      const severity = failed(d) ? 'error' : 'warning';
      if (severity === 'warning' && options.quiet) continue;
      lines.push(
        `${d.file ?? result.file ?? '-'}:${d.line ?? 1}:${d.column ?? 1}  ${severity.padEnd(7)}  ${d.rule}  ${d.message}`,
      );
    }
  }
  if (lines.length > 0) process.stdout.write(lines.join('\n') + '\n');
  if (!options.quiet) noteSkipped(skipped);
  if (results.length === 0) {
    process.stderr.write('no resource schemas or manifests found (looked for .json, .yaml and .yml files)\n');
    return 1;
  }
  const summary = `${plural(results.length, 'file')} checked: ${plural(validFiles, 'valid file')}, ${plural(types, 'type')}, ${hooks > 0 ? `${plural(hooks, 'hook')}, ` : ''}${plural(errors, 'error')}, ${plural(warnings, 'warning')}${skipped.length > 0 ? `; ${skipped.length} skipped (no type documents)` : ''}`;
  process.stdout.write(`${ok ? '✔' : '✖'} ${summary}\n`);
  return ok ? 0 : 1;
}

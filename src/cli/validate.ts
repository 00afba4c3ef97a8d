/**
 * @module `typeplane validate <files or folders...>`
 */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { findDocuments, loadTypes } from '../schema/index.js';
import type { Diagnostic, ValidationResult } from '../schema/index.js';
import { readBoundedFile } from '../schema/bounded-file.js';
import { plural, progressLine } from './output.js';
import { excludedBy } from './path-glob.js';

const FORMATS = ['text', 'json', 'yaml'] as const;

export interface ValidateCommandOptions {
  output: (typeof FORMATS)[number];
  /** The older name of --output, still taken. */
  format?: string;
  strict: boolean;
  quiet: boolean;
  exclude: string[];
}

/** A file found in a folder that is no type document, and what it is instead. */
interface Skipped {
  file: string;
  reason: string;
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check resource schemas (JSON/YAML) and manifests (YAML); folders are searched recursively')
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
      process.exitCode = await runValidate(paths, options);
    });
}

/** Returns the exit code: 0 valid, 1 invalid. */
export async function runValidate(paths: string[], options: ValidateCommandOptions): Promise<number> {
  const cwd = process.cwd();
  const shown = (file: string) => relative(cwd, file) || file;
  const excluded = excludedBy(options.exclude);
  const { files } = await findDocuments(paths);
  const progress = options.output === 'text' ? progressLine(process.stderr, 'validating') : undefined;
  const loaded = await loadTypes(
    files.filter((file) => !excluded(shown(file))),
    { cwd, bicepWarnings: true, onProgress: (done, total) => progress?.update(done, total) },
  );
  progress?.clear();
  const named = new Set(paths.map((path) => resolve(path)));
  const { results, skipped } = skipOtherDocuments(loaded.results, (file) => named.has(resolve(cwd, file)));

  const failed = (d: Diagnostic) => d.severity === 'error' || options.strict;
  let errors = 0;
  let warnings = 0;
  let validFiles = 0;
  let types = 0;
  for (const result of results) {
    const fileErrors = result.diagnostics.filter(failed).length;
    errors += fileErrors;
    warnings += result.diagnostics.length - fileErrors;
    if (fileErrors === 0) {
      validFiles++;
      types += result.types.length;
    }
  }
  const ok = errors === 0;

  if (options.output !== 'text') {
    const report = {
      valid: ok,
      summary: { files: results.length, validFiles, errors, warnings, skipped: skipped.length },
      skipped,
      files: results.map((r) => ({
        file: r.file,
        dialect: r.dialect ?? null,
        valid: !r.diagnostics.some(failed),
        types: r.types.map((t) => (t.apiVersion ? `${t.typeName}@${t.apiVersion}` : t.typeName)),
        diagnostics: r.diagnostics.map((d) => ({ ...d, severity: failed(d) ? 'error' : d.severity })),
      })),
    };
    process.stdout.write(options.output === 'yaml' ? toYaml(report) : JSON.stringify(report, null, 2) + '\n');
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
  if (!options.quiet)
    for (const { file, reason } of skipped) process.stderr.write(`note: skipped ${file}: ${reason}\n`);
  if (results.length === 0) {
    process.stderr.write('no resource schemas or manifests found (looked for .json, .yaml and .yml files)\n');
    return 1;
  }
  const summary = `${plural(results.length, 'file')} checked: ${plural(validFiles, 'valid file')}, ${plural(types, 'type')}, ${plural(errors, 'error')}, ${plural(warnings, 'warning')}${skipped.length > 0 ? `; ${skipped.length} skipped (no type documents)` : ''}`;
  process.stdout.write(`${ok ? '✔' : '✖'} ${summary}\n`);
  return ok ? 0 : 1;
}

/**
 * Documents that are neither a resource schema nor a manifest but recognisably something else
 * (a stack template, what `generate` writes): skipped when a folder held them, and when named on
 * their own, still an error, saying what they are.
 */
function skipOtherDocuments(
  all: ValidationResult[],
  wasNamed: (file: string) => boolean,
): { results: ValidationResult[]; skipped: Skipped[] } {
  const results: ValidationResult[] = [];
  const skipped: Skipped[] = [];
  for (const result of all) {
    const file = result.file ?? '';
    const kind = result.diagnostics.some((d) => d.rule === 'TP1008') ? otherDocument(file) : undefined;
    if (kind === undefined) results.push(result);
    else if (!wasNamed(file)) skipped.push({ file, reason: kind });
    else
      results.push({
        ...result,
        diagnostics: result.diagnostics.map((d) => (d.rule === 'TP1008' ? { ...d, message: kind } : d)),
      });
  }
  return { results, skipped };
}

/** What a document that is no type document is, when it is something Typeplane knows. */
function otherDocument(file: string): string | undefined {
  const content = readBoundedFile(file, 10 * 1024 * 1024);
  if (!Buffer.isBuffer(content)) return undefined;
  let value: unknown;
  try {
    // Tags such as !Ref are a template's own: read past them quietly.
    value = parseYaml(content.toString('utf8'), { logLevel: 'silent' });
  } catch {
    return undefined;
  }
  if (Array.isArray(value))
    return value.every((t) => typeof t === 'object' && t !== null && '$type' in t)
      ? 'Bicep types (as `typeplane generate bicep` writes), not a type document'
      : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const doc = value as Record<string, unknown>;
  if ('AWSTemplateFormatVersion' in doc || (typeof doc.Resources === 'object' && doc.Resources !== null))
    return 'this is a stack template: use `typeplane stack validate`';
  if ('resources' in doc && 'settings' in doc)
    return 'a Bicep extension index (as `typeplane generate bicep` writes), not a type document';
  if (typeof doc.$schema === 'string' && /json-schema\.org/.test(doc.$schema))
    return 'a JSON Schema (as `typeplane generate json-schema` writes), not a type document';
  return undefined;
}

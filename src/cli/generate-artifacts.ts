/**
 * @module `typeplane generate bicep <paths...> --out <dir>` and `typeplane generate json-schema
 * [paths...] [--meta] --out <dir>`: what a type's consumers get, written to files.
 *
 * Subcommands of `generate` (whose own action writes TypeScript interfaces).
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import {
  generateBicep,
  manifestEditorSchema,
  propertiesSchemaFileName,
  resourceSchemaEditorSchema,
  stackTemplateSchema,
  typePropertiesSchema,
} from '../codegen/index.js';
import { loadTypes, type LoadResult } from '../schema/index.js';
import { noteSkipped, plural, progressLine } from './output.js';

interface OutOptions {
  out?: string;
}

/** Adds the artifact subcommands to the `generate` command of `program`. */
export function registerArtifactGenerators(program: Command): void {
  const generate = program.commands.find((c) => c.name() === 'generate');
  if (!generate) return;
  // `generate` has an `--out` of its own, which commander gives the value when it follows the
  // subcommand's arguments: the subcommands read it from there too.
  const outOf = (options: OutOptions, command: Command): string => {
    const out = options.out ?? (generate.opts() as OutOptions).out;
    if (out === undefined || out.trim() === '')
      command.error('error: --out <dir> is required: the folder to write to', {
        exitCode: 2,
        code: 'typeplane.usage',
      });
    return out;
  };
  generate
    .command('bicep')
    .description(
      'write Bicep extension types (types.json, index.json, index.md) for resource schemas and manifests; one folder per namespace when there are several',
    )
    .argument('<paths...>', 'files or folders')
    .option('--out <dir>', 'the folder to write to (required)')
    .addHelpText('after', '\nExamples:\n  $ typeplane generate bicep examples/ --out bicep-types/')
    .action(async (paths: string[], options: OutOptions, command: Command) => {
      process.exitCode = await runGenerateBicep(paths, outOf(options, command));
    });
  generate
    .command('json-schema')
    .description(
      "write JSON Schemas: with --meta, those for authoring resource schemas and manifests (for a '$schema' line); with paths, one per type of its properties and one for stack templates",
    )
    .argument('[paths...]', 'files or folders of resource schemas and manifests')
    .option('--meta', 'write the schemas of resource schema and manifest documents', false)
    .option('--out <dir>', 'the folder to write to (required)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ typeplane generate json-schema --meta --out schemas/\n  $ typeplane generate json-schema examples/ --out schemas/',
    )
    .action(async (paths: string[], options: OutOptions & { meta: boolean }, command: Command) => {
      const out = outOf(options, command);
      if (!options.meta && paths.length === 0)
        command.error('error: give --meta, or files or folders of types', {
          exitCode: 2,
          code: 'typeplane.usage',
        });
      process.exitCode = await runGenerateJsonSchema(paths, out, options.meta);
    });
}

export async function runGenerateBicep(paths: string[], out: string): Promise<number> {
  const loaded = await load(paths);
  if (!loaded) return 1;
  const extensions = generateBicep(loaded.types);
  const files: Record<string, string> = {};
  for (const extension of extensions) {
    const dir = extensions.length === 1 ? out : join(out, extension.namespace.toLowerCase());
    for (const [name, text] of Object.entries(extension.files)) files[join(dir, name)] = text;
  }
  await writeAll(files);
  process.stderr.write(
    `wrote ${plural(loaded.types.length, 'type')} in ${plural(extensions.length, 'Bicep extension')} to ${out}\n`,
  );
  return 0;
}

export async function runGenerateJsonSchema(paths: string[], out: string, meta: boolean): Promise<number> {
  const files: Record<string, string> = {};
  const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n';
  if (meta) {
    files[join(out, 'resource-schema.json')] = json(resourceSchemaEditorSchema());
    files[join(out, 'manifest.json')] = json(manifestEditorSchema());
  }
  let types = 0;
  if (paths.length > 0) {
    const loaded = await load(paths);
    if (!loaded) return 1;
    for (const type of loaded.types)
      files[join(out, propertiesSchemaFileName(type))] = json(typePropertiesSchema(type));
    files[join(out, 'stack-template.json')] = json(stackTemplateSchema(loaded.types));
    types = loaded.types.length;
  }
  await writeAll(files);
  process.stderr.write(
    `wrote ${plural(Object.keys(files).length, 'schema')}${types ? ` for ${plural(types, 'type')}` : ''} to ${out}\n`,
  );
  return 0;
}

/** The valid types under `paths`, or undefined after printing every error (nothing is written then). */
async function load(paths: string[]): Promise<LoadResult | undefined> {
  const progress = progressLine(process.stderr, 'reading');
  const loaded = await loadTypes(paths, {
    cwd: process.cwd(),
    onProgress: (done, total) => progress.update(done, total),
  });
  progress.clear();
  noteSkipped(loaded.skipped);
  if (loaded.results.length === 0) {
    process.stderr.write('no resource schemas or manifests found (looked for .json, .yaml and .yml files)\n');
    return undefined;
  }
  if (loaded.valid) return loaded;
  const lines = loaded.results.flatMap((r) =>
    r.diagnostics
      .filter((d) => d.severity === 'error')
      .map(
        (d) => `${d.file ?? r.file ?? '-'}:${d.line ?? 1}:${d.column ?? 1}  error    ${d.rule}  ${d.message}`,
      ),
  );
  process.stderr.write(`${lines.join('\n')}\n✖ ${plural(lines.length, 'error')}: nothing generated\n`);
  return undefined;
}

/** Each file written beside its target and renamed into place: a reader never sees half a file. */
async function writeAll(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(path, '..'), { recursive: true });
    const partial = `${path}.${process.pid}.tmp`;
    try {
      await writeFile(partial, text);
      await rename(partial, path);
    } catch (e) {
      await rm(partial, { force: true });
      throw e;
    }
  }
}

/**
 * @module `typeplane generate <files or folders...> [--out <file>]`: TypeScript interfaces for the
 * models of resource types, so provider handlers are typed.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import type { Command } from 'commander';
import { generateTypeScript } from '../codegen/index.js';
import { loadTypes } from '../schema/index.js';
import { noteSkipped, plural, progressLine } from './output.js';

export interface GenerateCommandOptions {
  out?: string;
}

/** Up to this many files are named one by one in the generated header; more are summarised. */
const LISTED_SOURCES = 20;

export function registerGenerate(program: Command): void {
  program
    .command('generate')
    .description(
      'write TypeScript interfaces for the models of resource schemas and manifests; folders are searched recursively',
    )
    .argument('<paths...>', 'files or folders')
    .option('--out <file>', 'write to this file instead of standard output')
    .addHelpText(
      'after',
      `
Examples:
  $ typeplane generate examples/providers/typescript/greeting.json --out greeting-types.ts
  $ typeplane generate bicep examples/ --out bicep-types/
  $ typeplane generate json-schema --meta --out schemas/`,
    )
    .action(async (paths: string[], options: GenerateCommandOptions, command: Command) => {
      if (options.out !== undefined && options.out.trim() === '') {
        command.error('error: --out needs a file name', { exitCode: 2, code: 'typeplane.usage' });
      }
      process.exitCode = await runGenerate(paths, options);
    });
}

/**
 * Returns the exit code: 0 generated, 1 when any input has errors (then nothing is written: the
 * diagnostics go to standard error, in `typeplane validate`'s format).
 */
export async function runGenerate(paths: string[], options: GenerateCommandOptions): Promise<number> {
  const progress = progressLine(process.stderr, 'reading');
  const { results, types, valid, skipped } = await loadTypes(paths, {
    cwd: process.cwd(),
    onProgress: (done, total) => progress.update(done, total),
  });
  progress.clear();
  noteSkipped(skipped);

  if (results.length === 0) {
    process.stderr.write('no resource schemas or manifests found (looked for .json, .yaml and .yml files)\n');
    return 1;
  }
  if (!valid) {
    const lines: string[] = [];
    let errors = 0;
    for (const result of results) {
      for (const d of result.diagnostics) {
        if (d.severity === 'error') errors++;
        lines.push(
          `${d.file ?? result.file ?? '-'}:${d.line ?? 1}:${d.column ?? 1}  ${d.severity.padEnd(7)}  ${d.rule}  ${d.message}`,
        );
      }
    }
    const failed = results.filter((r) => !r.valid).length;
    process.stderr.write(
      `${lines.join('\n')}\n✖ ${plural(errors, 'error')} in ${plural(failed, 'file')}: nothing generated${options.out ? `, ${options.out} left as it was` : ''}\n`,
    );
    return 1;
  }

  const files = results.map((r) => r.file ?? '-');
  const sources =
    files.length <= LISTED_SOURCES
      ? files
      : [
          `${plural(files.length, 'file')} under ${paths.map((p) => relative(process.cwd(), p) || p).join(', ')}`,
        ];
  const code = generateTypeScript(types, sources);

  if (options.out === undefined) {
    process.stdout.write(code);
    return 0;
  }
  // Written beside the target and renamed into place: a reader never sees half a file.
  await mkdir(dirname(options.out), { recursive: true });
  const partial = `${options.out}.${process.pid}.tmp`;
  try {
    await writeFile(partial, code);
    await rename(partial, options.out);
  } catch (e) {
    await rm(partial, { force: true });
    throw e;
  }
  process.stderr.write(`wrote ${plural(types.length, 'type')} to ${options.out}\n`);
  return 0;
}

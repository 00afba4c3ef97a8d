/**
 * @module `typeplane generate <schemas...>`: TypeScript interfaces for resource models.
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { generateTypeScript } from '../codegen/index.js';
import { loadTypes } from '../schema/index.js';

export function registerGenerate(program: Command): void {
  program
    .command('generate')
    .description('write TypeScript interfaces for the models of resource schemas and manifests')
    .argument('<paths...>', 'files or folders')
    .option('--out <file>', 'write to this file instead of standard output')
    .action(async (paths: string[], options: { out?: string }) => {
      const { results, types, valid } = await loadTypes(paths, { cwd: process.cwd() });
      if (!valid || results.length === 0) {
        for (const r of results) {
          for (const d of r.diagnostics.filter((x) => x.severity === 'error')) {
            process.stderr.write(
              `${d.file ?? r.file ?? '-'}:${d.line ?? 1}:${d.column ?? 1}  error  ${d.rule}  ${d.message}\n`,
            );
          }
        }
        if (results.length === 0) process.stderr.write('no resource schemas or manifests found\n');
        process.stderr.write('nothing generated: fix the errors above (typeplane validate shows them all)\n');
        process.exitCode = 1;
        return;
      }
      const text = generateTypeScript(
        types,
        results.map((r) => r.file ?? '-'),
      );
      if (options.out) {
        await writeFile(options.out, text);
        process.stderr.write(
          `wrote ${types.length} type${types.length === 1 ? '' : 's'} to ${options.out}\n`,
        );
      } else {
        process.stdout.write(text);
      }
    });
}

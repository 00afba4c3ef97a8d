/**
 * @module `typeplane diff <old> <new>`, `typeplane diff <manifest>`, `typeplane diff --registered <type> <new>`:
 * what a new version of a type changes, each change breaking, dangerous or safe. Exit 1 when anything
 * breaks (or a document is invalid, so nothing could be compared).
 */
import { Command, Option } from 'commander';
import { diffAgainst, diffApiVersions, diffDocuments, type Change, type DiffResult } from '../diff/index.js';
import type { ResourceType } from '../schema/index.js';
import { action, CA_FILE_HELP, clientFor, examples, type Common } from './api-commands.js';
import { FILES, readLocal } from './local-files.js';
import { ApiError, render, type Client } from './client.js';
import { plural, withQuery } from './output.js';

interface DiffOptions extends Common {
  registered?: string;
  version?: string;
}

export function registerDiff(program: Command): void {
  const diff = program
    .command('diff')
    .description(
      'classify the changes between two versions of a type as breaking, dangerous or safe (exit 1 when any is breaking)',
    )
    .argument(
      '<old>',
      'the earlier document (with --registered: the new one; a manifest alone: its API versions in turn)',
    )
    .argument('[new]', 'the later document')
    .option(
      '--registered <typeName>',
      'compare the type as the server has it (its default version) with the document',
    )
    .option('--version <version>', 'with --registered: the registered version to compare with')
    .option('--endpoint <url>', 'Typeplane server for --registered (env TYPEPLANE_ENDPOINT)')
    .option('--token <token>', 'API token for --registered (env TYPEPLANE_TOKEN)')
    .option('--ca-file <file>', CA_FILE_HELP)
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['json', 'yaml', 'table'])
        .default('table'),
    )
    .action(
      action(async (first: string, second: string | undefined, options: DiffOptions, command: Command) => {
        const usage = usageProblem(second, options);
        if (usage) command.error(`error: ${usage}`, { exitCode: 2, code: 'typeplane.usage' });
        const result = await runDiff(first, second, options);
        process.stdout.write(render(report(result), options.output, () => text(result)) + '\n');
        return result.problems.length > 0 || result.counts.breaking > 0 ? 1 : 0;
      }),
    );
  withQuery(diff);
  examples(diff, [
    'typeplane diff examples/shop/widget-v1.json docs/walkthrough/widget-v2.json',
    'typeplane diff examples/queues.yaml   # a manifest alone: each API version against the one before it',
    'typeplane diff --registered Test::Shop::Widget docs/walkthrough/widget-v2.json -o json',
  ]);
}

function usageProblem(second: string | undefined, options: DiffOptions): string | undefined {
  if (options.registered !== undefined && second !== undefined)
    return 'with --registered, give one document: the new version';
  if (options.registered === undefined && options.version !== undefined)
    return '--version goes with --registered <typeName>';
  return undefined;
}

async function runDiff(first: string, second: string | undefined, options: DiffOptions): Promise<DiffResult> {
  if (options.registered !== undefined) {
    const before = await registeredType(options.registered, options);
    return diffAgainst(before, { text: readLocal(first, FILES.typeDocument), file: first });
  }
  const before = { text: readLocal(first, FILES.typeDocument), file: first };
  if (second === undefined) {
    if (!/^\s*types\s*:/m.test(before.text))
      throw new ApiError(
        0,
        'InvalidRequest',
        'give two documents to compare (one alone compares the API versions of a manifest)',
        [],
      );
    return diffApiVersions(before);
  }
  return diffDocuments(before, { text: readLocal(second, FILES.typeDocument), file: second });
}

/** The registered type as the server describes it: every part a comparison reads. */
async function registeredType(typeName: string, options: DiffOptions): Promise<ResourceType> {
  return fetchRegisteredType(clientFor(options), typeName, options.version);
}

/** A registered type (its default version, or `version`) as a ResourceType, from a server of any age. */
export async function fetchRegisteredType(
  client: Client,
  typeName: string,
  version?: string,
): Promise<ResourceType> {
  const query = version !== undefined ? `?version=${encodeURIComponent(version)}` : '';
  const detail = await client.call<
    Omit<ResourceType, 'conditionalCreateOnlyProperties' | 'deprecatedProperties'> &
      Partial<Pick<ResourceType, 'conditionalCreateOnlyProperties' | 'deprecatedProperties'>>
  >('GET', `/v1/types/${encodeURIComponent(typeName)}${query}`);
  // A server older than these lists does not send them.
  return {
    ...detail,
    conditionalCreateOnlyProperties: detail.conditionalCreateOnlyProperties ?? [],
    deprecatedProperties: detail.deprecatedProperties ?? [],
  };
}

function report(result: DiffResult) {
  return {
    breaking: result.counts.breaking > 0,
    counts: result.counts,
    changes: result.changes,
    ...(result.problems.length > 0 ? { problems: result.problems } : {}),
  };
}

function text(result: DiffResult): string {
  const lines = result.problems.map(
    (d) => `${d.file ?? '-'}:${d.line ?? 1}:${d.column ?? 1}  error      ${d.rule}  ${d.message}`,
  );
  if (result.problems.length > 0) return [...lines, '✖ invalid document: nothing compared'].join('\n');
  for (const c of result.changes) lines.push(changeLine(c));
  const { breaking, dangerous, safe } = result.counts;
  const summary = `${plural(breaking, 'breaking change')}, ${plural(dangerous, 'dangerous change')}, ${plural(safe, 'safe change')}`;
  lines.push(`${breaking > 0 ? '✖' : '✔'} ${summary}`);
  return lines.join('\n');
}

function changeLine(c: Change): string {
  const where = `${c.file ?? '-'}:${c.line ?? 1}:${c.column ?? 1}`;
  const type = c.apiVersion ? `${c.typeName}@${c.apiVersion}` : c.typeName;
  return `${where}  ${c.verdict.padEnd(9)}  ${c.rule}  ${type} ${c.message}`;
}

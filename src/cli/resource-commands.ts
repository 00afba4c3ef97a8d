/**
 * @module `typeplane resource put|references` and `typeplane type report upload`: the API's
 * create-or-replace, a resource's references and contract reports, beside the commands of
 * api-commands.ts (whose `type` and `resource` groups they join).
 */
import type { Command } from 'commander';
import {
  action,
  clientFor,
  clientTokenOption,
  common,
  desiredStateOf,
  examples,
  startOperation,
  waitOption,
  type Common,
} from './api-commands.js';
import { columns, render } from './client.js';
import { readLocal, type FileKind } from './local-files.js';
import { EXIT, UsageError } from './usage.js';

const enc = encodeURIComponent;

type Link = { typeName: string; identifier: string };

/** A report is read as the contract-report route takes it: at most 10 MB, as a type document. */
const REPORT: FileKind = {
  what: 'a contract report',
  maxBytes: 10 * 1024 * 1024,
  fix: 'run fewer inputs (--runs) or fewer tests (--only) so the report is smaller',
};

/** A command group api-commands.ts registered (`type`, `resource`). */
function group(program: Command, name: string): Command {
  const found = program.commands.find((c) => c.name() === name);
  if (!found) throw new Error(`the '${name}' commands must be registered first`);
  return found;
}

export function registerResourceCommands(program: Command): void {
  const resource = group(program, 'resource');
  examples(
    clientTokenOption(
      waitOption(
        common(
          resource
            .command('put')
            .argument('<typeName>')
            .argument('<identifier>')
            .description(
              'create the resource, or replace its desired state whole (properties left out are removed)',
            )
            .option('--properties <json>', 'desired state as JSON')
            .option('--file <path>', 'desired state from a JSON or YAML file'),
        ),
      ),
    ),
    [
      `typeplane resource put Test::Shop::Widget ada --properties '{"Name": "ada", "Size": "L"}' --wait`,
      'typeplane resource put Test::Shop::Widget ada --file ada.yaml --wait 60',
    ],
  ).action(
    action(
      async (
        typeName: string,
        identifier: string,
        options: Common & { properties?: string; file?: string; wait?: unknown; clientToken?: string },
      ) => {
        const desiredState = desiredStateOf(options);
        return startOperation(options, 'PUT', `/v1/resources/${enc(typeName)}/${enc(identifier)}`, {
          desiredState,
        });
      },
    ),
  );
  examples(
    common(
      resource
        .command('references')
        .argument('<typeName>')
        .argument('<identifier>')
        .description('what a resource refers to and what refers to it (of the types your token can see)'),
    ),
    [
      'typeplane resource references Test::Shop::Widget ada',
      'typeplane resource references Test::Shop::Widget ada -o json',
    ],
  ).action(
    action(async (typeName: string, identifier: string, options: Common) => {
      const out = await clientFor(options).call<{ references: Link[]; referencedBy: Link[] }>(
        'GET',
        `/v1/resources/${enc(typeName)}/${enc(identifier)}/references`,
      );
      const rows = [
        ...out.references.map((l) => ['refers to', l.typeName, l.identifier]),
        ...out.referencedBy.map((l) => ['referred to by', l.typeName, l.identifier]),
      ];
      process.stdout.write(
        render(out, options.output, () =>
          rows.length === 0
            ? `${typeName} ${identifier} refers to nothing and nothing refers to it`
            : columns(['DIRECTION', 'TYPE', 'IDENTIFIER'], rows),
        ) + '\n',
      );
    }),
  );

  examples(
    common(
      resource
        .command('drift')
        .argument('<typeName>')
        .argument('<identifier>')
        .description(
          'the drift of the resources a recipe made for this resource (read through their providers)',
        )
        .addHelpText(
          'after',
          `\nExit codes: ${EXIT.ok} in sync; ${EXIT.drifted} drifted (a resource was modified or deleted); ${EXIT.failed} the check failed or the server refused it; ${EXIT.usage} usage error.`,
        ),
    ),
    ['typeplane resource drift MyCompany.Resources/postgresDatabases orders'],
  ).action(
    action(async (typeName: string, identifier: string, options: Common) =>
      (await import('./recipe-commands.js')).instanceDrift(typeName, identifier, options),
    ),
  );
  examples(
    waitOption(
      common(
        resource
          .command('upgrade')
          .argument('<typeName>')
          .argument('<identifier>')
          .description(
            "move a recipe-made resource to its recipe's latest version: the plan first, applied with --yes",
          )
          .option('--yes', 'apply the plan (without it, only the plan is shown)'),
      ),
    ).option('--no-wait', 'return once the upgrade is accepted (the default)'),
    [
      'typeplane resource upgrade MyCompany.Resources/postgresDatabases orders',
      'typeplane resource upgrade MyCompany.Resources/postgresDatabases orders --yes --wait',
    ],
  ).action(
    action(
      async (typeName: string, identifier: string, options: Common & { yes?: boolean; wait?: unknown }) =>
        (await import('./recipe-commands.js')).instanceUpgrade(typeName, identifier, options),
    ),
  );

  const report = group(program, 'type')
    .command('report')
    .description("contract reports ('typeplane test -o json') attached to a type's registration");
  examples(
    common(
      report
        .command('upload')
        .argument('<file>', "a report 'typeplane test -o json' wrote")
        .description("attach a contract report to the registration of the report's type (admin)")
        .option('--version <version>', 'a registered version instead of the default'),
    ),
    [
      'typeplane test examples/providers/typescript/greeting.json --provider examples/providers/typescript/greeting-provider.ts -o json > report.json',
      'typeplane type report upload report.json',
      'typeplane type report upload report.json --version 2',
    ],
  ).action(
    action(async (file: string, options: Common & { version?: string }) => {
      const text = readLocal(file, REPORT);
      let typeName: unknown;
      try {
        typeName = (JSON.parse(text) as { typeName?: unknown } | null)?.typeName;
      } catch (e) {
        throw new UsageError(`${file} is not valid JSON: ${(e as Error).message.split('\n')[0]}`);
      }
      if (typeof typeName !== 'string')
        throw new UsageError(`${file} names no typeName: is it a report 'typeplane test -o json' wrote?`);
      const query = options.version === undefined ? '' : `?version=${enc(options.version)}`;
      const out = await clientFor(options).call<{
        typeName: string;
        version?: string;
        contract: { passed: boolean };
      }>('POST', `/v1/types/${enc(typeName)}/contract-report${query}`, text);
      process.stdout.write(
        render(
          out,
          options.output,
          () =>
            `attached the contract report to ${typeName}${options.version === undefined ? '' : ` version ${options.version}`} (${out.contract.passed ? 'passed' : 'failed'})`,
        ) + '\n',
      );
    }),
  );
}

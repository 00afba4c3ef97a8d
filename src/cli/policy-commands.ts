/**
 * @module `typeplane policy create|list|show|delete|test`: admission policies, through the server's
 * API (writes need an admin token), and `policy test`, which evaluates a policy file against a
 * resource offline with the server's own evaluator, so a policy can be tested in CI before it is
 * registered. A policy file's problems are shown at their line and column in the file.
 */
import type { Command } from 'commander';
import { TypeplaneError, type ErrorDetail } from '../errors.js';
import {
  compilePolicy,
  evaluatePolicies,
  readPolicy,
  type PolicyDocument,
  type PolicyOperation,
  type PolicyStatus,
} from '../policy/index.js';
import { parseSource, type SourceDocument } from '../schema/index.js';
import type { Verdict } from '../verdict.js';
import { action, clientFor, common, examples, nothingFound, type Common } from './api-commands.js';
import { ApiError, columns, render, type OutputFormat } from './client.js';
import { FILES, readLocal } from './local-files.js';
import { EXIT, UsageError } from './usage.js';

interface PolicyRecord {
  policy: PolicyDocument;
  createdAt: string;
  updatedAt: string;
  updatedBy?: string;
  /** Listed and shown: whether it is in force (a stored policy may no longer compile). */
  status?: PolicyStatus;
}

/** A listed policy's STATUS: what a policy that does not compile does meanwhile. */
function statusText(status: PolicyStatus | undefined): string {
  if (!status || status.inForce) return 'in force';
  return status.failurePolicy === 'Fail'
    ? 'NOT COMPILED (Fail: a verdict on all it matches)'
    : 'NOT COMPILED (Ignore: off)';
}

const enc = encodeURIComponent;
const OPERATIONS: readonly PolicyOperation[] = ['CREATE', 'UPDATE', 'DELETE'];

export function registerPolicyCommands(program: Command): void {
  const policy = program
    .command('policy')
    .description(
      'admission policies: CEL checks of every change, bound to types and operations (writes need an admin token)',
    );

  examples(
    common(
      policy
        .command('create')
        .argument('<file>', 'the policy, JSON or YAML')
        .option('--replace', 'replace the policy of that name if there is one')
        .description('register a policy; its expressions are compiled and cost-checked first'),
    ),
    ['typeplane policy create policies/no-public-buckets.yaml', 'typeplane policy create p.yaml --replace'],
  ).action(
    action(async (file: string, options: Common & { replace?: boolean }) => {
      const document = loadDocument(file);
      const value = document.value as Record<string, unknown>;
      const name = typeof value?.name === 'string' ? value.name : undefined;
      try {
        const out = await clientFor(options).call<PolicyRecord>(
          options.replace && name !== undefined ? 'PUT' : 'POST',
          options.replace && name !== undefined ? `/v1/policies/${enc(name)}` : '/v1/policies',
          value,
        );
        process.stdout.write(
          render(out, options.output, () => `registered policy ${out.policy.name}`) + '\n',
        );
      } catch (e) {
        if (e instanceof ApiError && e.status === 400)
          return located(document, e.message, e.details as ErrorDetail[]);
        throw e;
      }
    }),
  );

  examples(common(policy.command('list').description('list the registered policies')), [
    'typeplane policy list',
  ]).action(
    action(async (options: Common) => {
      const out = await clientFor(options).call<{ policies: PolicyRecord[] }>('GET', '/v1/policies');
      if (options.output === 'table' && out.policies.length === 0) return nothingFound('No policies found');
      process.stdout.write(
        render(out, options.output, () =>
          columns(
            ['NAME', 'STATUS', 'ACTION', 'TYPES', 'OPERATIONS', 'UPDATED', 'DESCRIPTION'],
            // A stored policy that no longer reads may lack any field: shown as far as it reads.
            out.policies.map(({ policy: p, updatedAt, status }) => [
              String(p?.name ?? ''),
              statusText(status),
              String(p?.action ?? ''),
              Array.isArray(p?.match?.types) ? p.match.types.join(',') : '',
              Array.isArray(p?.match?.operations) ? p.match.operations.join(',') : '',
              updatedAt,
              typeof p?.description === 'string' ? p.description : '',
            ]),
          ),
        ) + '\n',
      );
    }),
  );

  examples(
    common(policy.command('show').argument('<name>', "the policy's name").description('show a policy'), [
      'yaml',
      'json',
    ]),
    ['typeplane policy show no-public-buckets'],
  ).action(
    action(async (name: string, options: Common) => {
      const out = await clientFor(options).call<PolicyRecord>('GET', `/v1/policies/${enc(name)}`);
      if (out.status && !out.status.inForce)
        process.stderr.write(`policy ${name} is not in force as written: ${out.status.reason}\n`);
      process.stdout.write(render(out, options.output) + '\n');
    }),
  );

  examples(
    common(policy.command('delete').argument('<name>', "the policy's name").description('delete a policy')),
    ['typeplane policy delete no-public-buckets'],
  ).action(
    action(async (name: string, options: Common) => {
      await clientFor(options).call('DELETE', `/v1/policies/${enc(name)}`);
      process.stdout.write(`deleted policy ${name}\n`);
    }),
  );

  examples(
    policy
      .command('test')
      .argument('<policy-file>', 'the policy, JSON or YAML')
      .argument(
        '<resource>',
        'the resource as JSON or YAML: its desired state (CREATE, UPDATE), or its state (DELETE)',
      )
      .option('--old <file>', 'the state before the change (an UPDATE)')
      .option('--operation <op>', 'CREATE, UPDATE or DELETE (default: UPDATE with --old, else CREATE)')
      .option(
        '--type <typeName>',
        "the resource's type, checked against the policy's match.types (default: not checked)",
      )
      .option('--params <file>', "a parameter object to use instead of the policy's params")
      .option('--role <role>', "the caller's role the policy sees (request.role)", 'writer')
      .option('--description <text>', "the caller's token description (request.description)", '')
      .option('--stack <name>', 'the stack making the change (request.stack)', '')
      .option('-o, --output <format>', 'table or json', 'table')
      .description('evaluate a policy against a resource, offline, with the server’s evaluator')
      .addHelpText(
        'after',
        `
Exit codes: 0 the change is allowed (warnings and audit verdicts are printed); 1 the policy denies it;
2 a usage error, or the policy does not compile (its problems are printed at their line and column).`,
      ),
    [
      'typeplane policy test no-red.yaml widget.json --type Test::Shop::Widget',
      'typeplane policy test keep-large.yaml widget.json --operation DELETE --role admin',
    ],
  ).action(
    action(
      async (
        policyFile: string,
        resourceFile: string,
        options: {
          old?: string;
          operation?: string;
          type?: string;
          params?: string;
          role: string;
          description: string;
          stack: string;
          output: OutputFormat;
        },
      ) => {
        const operation = (options.operation?.toUpperCase() ??
          (options.old !== undefined ? 'UPDATE' : 'CREATE')) as PolicyOperation;
        if (!OPERATIONS.includes(operation))
          throw new UsageError(
            `--operation takes CREATE, UPDATE or DELETE, not '${options.operation ?? ''}'`,
          );
        if (options.old !== undefined && operation !== 'UPDATE')
          throw new UsageError(
            '--old is the state before an UPDATE; a DELETE reads the resource file as its state',
          );
        const document = loadDocument(policyFile);
        const value = document.value as Record<string, unknown>;
        if (options.params !== undefined && value && typeof value === 'object')
          value.params = loadDocument(options.params).value;
        let compiled;
        try {
          const read = readPolicy(value);
          compiled = compilePolicy(
            options.type === undefined ? { ...read, match: { ...read.match, types: ['*'] } } : read,
          );
        } catch (e) {
          if (e instanceof TypeplaneError) return located(document, e.message, e.details, EXIT.usage);
          throw e;
        }
        const resource = loadDocument(resourceFile).value as Record<string, unknown>;
        const old =
          options.old !== undefined
            ? (loadDocument(options.old).value as Record<string, unknown>)
            : undefined;
        const verdicts = evaluatePolicies([compiled], {
          operation,
          typeName: options.type ?? '',
          ...(operation === 'DELETE' ? { oldObject: resource } : { object: resource }),
          ...(old ? { oldObject: old } : {}),
          request: {
            operation,
            typeName: options.type ?? '',
            identifier: '',
            tokenId: 'policy-test',
            role: options.role,
            description: options.description,
            stack: options.stack,
            dryRun: false,
          },
        });
        const denied = verdicts.some((v) => v.action === 'Deny');
        if (options.output === 'json')
          process.stdout.write(JSON.stringify({ allowed: !denied, verdicts }, null, 2) + '\n');
        else process.stdout.write(`${verdictLines(verdicts)}${denied ? 'denied' : 'allowed'}\n`);
        return denied ? EXIT.failed : EXIT.ok;
      },
    ),
  );
}

function verdictLines(verdicts: readonly Verdict[]): string {
  return verdicts
    .map((v) => `${v.action.toUpperCase()} ${v.name}${v.reason ? ` (${v.reason})` : ''}: ${v.message}\n`)
    .join('');
}

/** A JSON or YAML file, located; a file that does not parse is a usage error at its line. */
function loadDocument(file: string): SourceDocument {
  const { document, diagnostics } = parseSource(readLocal(file, FILES.document), { file });
  if (!document) {
    const d = diagnostics[0];
    throw new UsageError(
      `${file}:${String(d?.line ?? 1)}:${String(d?.column ?? 1)} ${d?.message ?? 'cannot be read'}`,
    );
  }
  return document;
}

/**
 * Prints each problem at its place in the file — for an expression, the line and column in the file
 * where the expression's own line and column fall, when it is written on one line — and returns `code`.
 */
function located(
  document: SourceDocument,
  message: string,
  details: readonly ErrorDetail[],
  code: number = EXIT.failed,
): number {
  process.stderr.write(`error: ${details.length > 0 ? 'the policy has problems' : message}\n`);
  for (const d of details) {
    const at = typeof d.pointer === 'string' ? document.locate(d.pointer) : undefined;
    const inExpression = typeof d.line === 'number' && typeof d.column === 'number' && d.line === 1;
    // A YAML or JSON string's value starts after its quote (when quoted); the column is then near, not exact.
    const column = at ? at.column + (inExpression ? (d.column as number) - 1 : 0) : 1;
    process.stderr.write(
      `${document.file ?? ''}:${String(at?.line ?? 1)}:${String(column)} ${d.pointer ?? ''} ${d.message}\n`,
    );
  }
  return code;
}

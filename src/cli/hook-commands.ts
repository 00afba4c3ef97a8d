/**
 * @module `typeplane hook register|list|show|configure|configuration|deregister`: hooks
 * (CloudFormation Hooks' model) through the server's API, admins only. A schema's problems are shown
 * at their line and column in the file, as `typeplane type register` shows a type document's.
 */
import type { Command } from 'commander';
import { action, clientFor, common, examples, nothingFound, type Common } from './api-commands.js';
import { ApiError, columns, render } from './client.js';
import { FILES, readLocal } from './local-files.js';
import { EXIT, UsageError } from './usage.js';
import { yaml } from './yaml.js';

interface HookSummary {
  typeName: string;
  description: string;
  registeredAt: string;
  handlers: Record<string, { targetNames: string[] }>;
  configured: boolean;
  enabled: boolean;
  failureMode?: string;
  /** The paths whose changes it judges (CloudFormation's TargetOperations), once configured. */
  targetOperations?: string[];
  outcome?: string;
}

const enc = encodeURIComponent;

export function registerHookCommands(program: Command): void {
  const hook = program
    .command('hook')
    .description(
      'hooks: handlers invoked before every change they target, in CloudFormation Hooks’ model (admin token)',
    );

  examples(
    common(
      hook
        .command('register')
        .argument(
          '<file>',
          "the hook's schema (JSON or YAML): typeName, description, typeConfiguration, handlers",
        )
        .description('register a hook, or replace its schema (it runs once configured and enabled)'),
    ),
    ['typeplane hook register examples/hooks/python/require-tags.json'],
  ).action(
    action(async (file: string, options: Common) => {
      const text = readLocal(file, FILES.typeDocument);
      const contentType = /\.ya?ml$/i.test(file) ? 'application/yaml' : 'application/json';
      try {
        const out = await clientFor(options).call<HookSummary>('POST', '/v1/hooks', text, contentType);
        process.stdout.write(
          render(out, options.output, () => `${out.outcome ?? 'registered'} hook ${out.typeName}`) + '\n',
        );
      } catch (e) {
        if (!(e instanceof ApiError) || e.status !== 400 || e.details.length === 0) throw e;
        process.stderr.write(`${e.message}\n`);
        for (const d of e.details as { line?: number; column?: number; rule?: string; message: string }[])
          process.stderr.write(`${file}:${d.line ?? 1}:${d.column ?? 1} ${d.rule ?? ''} ${d.message}\n`);
        return EXIT.failed;
      }
    }),
  );

  examples(common(hook.command('list').description('list the registered hooks')), [
    'typeplane hook list',
  ]).action(
    action(async (options: Common) => {
      const out = await clientFor(options).call<{ hooks: HookSummary[] }>('GET', '/v1/hooks');
      if (options.output === 'table' && out.hooks.length === 0) return nothingFound('No hooks found');
      process.stdout.write(
        render(out, options.output, () =>
          columns(
            ['TYPE NAME', 'ENABLED', 'FAILURE MODE', 'TARGET OPERATIONS', 'HANDLERS', 'TARGETS'],
            out.hooks.map((h) => [
              h.typeName,
              h.configured ? String(h.enabled) : 'not configured',
              h.failureMode ?? '',
              (h.targetOperations ?? []).join(','),
              Object.keys(h.handlers).join(','),
              [...new Set(Object.values(h.handlers).flatMap((x) => x.targetNames))].join(','),
            ]),
          ),
        ) + '\n',
      );
    }),
  );

  examples(
    common(hook.command('show').argument('<typeName>').description('show a hook and its schema'), [
      'yaml',
      'json',
    ]),
    ['typeplane hook show Example::Policy::RequireTags'],
  ).action(
    action(async (typeName: string, options: Common) => {
      const out = await clientFor(options).call('GET', `/v1/hooks/${enc(typeName)}`);
      process.stdout.write(render(out, options.output) + '\n');
    }),
  );

  examples(
    common(
      hook
        .command('configure')
        .argument('<typeName>')
        .requiredOption(
          '--file <path>',
          'the configuration, JSON or YAML: { CloudFormationConfiguration: { HookConfiguration: { HookInvocationStatus, FailureMode, Properties, TargetFilters } } }',
        )
        .description(
          "set a hook's configuration (kept sealed): whether it runs, its failure mode, its settings",
        ),
    ),
    ['typeplane hook configure Example::Policy::RequireTags --file require-tags-config.yaml'],
  ).action(
    action(async (typeName: string, options: Common & { file: string }) => {
      const text = readLocal(options.file, FILES.document);
      let configuration: unknown;
      try {
        configuration = /\.ya?ml$/i.test(options.file) ? yaml().parse(text) : JSON.parse(text);
      } catch (e) {
        throw new UsageError(
          `${options.file} is not valid JSON or YAML: ${(e as Error).message.split('\n')[0]}`,
        );
      }
      const out = await clientFor(options).call<{ enabled: boolean; failureMode: string; updatedAt: string }>(
        'PUT',
        `/v1/hooks/${enc(typeName)}/configuration`,
        configuration,
      );
      process.stdout.write(
        render(
          out,
          options.output,
          () =>
            `configured hook ${typeName}: ${out.enabled ? 'enabled' : 'disabled'}, FailureMode ${out.failureMode}`,
        ) + '\n',
      );
    }),
  );

  examples(
    common(
      hook
        .command('configuration')
        .argument('<typeName>')
        .description("show a hook's configuration (it may hold secrets)"),
      ['yaml', 'json'],
    ),
    ['typeplane hook configuration Example::Policy::RequireTags'],
  ).action(
    action(async (typeName: string, options: Common) => {
      const out = await clientFor(options).call('GET', `/v1/hooks/${enc(typeName)}/configuration`);
      process.stdout.write(render(out, options.output) + '\n');
    }),
  );

  examples(
    common(
      hook
        .command('deregister')
        .argument('<typeName>')
        .description('deregister a hook, its configuration with it'),
    ),
    ['typeplane hook deregister Example::Policy::RequireTags'],
  ).action(
    action(async (typeName: string, options: Common) => {
      await clientFor(options).call('DELETE', `/v1/hooks/${enc(typeName)}`);
      process.stdout.write(`deregistered hook ${typeName}\n`);
    }),
  );
}

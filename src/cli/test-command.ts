/**
 * @module `typeplane test --schema <file> (--provider <module> | --endpoint <url>)`: the contract test
 * suite, run against a provider directly (no engine, no Docker); or `typeplane test --api <url>
 * --type <typeName>`: against a type as a running Typeplane server serves it, through its API.
 *
 * Exit codes: 0 the provider keeps the contract; 1 a test failed (or something was left behind);
 * 2 usage or setup error; 130 interrupted (after the cleanup).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import {
  apiType,
  ContractSetupError,
  createApiProvider,
  DEFAULT_RUNS,
  TEST_NAMES,
  jsonReport,
  junitReport,
  readInputs,
  readSchemaType,
  runContractSuite,
  textHeader,
  textResult,
  textSummary,
  type SuiteReport,
} from '../contract/index.js';
import { ConfigError, loadModule } from '../providers/load.js';
import { createRemoteProvider } from '../providers/remote/index.js';
import type { ProviderDefinition } from '../providers/sdk.js';
import { compileType } from '../registry/index.js';
import type { ResourceType } from '../schema/index.js';
import { requiresConfiguration } from '../type-configuration/index.js';
import { CA_FILE_HELP } from './api-commands.js';
import { Client } from './client.js';
import { FILES, readLocal } from './local-files.js';

/** Tests run at once unless --concurrency says otherwise: a provider that waits between callbacks is waited for once, not test after test. */
const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 32;

interface TestOptions {
  schema?: string;
  hook?: string;
  hookSchema?: string;
  hookProperties?: string;
  provider?: string;
  endpoint?: string;
  api?: string;
  caFile?: string;
  token?: string;
  type?: string;
  config?: string;
  typeConfiguration?: string;
  inputs?: string;
  seed?: string;
  runs: string;
  timeout?: string;
  concurrency: string;
  maxCallbackDelay?: string;
  only?: string[];
  allowAbsent?: string[];
  junit?: string;
  output: string;
  /** The older name of --output, still taken. */
  format?: string;
}

export function registerTest(program: Command): void {
  program
    .command('test')
    .description(
      'run the contract test suite against a provider: proves, with inputs generated from the schema, that its handlers keep the handler contract',
    )
    .option(
      '--schema <file>',
      'resource schema (or manifest) of the type the provider serves (default: the schemas a --provider module declares)',
    )
    .option(
      '--provider <module>',
      'a provider module written with typeplane/provider (its default export), run in this process',
    )
    .option('--endpoint <url>', 'an out-of-process provider serving the provider protocol at this URL')
    .option(
      '--hook <module or url>',
      'test a hook instead: a defineHook module, or a hook served over HTTP at this URL (with --schema: a type it targets)',
    )
    .option('--hook-schema <file>', "with --hook: the hook's schema (default: the one its module names)")
    .option(
      '--hook-properties <file>',
      "with --hook: its configuration's Properties (JSON), handed to every call",
    )
    .option(
      '--api <url>',
      "a running Typeplane server: test the type --type names as it serves it (by a recipe, a remote provider or any other), through its API; the schema is the server's",
    )
    .option(
      '--token <token>',
      "sent to --endpoint as 'Authorization: Bearer' (env TYPEPLANE_PROVIDER_TOKEN; TYPEPLANE_TOKEN, the Typeplane API's token, is never sent to a provider); with --api, the API token (env TYPEPLANE_TOKEN)",
    )
    .option('--ca-file <file>', `with --api: ${CA_FILE_HELP}`)
    .option(
      '--type <typeName>',
      'the type to test, when the schema document defines several (with --api, the type to test)',
    )
    .option('--config <file>', "a JSON file handed to the provider's configure() (its configuration section)")
    .option(
      '--type-configuration <file>',
      "the type's configuration (JSON), as 'typeplane type configure' sets it: handed to every handler call",
    )
    .option(
      '--inputs <dir>',
      'use inputs_N_create.json, inputs_N_update.json and inputs_N_invalid.json from this folder instead of generated inputs',
    )
    .option('--seed <n>', 'seed of the generated inputs (a failing run prints it, to reproduce it)')
    .option('--runs <n>', 'generated inputs per test', String(DEFAULT_RUNS))
    .option('--timeout <seconds>', "cap on every handler's timeout (default: the schema's handler timeouts)")
    .option(
      '--concurrency <n>',
      `tests run at once, 1 to ${MAX_CONCURRENCY} (tests that list everything, and tests on input files that set the identifiers, run alone)`,
      String(DEFAULT_CONCURRENCY),
    )
    .option(
      '--max-callback-delay <seconds>',
      'wait at most this long between IN_PROGRESS callbacks, whatever callbackDelaySeconds asks (fractions allowed; 0: call again at once)',
    )
    .option('--only <names...>', `run only these tests (${TEST_NAMES.slice(0, 3).join(', ')}, …; -> for →)`)
    .option(
      '--allow-absent <pointers...>',
      'read-only properties that may legitimately have no value in a model (e.g. /properties/DeletedAt)',
    )
    .option('--junit <file>', 'also write the results as JUnit XML')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .addOption(new Option('--format <format>').hideHelp())
    .addHelpText(
      'after',
      `
Exit codes: 0 the provider keeps the contract; 1 a test failed (or something was left behind);
2 usage or setup error; 130 interrupted (after the cleanup).

Examples:
  $ typeplane test --provider ./greeting-provider.ts
  $ typeplane test --schema note.json --endpoint http://127.0.0.1:8080/ --junit report.xml
  $ TYPEPLANE_TOKEN=… typeplane test --api http://127.0.0.1:4780 --type MyCompany.Resources/postgresDatabases
  $ typeplane test --provider ./p.ts --only 'create→read' --seed 42 --allow-absent /properties/DeletedAt
  $ typeplane test --hook http://127.0.0.1:9000/ --hook-schema require-tags.json --schema bucket.json`,
    )
    .action(async (options: TestOptions, command: Command) => {
      const usage = (message: string): never =>
        command.error(`error: ${message}`, { exitCode: 2, code: 'typeplane.usage' });
      if (options.format !== undefined) {
        if (options.format !== 'text' && options.format !== 'json')
          usage(`-o/--output must be 'text' or 'json', not '${options.format}'`);
        options.output = options.format;
      }
      if (options.hook !== undefined) {
        const { runHookTest } = await import('./test-hook.js');
        const timeout =
          options.timeout === undefined ? undefined : wholeNumber(options.timeout, '--timeout', usage, 1);
        process.exitCode = await runHookTest({
          ...options,
          hook: options.hook,
          ...(options.seed === undefined
            ? {}
            : { seedNumber: wholeNumber(options.seed, '--seed', usage, -(2 ** 31)) }),
          runsNumber: wholeNumber(options.runs, '--runs', usage, 1),
          ...(timeout === undefined ? {} : { timeoutMs: timeout * 1000 }),
        });
        return;
      }
      const targets = [options.provider, options.endpoint, options.api].filter((t) => t !== undefined);
      if (targets.length !== 1)
        usage('give exactly one of --provider <module>, --endpoint <url> and --api <url>');
      if (options.api !== undefined) {
        if (options.type === undefined)
          usage('--type <typeName> is needed with --api: the type of the server to test');
        // What the server has is what is tested: its schema, its provider's configuration.
        for (const [given, flag] of [
          [options.schema, '--schema'],
          [options.config, '--config'],
          [options.typeConfiguration, '--type-configuration'],
        ] as const)
          if (given !== undefined)
            usage(`${flag} does not go with --api: the server's type is tested as the server has it`);
      } else if (options.caFile !== undefined) usage('--ca-file goes with --api <url>');
      if (options.endpoint !== undefined && options.schema === undefined)
        usage(
          '--schema <file> is needed with --endpoint (a --provider module may declare its schemas instead)',
        );
      const seed =
        options.seed === undefined ? undefined : wholeNumber(options.seed, '--seed', usage, -(2 ** 31));
      const runs = wholeNumber(options.runs, '--runs', usage, 1);
      const timeout =
        options.timeout === undefined ? undefined : wholeNumber(options.timeout, '--timeout', usage, 1);
      const concurrency = wholeNumber(options.concurrency, '--concurrency', usage, 1);
      if (concurrency > MAX_CONCURRENCY)
        usage(
          `--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, not '${options.concurrency}'`,
        );
      const maxCallbackDelay =
        options.maxCallbackDelay === undefined ? undefined : seconds(options.maxCallbackDelay, usage);
      const only = options.only?.map((n) => n.replace(/->/g, '→'));
      const unknown = only?.filter((n) => !TEST_NAMES.includes(n)) ?? [];
      if (unknown.length > 0) usage(`unknown tests: ${unknown.join(', ')} (known: ${TEST_NAMES.join(', ')})`);
      process.exitCode = await runTestCommand({
        ...options,
        ...(only ? { only } : {}),
        ...(seed === undefined ? {} : { seedNumber: seed }),
        runsNumber: runs,
        ...(timeout === undefined ? {} : { timeoutMs: timeout * 1000 }),
        concurrencyNumber: concurrency,
        ...(maxCallbackDelay === undefined ? {} : { maxCallbackDelayMs: maxCallbackDelay * 1000 }),
      });
    });
}

function wholeNumber(value: string, name: string, usage: (m: string) => never, min: number): number {
  const n = /^-?\d{1,10}$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > 2 ** 31 - 1)
    return usage(`${name} must be a whole number${min > 0 ? ` from ${min}` : ''}, not '${value}'`);
  return n;
}

/** `--max-callback-delay`: seconds, fractions allowed, as callbackDelaySeconds is. */
function seconds(value: string, usage: (m: string) => never): number {
  const n = /^\d{1,4}(\.\d{1,3})?$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n <= 3600))
    return usage(`--max-callback-delay must be seconds from 0 to 3600 (e.g. 0.5), not '${value}'`);
  return n;
}

/** Run the suite as the command line asks; returns the exit code. */
export async function runTestCommand(
  options: TestOptions & {
    seedNumber?: number;
    runsNumber: number;
    timeoutMs?: number;
    concurrencyNumber?: number;
    maxCallbackDelayMs?: number;
  },
): Promise<number> {
  let provider: ProviderDefinition | undefined;
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write(
        '\ninterrupted: stopping the tests and deleting what they created (interrupt again to quit at once)\n',
      );
      controller.abort(new Error('interrupted'));
    } else {
      process.stderr.write('quitting without cleaning up: resources the suite created may be left behind\n');
      process.exit(130);
    }
  };
  try {
    const module = options.provider !== undefined ? await loadProvider(options) : undefined;
    const api = options.api !== undefined ? await apiTarget(options.api, options) : undefined;
    const type = api?.type ?? (await schemaType(options, module));
    const notReadOnly = (options.allowAbsent ?? []).filter((p) => !type.readOnlyProperties.includes(p));
    if (notReadOnly.length > 0)
      throw new ContractSetupError(
        `--allow-absent ${notReadOnly.join(' ')}: not read-only properties of ${type.typeName} (its read-only properties: ${type.readOnlyProperties.join(', ') || 'none'})`,
      );
    const inputs = options.inputs ? await readInputs(resolve(options.inputs), type) : undefined;
    // With --api, the server hands its handlers the type's configuration it holds.
    const typeConfiguration = api ? undefined : await readTypeConfiguration(options.typeConfiguration, type);
    provider = api?.provider ?? module ?? (await loadProvider(options, type.typeName));
    if (!provider.types.includes(type.typeName))
      throw new ContractSetupError(
        `the provider ${provider.name} serves ${provider.types.join(', ')}, not ${type.typeName}`,
      );
    if (options.endpoint !== undefined) await checkReachable(provider, type.typeName, options.endpoint);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const text = options.output === 'text';
    // Chosen here rather than by the runner so that the header can show it.
    const seed = options.seedNumber ?? Math.floor(Math.random() * 2 ** 31);
    const color = text && process.stdout.isTTY === true && !process.env.NO_COLOR;
    for (const note of api?.notes ?? []) process.stderr.write(`note: ${note}\n`);
    if (text)
      process.stdout.write(
        textHeader({
          typeName: type.typeName,
          provider: provider.name,
          inputs: inputs
            ? { source: 'files', sets: inputs.map((s) => s.name) }
            : { source: 'generated', seed, runs: options.runsNumber },
        }),
      );
    const report: SuiteReport = await runContractSuite({
      type,
      provider,
      ...(inputs ? { inputs } : {}),
      seed,
      runs: options.runsNumber,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      concurrency: options.concurrencyNumber ?? DEFAULT_CONCURRENCY,
      ...(options.maxCallbackDelayMs === undefined ? {} : { maxCallbackDelayMs: options.maxCallbackDelayMs }),
      ...(options.only ? { only: options.only } : {}),
      ...(options.allowAbsent ? { allowAbsent: options.allowAbsent } : {}),
      signal: controller.signal,
      ...(typeConfiguration ? { typeConfiguration } : {}),
      ...(api ? { throughApi: true } : {}),
      onResult: (result) => {
        if (text) process.stdout.write(textResult(result, { color }));
      },
    });
    process.stdout.write(text ? textSummary(report, { color }) : jsonReport(report));
    if (options.junit) {
      const file = resolve(options.junit);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, junitReport(report));
    }
    if (report.interrupted) return 130;
    return report.ok ? 0 : 1;
  } catch (e) {
    if (e instanceof ContractSetupError || e instanceof ConfigError) {
      process.stderr.write(`typeplane test: ${e.message}\n`);
      return 2;
    }
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await provider?.close?.();
  }
}

/** `--type-configuration`: a JSON object the type's typeConfiguration accepts; required when it requires a setting. */
async function readTypeConfiguration(
  file: string | undefined,
  type: ResourceType,
): Promise<Record<string, unknown> | undefined> {
  const validate = compileType(type).validateConfiguration;
  if (file === undefined) {
    if (requiresConfiguration(type.typeConfiguration))
      throw new ContractSetupError(
        `${type.typeName} requires a type configuration (its typeConfiguration has required settings): give it with --type-configuration <file>`,
      );
    return undefined;
  }
  if (!validate)
    throw new ContractSetupError(`${type.typeName} takes no type configuration: drop --type-configuration`);
  let value: unknown;
  try {
    value = JSON.parse(readLocal(resolve(file), FILES.config));
  } catch (e) {
    throw new ContractSetupError(
      `--type-configuration ${file} must be a JSON object: ${(e as Error).message}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ContractSetupError(`--type-configuration ${file} must be a JSON object`);
  const problems = validate(value as Record<string, unknown>);
  if (problems.length > 0)
    throw new ContractSetupError(
      `--type-configuration ${file} does not match the typeConfiguration of ${type.typeName}: ${problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`,
    );
  return value as Record<string, unknown>;
}

/** The type under test: from --schema, or else from the schemas the provider module declares. */
async function schemaType(options: TestOptions, module: ProviderDefinition | undefined) {
  if (options.schema !== undefined) return readSchemaType(resolve(options.schema), options.type);
  const files = module?.schemas ?? [];
  if (files.length === 0)
    throw new ContractSetupError(
      `the provider module declares no schemas: name the type's with --schema <file>`,
    );
  // One schema: its own errors (invalid, several types) are the ones to show.
  if (files.length === 1) return readSchemaType(files[0]!, options.type);
  const typeName = options.type ?? (module!.types.length === 1 ? module!.types[0] : undefined);
  if (typeName === undefined)
    throw new ContractSetupError(
      `the provider serves ${module!.types.join(', ')}: pick one with --type <typeName>`,
    );
  for (const file of files) {
    const type = await readSchemaType(file).catch(() => undefined);
    if (type?.typeName === typeName) return type;
    if (type === undefined) {
      const named = await readSchemaType(file, typeName).catch(() => undefined);
      if (named) return named;
    }
  }
  throw new ContractSetupError(
    `none of the provider's schemas (${files.join(', ')}) defines ${typeName}: name one with --schema <file>`,
  );
}

async function loadProvider(options: TestOptions, typeName?: string): Promise<ProviderDefinition> {
  let config: Record<string, unknown> | undefined;
  if (options.config) {
    try {
      const value: unknown = JSON.parse(readLocal(resolve(options.config), FILES.config));
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new Error('not an object');
      config = value as Record<string, unknown>;
    } catch (e) {
      throw new ContractSetupError(
        `--config ${options.config} must be a JSON object: ${(e as Error).message}`,
      );
    }
  }
  if (options.endpoint !== undefined) {
    try {
      // An empty TYPEPLANE_PROVIDER_TOKEN counts as unset.
      const token = options.token ?? (process.env.TYPEPLANE_PROVIDER_TOKEN || undefined);
      return createRemoteProvider({
        name: options.endpoint,
        url: options.endpoint,
        types: [typeName!],
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      });
    } catch (e) {
      throw new ContractSetupError(`--endpoint: ${(e as Error).message}`);
    }
  }
  const spec = options.provider!;
  const provider = await loadModule(resolve(spec));
  if (config && provider.configure) await provider.configure(config);
  return provider;
}

/**
 * `--api`: the type as the server has it registered, and a provider whose handlers are calls to its
 * /v1/resources routes. A server that cannot be reached, or has no such type, is a setup error.
 */
async function apiTarget(url: string, options: TestOptions) {
  let client: Client;
  try {
    // An empty TYPEPLANE_TOKEN (or TYPEPLANE_CA_FILE) counts as unset.
    client = new Client(
      url,
      options.token ?? (process.env.TYPEPLANE_TOKEN || undefined),
      options.caFile ?? (process.env.TYPEPLANE_CA_FILE || undefined),
    );
  } catch (e) {
    throw new ContractSetupError(`--api: ${(e as Error).message}`);
  }
  const call = (method: string, path: string, body?: unknown) => client.call(method, path, body);
  const typeName = options.type!;
  try {
    const { type, notes } = await apiType(call, typeName, url);
    return { type, notes, provider: createApiProvider({ endpoint: url, type, call }) };
  } catch (e) {
    throw new ContractSetupError(`cannot read the type ${typeName} from ${url}: ${(e as Error).message}`);
  }
}

/** One list call before the suite: an endpoint that cannot be reached is a setup error, not 21 failures. */
async function checkReachable(provider: ProviderDefinition, typeName: string, url: string): Promise<void> {
  const event = await provider.list({
    typeName,
    desiredState: {},
    clientRequestToken: randomUUID(),
    maxResults: 1,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    signal: AbortSignal.timeout(60_000),
  });
  if (event.status === 'FAILED' && event.errorCode === 'NetworkFailure')
    throw new ContractSetupError(`cannot reach the provider at ${url}: ${event.message ?? 'no answer'}`);
}

/**
 * @module `typeplane type …`, `typeplane resource …`, `typeplane request …`: the API from the shell.
 */
import { Command, Option } from 'commander';
import { MAX_RESULTS_LIMIT } from '../engine/input.js';
import {
  ApiError,
  Client,
  DEFAULT_ENDPOINT,
  columns,
  render,
  spinner,
  truncate,
  type OutputFormat,
} from './client.js';
import { EXIT, UsageError, jsonFlag, wholeNumberFlag } from './usage.js';
import { yaml } from './yaml.js';
import { FILES, readLocal } from './local-files.js';
import { withQuery } from './output.js';
import { eventLine, followWatch } from './watch-output.js';

export interface Common {
  endpoint?: string;
  token?: string;
  caFile?: string;
  output: OutputFormat;
}

interface ProgressEvent {
  typeName: string;
  identifier?: string;
  requestToken: string;
  operation: string;
  operationStatus: string;
  eventTime: string;
  statusMessage?: string;
  errorCode?: string;
  resourceModel?: unknown;
}

const TERMINAL = new Set(['SUCCESS', 'FAILED', 'CANCEL_COMPLETE']);

interface Registered {
  typeName: string;
  version: string;
  apiVersion?: string;
  outcome: 'created' | 'new-version' | 'unchanged';
  changes?: { counts: { breaking: number; dangerous: number; safe: number } };
  violations?: { count: number; checked: number; total: number; identifiers: string[] };
}

interface VersionRow {
  version: string;
  registeredAt: string;
  isDefault: boolean;
  resourceCount: number;
}

/** A manifest type is shown with the API version it is served in. */
function typeLabel(t: { typeName: string; apiVersion?: string }): string {
  return t.apiVersion === undefined ? t.typeName : `${t.typeName}@${t.apiVersion}`;
}

function registeredLine(t: Registered): string {
  if (t.outcome === 'unchanged') return `${typeLabel(t)} unchanged (version ${t.version})`;
  if (t.outcome === 'created') return `registered ${typeLabel(t)} (version ${t.version})`;
  const c = t.changes?.counts;
  const v = t.violations;
  return [
    `registered ${typeLabel(t)} version ${t.version}`,
    c ? ` (${c.breaking} breaking, ${c.dangerous} dangerous, ${c.safe} safe changes)` : '',
    v
      ? `; ${v.count} of ${v.checked} existing resources violate it${v.identifiers.length ? `: ${v.identifiers.join(', ')}` : ''}`
      : '',
  ].join('');
}

function versionQuery(version: string | undefined): string {
  return version === undefined ? '' : `?version=${encodeURIComponent(version)}`;
}

export function common(command: Command, formats: OutputFormat[] = ['table', 'json', 'yaml']): Command {
  return withQuery(
    command
      .option('--endpoint <url>', `Typeplane server (env TYPEPLANE_ENDPOINT; default ${DEFAULT_ENDPOINT})`)
      .option('--token <token>', 'API token (env TYPEPLANE_TOKEN)')
      .option('--ca-file <file>', CA_FILE_HELP)
      .addOption(new Option('-o, --output <format>', 'output format').choices(formats).default('table')),
  );
}

/** `--ca-file`, on every command that talks to a server. */
export const CA_FILE_HELP =
  "PEM certificate of the CA that signed an https:// server's certificate, trusted instead of the system's CAs (env TYPEPLANE_CA_FILE)";

/** An Examples section at the end of a command's help. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`);
}

export function clientFor(options: Common): Client {
  // An empty TYPEPLANE_ENDPOINT (or TYPEPLANE_TOKEN, TYPEPLANE_CA_FILE) counts as unset.
  return new Client(
    options.endpoint ?? (process.env.TYPEPLANE_ENDPOINT || DEFAULT_ENDPOINT),
    options.token ?? (process.env.TYPEPLANE_TOKEN || undefined),
    options.caFile ?? (process.env.TYPEPLANE_CA_FILE || undefined),
  );
}

/** What to do about a 401 (the server's message says where tokens come from). */
const TOKEN_HINT = 'hint: the CLI sends the token given with --token or env TYPEPLANE_TOKEN';

const enc = encodeURIComponent;

/**
 * Run an action; API errors print `error: <code>: message` (and the details the message does not
 * already say) and exit 1; usage errors print `error: message` and exit 2.
 */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<number | void>) {
  return async (...args: A) => {
    try {
      process.exitCode = (await fn(...args)) ?? EXIT.ok;
    } catch (e) {
      process.exitCode = report(e);
    }
  };
}

/** Print a usage or API error as `action` does; returns the exit code. Anything else is rethrown. */
function report(e: unknown): number {
  if (e instanceof UsageError) {
    process.stderr.write(`error: ${e.message}\n`);
    return EXIT.usage;
  }
  if (!(e instanceof ApiError)) throw e;
  process.stderr.write(`error: ${e.errorCode}: ${e.message}\n`);
  for (const d of e.details.slice(0, 50))
    if (!saidIn(e.message, d)) process.stderr.write(`  - ${formatDetail(d)}\n`);
  if (e.status === 401) process.stderr.write(`${TOKEN_HINT}\n`);
  return EXIT.failed;
}

/** Whether `message` already says what a detail says (diagnostics, which carry a location, always show). */
function saidIn(message: string, detail: unknown): boolean {
  const d = detail as Record<string, unknown> | null;
  return (
    d !== null &&
    typeof d === 'object' &&
    typeof d.rule !== 'string' &&
    typeof d.message === 'string' &&
    message.includes(d.message)
  );
}

function formatDetail(detail: unknown): string {
  if (detail && typeof detail === 'object') {
    const d = detail as Record<string, unknown>;
    if (typeof d.rule === 'string')
      return `${String(d.file ?? '')}:${String(d.line ?? 1)}:${String(d.column ?? 1)} ${String(d.severity ?? d.verdict)} ${d.rule} ${String(d.message)}`;
    if (typeof d.message === 'string')
      return `${typeof d.pointer === 'string' ? `${d.pointer || '/'}: ` : ''}${d.message}`;
  }
  return JSON.stringify(detail);
}

function eventTable(e: ProgressEvent): string {
  const rows: [string, string][] = [
    ['operation', e.operation],
    ['status', e.operationStatus],
    ['type', e.typeName],
    ['identifier', e.identifier ?? '-'],
    ['request token', e.requestToken],
    ['time', e.eventTime],
  ];
  if (e.errorCode) rows.push(['error', e.errorCode]);
  if (e.statusMessage) rows.push(['message', e.statusMessage]);
  if (e.resourceModel) rows.push(['model', JSON.stringify(e.resourceModel)]);
  return rows.map(([k, v]) => `${k.padEnd(14)}${v}`).join('\n');
}

/**
 * Follow an operation by polling `GET /v1/requests/:token` until it is terminal or `seconds` pass.
 * Ctrl-C stops the waiting, not the operation: it says how to follow it and exits 130.
 */
async function follow(client: Client, event: ProgressEvent, seconds: number): Promise<ProgressEvent> {
  const until = Date.now() + seconds * 1000;
  const spin = spinner(process.stderr, `${event.operation} ${event.typeName} ${event.identifier ?? ''}`);
  const interrupted = () => {
    spin.stop();
    process.stderr.write(
      `\ninterrupted: stopped waiting; the operation goes on. Follow it with 'typeplane request get ${event.requestToken} --wait'\n`,
    );
    process.exit(EXIT.interrupted);
  };
  process.once('SIGINT', interrupted);
  try {
    let latest = event;
    while (!TERMINAL.has(latest.operationStatus) && Date.now() < until) {
      const { progressEvent } = await client.call<{ progressEvent: ProgressEvent }>(
        'GET',
        `/v1/requests/${enc(latest.requestToken)}`,
      );
      latest = progressEvent;
      if (!TERMINAL.has(latest.operationStatus)) await new Promise((r) => setTimeout(r, 200));
    }
    return latest;
  } finally {
    process.off('SIGINT', interrupted);
    spin.stop();
  }
}

/** How `--wait` ends, for the help of the commands that take it. */
const WAIT_EXIT_CODES = `
Exit codes: 0 the operation succeeded (or, without --wait, was accepted); 1 it failed or the server
refused the request; 2 a usage error; 3 --wait ran out with the operation still PENDING or
IN_PROGRESS (it goes on: follow it with 'typeplane request get <token> --wait'); 130 interrupted
while waiting (the operation goes on; the request token is printed).`;

export function waitOption(command: Command): Command {
  return command
    .option('--wait [seconds]', 'wait until the operation finishes (default 300 s)')
    .addHelpText('after', WAIT_EXIT_CODES);
}

export function clientTokenOption(command: Command): Command {
  return command.option(
    '--client-token <token>',
    'idempotency token: retrying with it never repeats the operation',
  );
}

function waitSeconds(value: unknown): number | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return 300;
  const n = String(value).trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new UsageError(`--wait takes a number of seconds, not '${String(value)}'`);
  return n;
}

async function printEvent(
  client: Client,
  event: ProgressEvent,
  options: Common & { wait?: unknown },
): Promise<number> {
  const wait = waitSeconds(options.wait);
  const final = wait === undefined ? event : await follow(client, event, wait);
  process.stdout.write(render({ progressEvent: final }, options.output, () => eventTable(final)) + '\n');
  if (wait !== undefined && !TERMINAL.has(final.operationStatus)) {
    process.stderr.write(
      `note: still ${final.operationStatus} after ${wait} s; follow it with 'typeplane request get ${final.requestToken} --wait'\n`,
    );
    return EXIT.stillRunning;
  }
  return final.operationStatus === 'FAILED' ? EXIT.failed : EXIT.ok;
}

/**
 * Start an operation with `body` (and --client-token, when given) and print its event as
 * `printEvent` does; a bad --wait is refused before anything is sent.
 */
export async function startOperation(
  options: Common & { wait?: unknown; clientToken?: string },
  method: string,
  path: string,
  body: Record<string, unknown>,
): Promise<number> {
  waitSeconds(options.wait);
  const client = clientFor(options);
  const { progressEvent } = await client.call<{ progressEvent: ProgressEvent }>(method, path, {
    ...body,
    ...(options.clientToken ? { clientToken: options.clientToken } : {}),
  });
  return printEvent(client, progressEvent, options);
}

function readDocument(path: string): unknown {
  const text = readLocal(path, FILES.document);
  try {
    return /\.ya?ml$/i.test(path) ? yaml().parse(text) : JSON.parse(text);
  } catch (e) {
    throw new UsageError(
      `${path} is not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${(e as Error).message.split('\n')[0]}`,
    );
  }
}

/** A desired state given with exactly one of --properties <json> or --file <path>. */
export function desiredStateOf(options: { properties?: string; file?: string }): unknown {
  if ((options.properties === undefined) === (options.file === undefined))
    throw new UsageError('give the desired state with exactly one of --properties <json> or --file <path>');
  return options.file ? readDocument(options.file) : jsonFlag('--properties', options.properties!);
}

/**
 * Type documents under `paths`, found as `typeplane validate` finds them: files as given, folders
 * searched, and what a folder holds that is no type document (a stack template, the Bicep types and
 * JSON Schemas `typeplane generate` writes, settings) left out, with a note saying what it is.
 */
async function typeDocuments(paths: string[]): Promise<string[]> {
  const { typeDocumentFiles } = await import('../schema/load-types.js');
  const { files, missing, skipped } = await typeDocumentFiles(paths);
  if (missing.length > 0) throw new UsageError(`no such file or folder: ${missing[0]}`);
  for (const { file, reason } of skipped) process.stderr.write(`note: skipped ${file}: ${reason}\n`);
  if (files.length === 0)
    throw new UsageError(
      `no resource schemas or manifests under ${paths.join(', ')} (.json, .yaml or .yml files)`,
    );
  return files;
}

/** `--max-results` as the API takes it. */
function maxResultsFlag(value: string | undefined): string | undefined {
  return value === undefined
    ? undefined
    : String(wholeNumberFlag('--max-results', value, 1, MAX_RESULTS_LIMIT));
}

/** The list route's own parameters, which a filter cannot name. */
const LIST_PARAMETERS = new Set(['maxResults', 'nextToken', 'version']);

/** `--filter Property=value` as the list route's `Property=value` query parameter. */
function filterFlag(value: string): [string, string] {
  const at = value.indexOf('=');
  const name = at < 0 ? '' : value.slice(0, at);
  if (name === '')
    throw new UsageError(`--filter takes <Property>=<value>, e.g. --filter Size=L, not '${value}'`);
  if (LIST_PARAMETERS.has(name))
    throw new UsageError(
      `--filter cannot name '${name}': it is a parameter of the list itself, not a property`,
    );
  return [name, value.slice(at + 1)];
}

/** A scalar as a table cell; anything else as compact JSON. */
function cell(value: unknown, max: number): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return truncate(text, max);
}

/**
 * Columns of a resource list: the identifier, then the scalar properties (the first four; all
 * properties with -o wide), in the order they first appear.
 */
type ListedResource = {
  identifier: string;
  properties: unknown;
  observed?: { status: string; since: string };
};

function resourceTable(rows: ListedResource[], wide: boolean): string {
  const names: string[] = [];
  for (const row of rows)
    for (const [name, value] of Object.entries((row.properties ?? {}) as Record<string, unknown>))
      if (!names.includes(name) && (wide || (value !== null && typeof value !== 'object'))) names.push(name);
  const shown = wide ? names : names.slice(0, 4);
  // Said only when a read found what the record does not say (the provider's NotFound).
  const observed = rows.some((r) => r.observed);
  return columns(
    ['IDENTIFIER', ...shown.map((n) => n.toUpperCase()), ...(observed ? ['OBSERVED'] : [])],
    rows.map((r) => {
      const properties = (r.properties ?? {}) as Record<string, unknown>;
      return [
        r.identifier,
        ...shown.map((n) => (n in properties ? cell(properties[n], wide ? 200 : 40) : '')),
        ...(observed ? [r.observed ? `${r.observed.status} since ${r.observed.since}` : ''] : []),
      ];
    }),
  );
}

/** A changed resource's scalar properties as `Name=value` pairs (a watch's table line). */
function changeCells(properties: unknown): string {
  return Object.entries((properties ?? {}) as Record<string, unknown>)
    .filter(([, v]) => v !== null && typeof v !== 'object')
    .slice(0, 6)
    .map(([k, v]) => `${k}=${cell(v, 40)}`)
    .join(' ');
}

/** A key/value table of a model's properties. */
function propertyTable(properties: Record<string, unknown>): string {
  return columns(
    ['PROPERTY', 'VALUE'],
    Object.entries(properties).map(([k, v]) => [k, cell(v, 120)]),
  );
}

/** A validator warning the server returns beside a registration. */
type Warning = { rule: string; message: string; line?: number; column?: number };

export function registerApiCommands(program: Command): void {
  const type = program.command('type').description('register and inspect resource types');
  examples(
    common(
      type
        .command('register')
        .argument('<paths...>', 'resource schemas (.json/.yaml) or manifests (.yaml); folders are searched')
        .description(
          'register the types documents define (each document in one request; a changed schema becomes a new version)',
        )
        .option('--allow-breaking', 'register a breaking change even while resources of the type exist'),
    ),
    [
      'typeplane type register examples/postgresDatabases.yaml',
      'typeplane type register types/ more/queues.yaml',
      'typeplane type register widget-v2.json --allow-breaking',
    ],
  ).action(
    action(async (paths: string[], options: Common & { allowBreaking?: boolean }) => {
      const files = await typeDocuments(paths);
      const client = clientFor(options);
      const query = options.allowBreaking ? '?allowBreaking=true' : '';
      const registered: Registered[] = [];
      const warnings: (Warning & { file: string })[] = [];
      let failed = 0;
      for (const file of files) {
        const text = readLocal(file, FILES.typeDocument);
        const contentType = /\.ya?ml$/i.test(file) ? 'application/yaml' : 'application/json';
        try {
          const out = await client.call<{ types: Registered[]; warnings?: Warning[] }>(
            'POST',
            `/v1/types${query}`,
            text,
            contentType,
          );
          registered.push(...out.types);
          warnings.push(...(out.warnings ?? []).map((w) => ({ ...w, file })));
          if (options.output === 'table') {
            for (const t of out.types) process.stdout.write(registeredLine(t) + '\n');
            // What registered but deserves a look (an empty schema leaves properties unvalidated, say).
            for (const w of out.warnings ?? [])
              process.stdout.write(
                `${file}:${w.line ?? 1}:${w.column ?? 1} warning ${w.rule} ${w.message}\n`,
              );
          }
        } catch (e) {
          if (!(e instanceof ApiError) || files.length === 1) throw nameFile(e, file);
          // With several documents, one refused does not stop the others: each is reported.
          failed++;
          process.stderr.write(`${file}: `);
          report(nameFile(e, file));
        }
      }
      if (options.output !== 'table')
        process.stdout.write(
          render({ types: registered, ...(warnings.length > 0 ? { warnings } : {}) }, options.output) + '\n',
        );
      return failed > 0 ? EXIT.failed : EXIT.ok;
    }),
  );
  examples(common(type.command('list').description('list registered types')), [
    'typeplane type list',
    'typeplane type list -o json',
  ]).action(
    action(async (options: Common) => {
      const out = await clientFor(options).call<{
        types: {
          typeName: string;
          apiVersion?: string;
          version: string;
          dialect: string;
          description: string;
        }[];
      }>('GET', '/v1/types');
      if (options.output === 'table' && out.types.length === 0) return nothingFound('No types registered');
      process.stdout.write(
        render(out, options.output, () =>
          columns(
            ['TYPE', 'VERSION', 'DIALECT', 'DESCRIPTION'],
            out.types.map((t) => [
              typeLabel(t),
              t.version,
              t.dialect,
              truncate(t.description.split('\n')[0] ?? '', 60),
            ]),
          ),
        ) + '\n',
      );
    }),
  );
  examples(
    common(
      type
        .command('show')
        .argument('<typeName>')
        .description('describe a type: identifiers, property sets, versions (-o yaml|json: the schema too)')
        .option('--version <version>', 'a registered version instead of the default'),
    ),
    [
      'typeplane type show Typeplane.Data/postgresDatabases',
      'typeplane type show Typeplane.Data/postgresDatabases -o yaml   # with the schema',
      'typeplane type show Test::Shop::Widget --version 1',
    ],
  ).action(
    action(async (typeName: string, options: Common & { version?: string }) => {
      const out = await clientFor(options).call<TypeDetail>(
        'GET',
        `/v1/types/${enc(typeName)}${versionQuery(options.version)}`,
      );
      process.stdout.write(render(out, options.output, () => typeTable(out)) + '\n');
    }),
  );
  examples(common(type.command('versions').argument('<typeName>').description("list a type's versions")), [
    'typeplane type versions Test::Shop::Widget',
  ]).action(
    action(async (typeName: string, options: Common) => {
      const out = await clientFor(options).call<{ defaultVersion: string; versions: VersionRow[] }>(
        'GET',
        `/v1/types/${enc(typeName)}`,
      );
      const body = { defaultVersion: out.defaultVersion, versions: out.versions };
      process.stdout.write(
        render(body, options.output, () =>
          columns(
            ['VERSION', 'DEFAULT', 'RESOURCES', 'REGISTERED'],
            out.versions.map((v) => [
              v.version,
              v.isDefault ? '*' : '',
              String(v.resourceCount),
              v.registeredAt,
            ]),
          ),
        ) + '\n',
      );
    }),
  );
  examples(
    common(
      type
        .command('set-default')
        .argument('<typeName>')
        .argument('<version>')
        .description(
          'serve requests with another registered version (refused, as a registration is, when it breaks what the current default accepts while resources exist)',
        )
        .option(
          '--allow-breaking',
          'make it the default even when it is breaking relative to the current default while resources of the type exist',
        ),
    ),
    [
      'typeplane type set-default Test::Shop::Widget 1',
      'typeplane type set-default Test::Shop::Widget 1 --allow-breaking',
    ],
  ).action(
    action(async (typeName: string, version: string, options: Common & { allowBreaking?: boolean }) => {
      const query = options.allowBreaking ? '?allowBreaking=true' : '';
      await clientFor(options)
        .call('PUT', `/v1/types/${enc(typeName)}/default-version${query}`, { version })
        // The changes are located in that version's registered document: name it.
        .catch((e: unknown) => {
          throw nameFile(e, `${typeName} version ${version}`);
        });
      process.stdout.write(`${typeName}: version ${version} is the default\n`);
    }),
  );
  examples(
    common(
      type
        .command('delete')
        .alias('deregister')
        .argument('<typeName>')
        .option(
          '--version <version>',
          'remove only this version (refused while resources use it, or for the default)',
        )
        .description('deregister a type, or one version of it (refused while resources exist)'),
    ),
    ['typeplane type delete Example::Demo::Greeting', 'typeplane type delete Test::Shop::Widget --version 1'],
  ).action(
    action(async (typeName: string, options: Common & { version?: string }) => {
      await clientFor(options).call('DELETE', `/v1/types/${enc(typeName)}${versionQuery(options.version)}`);
      process.stdout.write(
        options.version === undefined
          ? `deregistered ${typeName}\n`
          : `deregistered version ${options.version} of ${typeName}\n`,
      );
    }),
  );

  examples(
    common(
      type
        .command('configure')
        .argument('<typeName>')
        .requiredOption(
          '--file <path>',
          "the configuration: a JSON or YAML object of the settings the type's typeConfiguration declares",
        )
        .description("set a type's configuration (admin; kept sealed, handed to its provider)"),
    ),
    ['typeplane type configure Example::Demo::Greeting --file config.json'],
  ).action(
    action(async (typeName: string, options: Common & { file: string }) => {
      const configuration = readDocument(options.file);
      const out = await clientFor(options).call<{ updatedAt: string }>(
        'PUT',
        `/v1/types/${enc(typeName)}/configuration`,
        configuration,
      );
      process.stdout.write(
        render(out, options.output, () => `configured ${typeName} (${out.updatedAt})`) + '\n',
      );
    }),
  );
  examples(
    common(
      type
        .command('configuration')
        .argument('<typeName>')
        .description("show a type's configuration (admin: it may hold secrets)"),
    ),
    ['typeplane type configuration Example::Demo::Greeting -o json'],
  ).action(
    action(async (typeName: string, options: Common) => {
      const out = await clientFor(options).call<Record<string, unknown>>(
        'GET',
        `/v1/types/${enc(typeName)}/configuration`,
      );
      process.stdout.write(render(out, options.output === 'table' ? 'yaml' : options.output) + '\n');
    }),
  );

  const resource = program.command('resource').description('create, read, update, delete and list resources');
  examples(
    clientTokenOption(
      waitOption(
        common(
          resource
            .command('create')
            .argument('<typeName>')
            .description('create a resource')
            .option('--properties <json>', 'desired state as JSON')
            .option('--file <path>', 'desired state from a JSON or YAML file'),
        ),
      ),
    ),
    [
      `typeplane resource create Typeplane.Data/postgresDatabases --properties '{"name": "orders", "size": "M", "password": "…"}' --wait`,
      'typeplane resource create Typeplane.Data/postgresDatabases --file orders.yaml --wait 60 && next-step',
    ],
  ).action(
    action(
      async (
        typeName: string,
        options: Common & { properties?: string; file?: string; wait?: unknown; clientToken?: string },
      ) => {
        const desiredState = desiredStateOf(options);
        return startOperation(options, 'POST', `/v1/resources/${enc(typeName)}`, { desiredState });
      },
    ),
  );
  examples(
    common(
      resource.command('get').argument('<typeName>').argument('<identifier>').description('read a resource'),
    ),
    [
      'typeplane resource get Typeplane.Data/postgresDatabases orders',
      'typeplane resource get Typeplane.Data/postgresDatabases orders -o json',
    ],
  ).action(
    action(async (typeName: string, identifier: string, options: Common) => {
      const out = await clientFor(options).call<{ identifier: string; properties: Record<string, unknown> }>(
        'GET',
        `/v1/resources/${enc(typeName)}/${enc(identifier)}`,
      );
      process.stdout.write(render(out, options.output, () => propertyTable(out.properties)) + '\n');
    }),
  );
  examples(
    clientTokenOption(
      waitOption(
        common(
          resource
            .command('update')
            .argument('<typeName>')
            .argument('<identifier>')
            .description('update a resource with an RFC 6902 JSON Patch')
            .option(
              '--patch <json>',
              'patch document, e.g. \'[{"op":"replace","path":"/size","value":"M"}]\'',
            )
            .option('--patch-file <path>', 'patch document from a JSON or YAML file'),
        ),
      ),
    ),
    [
      `typeplane resource update Typeplane.Data/postgresDatabases orders --patch '[{"op": "replace", "path": "/size", "value": "L"}]' --wait`,
    ],
  ).action(
    action(
      async (
        typeName: string,
        identifier: string,
        options: Common & { patch?: string; patchFile?: string; wait?: unknown; clientToken?: string },
      ) => {
        if ((options.patch === undefined) === (options.patchFile === undefined))
          throw new UsageError('give the patch with exactly one of --patch <json> or --patch-file <path>');
        const patchDocument = options.patchFile
          ? readDocument(options.patchFile)
          : jsonFlag('--patch', options.patch!);
        return startOperation(options, 'PATCH', `/v1/resources/${enc(typeName)}/${enc(identifier)}`, {
          patchDocument,
        });
      },
    ),
  );
  examples(
    clientTokenOption(
      waitOption(
        common(
          resource
            .command('delete')
            .argument('<typeName>')
            .argument('<identifier>')
            .description('delete a resource'),
        ),
      ),
    ),
    ['typeplane resource delete Typeplane.Data/postgresDatabases orders --wait'],
  ).action(
    action(
      async (
        typeName: string,
        identifier: string,
        options: Common & { wait?: unknown; clientToken?: string },
      ) => {
        waitSeconds(options.wait);
        const client = clientFor(options);
        const body = options.clientToken ? { clientToken: options.clientToken } : undefined;
        const { progressEvent } = await client.call<{ progressEvent: ProgressEvent }>(
          'DELETE',
          `/v1/resources/${enc(typeName)}/${enc(identifier)}`,
          body,
        );
        return printEvent(client, progressEvent, options);
      },
    ),
  );
  examples(
    common(
      resource
        .command('forget')
        .argument('<typeName>')
        .argument('<identifier>')
        .description(
          "drop Typeplane's record of a resource without calling its provider (one the provider no longer has); writers only",
        ),
    ),
    ['typeplane resource forget Example::Demo::Greeting ada'],
  ).action(
    action(async (typeName: string, identifier: string, options: Common) => {
      const client = clientFor(options);
      const { progressEvent } = await client.call<{ progressEvent: ProgressEvent }>(
        'POST',
        `/v1/resources/${enc(typeName)}/${enc(identifier)}/forget`,
      );
      return printEvent(client, progressEvent, options);
    }),
  );
  examples(
    common(
      resource
        .command('import')
        .argument('<typeName>')
        .argument('<identifier>', "its primary identifier (values joined by '|')")
        .description(
          'record a resource its provider has and Typeplane has no record of, read through the provider (nothing is created); writers only',
        ),
    ),
    [
      'typeplane resource list Typeplane::Local::File --unmanaged',
      'typeplane resource import Typeplane::Local::File notes/today.txt',
    ],
  ).action(
    action(async (typeName: string, identifier: string, options: Common) => {
      const client = clientFor(options);
      const { progressEvent } = await client.call<{ progressEvent: ProgressEvent }>(
        'POST',
        `/v1/resources/${enc(typeName)}/${enc(identifier)}/import`,
      );
      return printEvent(client, progressEvent, options);
    }),
  );
  examples(
    common(
      resource
        .command('list')
        .argument('<typeName>')
        .description('list resources of a type: the identifier and a few scalar properties (-o wide: all)')
        .option('--max-results <n>', `page size (1 to ${MAX_RESULTS_LIMIT})`)
        .option('--next-token <token>', 'continue from a previous page')
        .option('--all', 'follow nextToken to the end')
        .option(
          '--unmanaged',
          "what the type's provider lists that Typeplane has no record of (import one with 'typeplane resource import'); writers only",
        )
        .option(
          '--filter <Property=value>',
          'only resources whose top-level property equals the value (repeat: all must match)',
          (value: string, previous: string[]) => [...previous, value],
          [] as string[],
        )
        .option(
          '-w, --watch',
          'after the list, print each change as it commits, until the server ends the watch',
        ),
      ['table', 'wide', 'json', 'yaml'],
    ),
    [
      'typeplane resource list Typeplane.Data/postgresDatabases',
      'typeplane resource list Typeplane.Data/postgresDatabases --watch',
      'typeplane resource list Typeplane.Data/postgresDatabases -o wide --all',
      'typeplane resource list Test::Shop::Widget --filter Size=L --filter Color=red',
      'typeplane resource list Typeplane::Local::File --unmanaged',
    ],
  ).action(
    action(
      async (
        typeName: string,
        options: Common & {
          maxResults?: string;
          nextToken?: string;
          all?: boolean;
          unmanaged?: boolean;
          filter: string[];
          watch?: boolean;
        },
      ) => {
        const maxResults = maxResultsFlag(options.maxResults);
        if (options.watch && options.unmanaged)
          throw new UsageError(
            "--watch: a watch sends the changes of the type's records, not the provider's own list; leave out --unmanaged or --watch",
          );
        if (options.unmanaged && options.filter.length > 0)
          throw new UsageError(
            "--filter: the provider's own list is not filtered; leave out --unmanaged or --filter",
          );
        const filters = options.filter.map(filterFlag);
        const listed = options.unmanaged ? 'unmanaged-resources' : 'resources';
        const client = clientFor(options);
        const all: ListedResource[] = [];
        let resourceVersion: string | undefined;
        let nextToken = options.nextToken;
        let last: string | null;
        do {
          const query = new URLSearchParams();
          if (maxResults) query.set('maxResults', maxResults);
          if (nextToken) query.set('nextToken', nextToken);
          for (const [name, value] of filters) query.append(name, value);
          const page = await client.call<{
            resourceDescriptions: ListedResource[];
            nextToken: string | null;
            resourceVersion?: string;
          }>('GET', `/v1/${listed}/${enc(typeName)}?${query}`);
          // The first page's: a change after it is in a later page or in the watch.
          resourceVersion ??= page.resourceVersion;
          all.push(...page.resourceDescriptions);
          last = page.nextToken;
          nextToken = page.nextToken ?? undefined;
        } while (options.all && nextToken);
        const out = { resourceDescriptions: all, nextToken: last };
        const table = options.output === 'table' || options.output === 'wide';
        if (table && all.length === 0 && !last) {
          const none = nothingFound(
            options.unmanaged
              ? `The provider lists no ${typeName} that Typeplane has no record of`
              : `No resources found of ${typeName}`,
          );
          if (!options.watch) return none;
        } else
          process.stdout.write(
            (table
              ? resourceTable(all, options.output === 'wide') + (last ? `\n(more: --next-token ${last})` : '')
              : options.watch && options.output === 'json'
                ? JSON.stringify(out)
                : render(out, options.output)) + '\n',
          );
        if (options.watch) {
          // The list's filters narrow the watch too.
          const watched = new URLSearchParams({ watch: 'true', resourceVersion: resourceVersion ?? '' });
          for (const [name, value] of filters) watched.append(name, value);
          return followWatch(client, `/v1/resources/${enc(typeName)}?${watched}`, options.output, (event) =>
            eventLine(event, [String(event.object.identifier), changeCells(event.object.properties)]),
          );
        }
      },
    ),
  );

  const request = program.command('request').description('follow, list and cancel operations');
  examples(
    waitOption(
      common(
        request
          .command('get')
          .argument('<requestToken>')
          .description('the latest progress event of an operation'),
      ),
    ),
    ['typeplane request get 6f1c…', 'typeplane request get 6f1c… --wait 120'],
  ).action(
    action(async (token: string, options: Common & { wait?: unknown }) => {
      waitSeconds(options.wait);
      const client = clientFor(options);
      const { progressEvent } = await client.call<{ progressEvent: ProgressEvent }>(
        'GET',
        `/v1/requests/${enc(token)}`,
      );
      return printEvent(client, progressEvent, options);
    }),
  );
  examples(
    common(
      request
        .command('list')
        .description('list operations')
        .option('--operation <ops>', 'CREATE, UPDATE, DELETE (comma-separated)')
        .option('--status <statuses>', 'PENDING, IN_PROGRESS, SUCCESS, FAILED, … (comma-separated)')
        .option('--max-results <n>', `page size (1 to ${MAX_RESULTS_LIMIT})`)
        .option('--next-token <token>', 'continue from a previous page')
        .option(
          '-w, --watch',
          'after the list, print each operation as it begins, progresses and ends (every operation the token may see)',
        ),
    ),
    [
      'typeplane request list',
      'typeplane request list --status FAILED --operation CREATE,UPDATE',
      'typeplane request list --watch',
    ],
  ).action(
    action(
      async (
        options: Common & {
          operation?: string;
          status?: string;
          maxResults?: string;
          nextToken?: string;
          watch?: boolean;
        },
      ) => {
        const maxResults = maxResultsFlag(options.maxResults);
        const query = new URLSearchParams();
        if (options.operation) query.set('operation', options.operation);
        if (options.status) query.set('status', options.status);
        if (maxResults) query.set('maxResults', maxResults);
        if (options.nextToken) query.set('nextToken', options.nextToken);
        const client = clientFor(options);
        const out = await client.call<{
          progressEvents: ProgressEvent[];
          nextToken: string | null;
          resourceVersion?: string;
        }>('GET', `/v1/requests?${query}`);
        const cells = (e: ProgressEvent) => [
          e.requestToken,
          e.operation,
          e.operationStatus,
          e.typeName,
          e.identifier ?? '-',
          e.errorCode ?? '',
        ];
        if (options.output === 'table' && out.progressEvents.length === 0 && !out.nextToken) {
          const none = nothingFound('No requests found');
          if (!options.watch) return none;
        } else
          process.stdout.write(
            (options.watch && options.output === 'json'
              ? JSON.stringify(out)
              : render(out, options.output, () =>
                  columns(
                    ['REQUEST TOKEN', 'OPERATION', 'STATUS', 'TYPE', 'IDENTIFIER', 'ERROR'],
                    out.progressEvents.map(cells),
                  ),
                )) + '\n',
          );
        if (options.watch)
          return followWatch(
            client,
            // The list's filters narrow the watch too.
            `/v1/requests?${new URLSearchParams({
              watch: 'true',
              resourceVersion: out.resourceVersion ?? '',
              ...(options.operation ? { operation: options.operation } : {}),
              ...(options.status ? { status: options.status } : {}),
            })}`,
            options.output,
            (event) => eventLine(event, cells(event.object as unknown as ProgressEvent)),
          );
      },
    ),
  );
  examples(
    common(
      request
        .command('cancel')
        .argument('<requestToken>')
        .description('cancel a pending or in-progress operation'),
    ),
    ['typeplane request cancel 6f1c…'],
  ).action(
    action(async (token: string, options: Common) => {
      const client = clientFor(options);
      const { progressEvent } = await client.call<{ progressEvent: ProgressEvent }>(
        'POST',
        `/v1/requests/${enc(token)}/cancel`,
      );
      return printEvent(client, progressEvent, options);
    }),
  );
}

/** What an empty list prints on a terminal's table (as kubectl does), on stderr: stdout stays empty. */
export function nothingFound(message: string): number {
  process.stderr.write(`${message}.\n`);
  return EXIT.ok;
}

/**
 * Server diagnostics name the document 'request body', or nothing; the user knows it by its file
 * name (or, for a registered version, by the type and version).
 */
function nameFile(e: unknown, file: string): unknown {
  if (e instanceof ApiError)
    for (const d of e.details)
      if (d && typeof d === 'object' && ('file' in d || 'rule' in d)) (d as { file: unknown }).file = file;
  return e;
}

interface TypeDetail {
  typeName: string;
  version: string;
  apiVersion?: string;
  dialect: string;
  description: string;
  versions?: { version: string; isDefault?: boolean }[];
  primaryIdentifier?: string[];
  readOnlyProperties?: string[];
  writeOnlyProperties?: string[];
  createOnlyProperties?: string[];
  schema?: { properties?: Record<string, unknown> };
}

/** `type show` as a key/value table: what a user needs to create a resource of the type. */
function typeTable(t: TypeDetail): string {
  const list = (xs: string[] | undefined) => (xs && xs.length > 0 ? xs.join(', ') : '-');
  const rows: [string, string][] = [
    ['type', t.typeName],
    ['version', t.version],
    ...(t.apiVersion === undefined ? [] : [['api version', t.apiVersion] as [string, string]]),
    ['dialect', t.dialect],
    ['description', t.description.split('\n')[0] ?? ''],
    ['properties', Object.keys(t.schema?.properties ?? {}).join(', ') || '-'],
    ['identifier', list(t.primaryIdentifier)],
    ['read-only', list(t.readOnlyProperties)],
    ['write-only', list(t.writeOnlyProperties)],
    ['create-only', list(t.createOnlyProperties)],
    ['versions', list(t.versions?.map((v) => (v.isDefault ? `${v.version} (default)` : v.version)))],
  ];
  return rows.map(([k, v]) => `${k.padEnd(14)}${v}`).join('\n');
}

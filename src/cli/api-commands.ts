/**
 * @module `typeplane type …`, `typeplane resource …`, `typeplane request …`: the API from the shell.
 */
import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { parse as parseYaml } from 'yaml';
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

export interface Common {
  endpoint?: string;
  token?: string;
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

export function common(command: Command): Command {
  return command
    .option('--endpoint <url>', `Typeplane server (env TYPEPLANE_ENDPOINT; default ${DEFAULT_ENDPOINT})`)
    .option('--token <token>', 'API token (env TYPEPLANE_TOKEN)')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['json', 'yaml', 'table'])
        .default('table'),
    );
}

export function clientFor(options: Common): Client {
  // An empty TYPEPLANE_ENDPOINT (or TYPEPLANE_TOKEN) counts as unset.
  return new Client(
    options.endpoint ?? (process.env.TYPEPLANE_ENDPOINT || DEFAULT_ENDPOINT),
    options.token ?? (process.env.TYPEPLANE_TOKEN || undefined),
  );
}

/** What to do about a 401: where a token comes from and how to pass it. */
const TOKEN_HINT =
  "hint: pass an API token with --token or env TYPEPLANE_TOKEN; 'typeplane serve' prints an admin token on first start, and an admin makes more with 'typeplane token create --role admin|writer|reader'";

const enc = encodeURIComponent;

/** Run an action; API errors print `error: <code>: message` and exit 1. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<number | void>) {
  return async (...args: A) => {
    try {
      process.exitCode = (await fn(...args)) ?? 0;
    } catch (e) {
      if (e instanceof ApiError) {
        process.stderr.write(`error: ${e.errorCode}: ${e.message}\n`);
        for (const d of e.details.slice(0, 50)) process.stderr.write(`  - ${formatDetail(d)}\n`);
        if (e.status === 401) process.stderr.write(`${TOKEN_HINT}\n`);
        process.exitCode = 1;
        return;
      }
      throw e;
    }
  };
}

function formatDetail(detail: unknown): string {
  if (detail && typeof detail === 'object') {
    const d = detail as Record<string, unknown>;
    if (typeof d.rule === 'string')
      return `${String(d.file ?? '')}:${String(d.line ?? 1)}:${String(d.column ?? 1)} ${d.severity} ${d.rule} ${String(d.message)}`;
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

/** Follow an operation by polling `GET /v1/requests/:token` until it is terminal or `seconds` pass. */
async function follow(client: Client, event: ProgressEvent, seconds: number): Promise<ProgressEvent> {
  const until = Date.now() + seconds * 1000;
  const spin = spinner(process.stderr, `${event.operation} ${event.typeName} ${event.identifier ?? ''}`);
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
    spin.stop();
  }
}

function waitOption(command: Command): Command {
  return command
    .option('--wait [seconds]', 'wait until the operation finishes (default 300 s)')
    .option('--client-token <token>', 'idempotency token: retrying with it never repeats the operation');
}

function waitSeconds(value: unknown): number | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return 300;
  const n = String(value).trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new ApiError(0, 'InvalidRequest', `--wait takes a number of seconds, not '${String(value)}'`, []);
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
  }
  return final.operationStatus === 'FAILED' ? 1 : 0;
}

/** Read a local file; a missing or unreadable file is a clear error, not a stack of fs internals. */
export async function readLocal(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ApiError(
      0,
      'InvalidRequest',
      code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${(e as Error).message}`,
      [],
    );
  }
}

async function readDocument(path: string): Promise<unknown> {
  const text = await readLocal(path);
  try {
    return /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw new ApiError(
      0,
      'InvalidRequest',
      `${path} is not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${(e as Error).message.split('\n')[0]}`,
      [],
    );
  }
}

function parseJsonArg(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError(0, 'InvalidRequest', `${name} is not valid JSON: ${(e as Error).message}`, []);
  }
}

export function registerApiCommands(program: Command): void {
  const type = program.command('type').description('register and inspect resource types');
  common(
    type
      .command('register')
      .argument('<file>', 'resource schema (.json/.yaml) or manifest (.yaml)')
      .description('register the types a document defines'),
  ).action(
    action(async (file: string, options: Common) => {
      const text = await readLocal(file);
      const contentType = /\.ya?ml$/i.test(file) ? 'application/yaml' : 'application/json';
      const out = await clientFor(options)
        .call<{ types: { typeName: string; version: string }[] }>('POST', '/v1/types', text, contentType)
        .catch((e: unknown) => {
          // The server names the document 'request body'; the user knows it by its file name.
          if (e instanceof ApiError)
            for (const d of e.details)
              if (d && typeof d === 'object' && 'file' in d) (d as { file: unknown }).file = file;
          throw e;
        });
      process.stdout.write(
        render(out, options.output, () =>
          out.types.map((t) => `registered ${t.typeName} (version ${t.version})`).join('\n'),
        ) + '\n',
      );
    }),
  );
  common(type.command('list').description('list registered types')).action(
    action(async (options: Common) => {
      const out = await clientFor(options).call<{
        types: { typeName: string; version: string; dialect: string; description: string }[];
      }>('GET', '/v1/types');
      process.stdout.write(
        render(out, options.output, () =>
          columns(
            ['TYPE', 'VERSION', 'DIALECT', 'DESCRIPTION'],
            out.types.map((t) => [
              t.typeName,
              t.version,
              t.dialect,
              truncate(t.description.split('\n')[0] ?? '', 60),
            ]),
          ),
        ) + '\n',
      );
    }),
  );
  common(
    type.command('show').argument('<typeName>').description('describe a type: schema, versions, identifiers'),
  ).action(
    action(async (typeName: string, options: Common) => {
      const out = await clientFor(options).call<Record<string, unknown>>('GET', `/v1/types/${enc(typeName)}`);
      process.stdout.write(render(out, options.output === 'table' ? 'yaml' : options.output) + '\n');
    }),
  );
  common(
    type
      .command('delete')
      .argument('<typeName>')
      .description('deregister a type (refused while resources exist)'),
  ).action(
    action(async (typeName: string, options: Common) => {
      await clientFor(options).call('DELETE', `/v1/types/${enc(typeName)}`);
      process.stdout.write(`deregistered ${typeName}\n`);
    }),
  );

  const resource = program.command('resource').description('create, read, update, delete and list resources');
  waitOption(
    common(
      resource
        .command('create')
        .argument('<typeName>')
        .description('create a resource')
        .option('--properties <json>', 'desired state as JSON')
        .option('--file <path>', 'desired state from a JSON or YAML file'),
    ),
  ).action(
    action(
      async (
        typeName: string,
        options: Common & { properties?: string; file?: string; wait?: unknown; clientToken?: string },
      ) => {
        if ((options.properties === undefined) === (options.file === undefined))
          throw new ApiError(
            0,
            'InvalidRequest',
            'give the desired state with exactly one of --properties <json> or --file <path>',
            [],
          );
        const desiredState = options.file
          ? await readDocument(options.file)
          : parseJsonArg('--properties', options.properties!);
        const client = clientFor(options);
        const { progressEvent } = await client.call<{ progressEvent: ProgressEvent }>(
          'POST',
          `/v1/resources/${enc(typeName)}`,
          { desiredState, ...(options.clientToken ? { clientToken: options.clientToken } : {}) },
        );
        return printEvent(client, progressEvent, options);
      },
    ),
  );
  common(
    resource.command('get').argument('<typeName>').argument('<identifier>').description('read a resource'),
  ).action(
    action(async (typeName: string, identifier: string, options: Common) => {
      const out = await clientFor(options).call<{ identifier: string; properties: Record<string, unknown> }>(
        'GET',
        `/v1/resources/${enc(typeName)}/${enc(identifier)}`,
      );
      process.stdout.write(render(out, options.output === 'table' ? 'yaml' : options.output) + '\n');
    }),
  );
  waitOption(
    common(
      resource
        .command('update')
        .argument('<typeName>')
        .argument('<identifier>')
        .description('update a resource with an RFC 6902 JSON Patch')
        .option('--patch <json>', 'patch document, e.g. \'[{"op":"replace","path":"/size","value":"M"}]\'')
        .option('--patch-file <path>', 'patch document from a JSON or YAML file'),
    ),
  ).action(
    action(
      async (
        typeName: string,
        identifier: string,
        options: Common & { patch?: string; patchFile?: string; wait?: unknown; clientToken?: string },
      ) => {
        if ((options.patch === undefined) === (options.patchFile === undefined))
          throw new ApiError(
            0,
            'InvalidRequest',
            'give the patch with exactly one of --patch <json> or --patch-file <path>',
            [],
          );
        const patchDocument = options.patchFile
          ? await readDocument(options.patchFile)
          : parseJsonArg('--patch', options.patch!);
        const client = clientFor(options);
        const { progressEvent } = await client.call<{ progressEvent: ProgressEvent }>(
          'PATCH',
          `/v1/resources/${enc(typeName)}/${enc(identifier)}`,
          { patchDocument, ...(options.clientToken ? { clientToken: options.clientToken } : {}) },
        );
        return printEvent(client, progressEvent, options);
      },
    ),
  );
  waitOption(
    common(
      resource
        .command('delete')
        .argument('<typeName>')
        .argument('<identifier>')
        .description('delete a resource'),
    ),
  ).action(
    action(
      async (
        typeName: string,
        identifier: string,
        options: Common & { wait?: unknown; clientToken?: string },
      ) => {
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
  common(
    resource
      .command('list')
      .argument('<typeName>')
      .description('list resources of a type')
      .option('--max-results <n>', 'page size')
      .option('--next-token <token>', 'continue from a previous page')
      .option('--all', 'follow nextToken to the end'),
  ).action(
    action(
      async (
        typeName: string,
        options: Common & { maxResults?: string; nextToken?: string; all?: boolean },
      ) => {
        const client = clientFor(options);
        const all: { identifier: string; properties: unknown }[] = [];
        let nextToken = options.nextToken;
        let last: string | null = null;
        do {
          const query = new URLSearchParams();
          if (options.maxResults) query.set('maxResults', options.maxResults);
          if (nextToken) query.set('nextToken', nextToken);
          const page = await client.call<{
            resourceDescriptions: { identifier: string; properties: unknown }[];
            nextToken: string | null;
          }>('GET', `/v1/resources/${enc(typeName)}?${query}`);
          all.push(...page.resourceDescriptions);
          last = page.nextToken;
          nextToken = page.nextToken ?? undefined;
        } while (options.all && nextToken);
        const out = { resourceDescriptions: all, nextToken: last };
        process.stdout.write(
          render(
            out,
            options.output,
            () =>
              columns(
                ['IDENTIFIER', 'PROPERTIES'],
                all.map((r) => [r.identifier, truncate(JSON.stringify(r.properties), 100)]),
              ) + (last ? `\n(more: --next-token ${last})` : ''),
          ) + '\n',
        );
      },
    ),
  );

  const request = program.command('request').description('follow, list and cancel operations');
  waitOption(
    common(
      request
        .command('get')
        .argument('<requestToken>')
        .description('the latest progress event of an operation'),
    ),
  ).action(
    action(async (token: string, options: Common & { wait?: unknown }) => {
      const client = clientFor(options);
      const { progressEvent } = await client.call<{ progressEvent: ProgressEvent }>(
        'GET',
        `/v1/requests/${enc(token)}`,
      );
      return printEvent(client, progressEvent, options);
    }),
  );
  common(
    request
      .command('list')
      .description('list operations')
      .option('--operation <ops>', 'CREATE, UPDATE, DELETE (comma-separated)')
      .option('--status <statuses>', 'PENDING, IN_PROGRESS, SUCCESS, FAILED, … (comma-separated)')
      .option('--max-results <n>', 'page size')
      .option('--next-token <token>', 'continue from a previous page'),
  ).action(
    action(
      async (
        options: Common & { operation?: string; status?: string; maxResults?: string; nextToken?: string },
      ) => {
        const query = new URLSearchParams();
        if (options.operation) query.set('operation', options.operation);
        if (options.status) query.set('status', options.status);
        if (options.maxResults) query.set('maxResults', options.maxResults);
        if (options.nextToken) query.set('nextToken', options.nextToken);
        const out = await clientFor(options).call<{
          progressEvents: ProgressEvent[];
          nextToken: string | null;
        }>('GET', `/v1/requests?${query}`);
        process.stdout.write(
          render(out, options.output, () =>
            columns(
              ['REQUEST TOKEN', 'OPERATION', 'STATUS', 'TYPE', 'IDENTIFIER', 'ERROR'],
              out.progressEvents.map((e) => [
                e.requestToken,
                e.operation,
                e.operationStatus,
                e.typeName,
                e.identifier ?? '-',
                e.errorCode ?? '',
              ]),
            ),
          ) + '\n',
        );
      },
    ),
  );
  common(
    request
      .command('cancel')
      .argument('<requestToken>')
      .description('cancel a pending or in-progress operation'),
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

/**
 * @module `typeplane lsp --stdio`: the language server (src/lsp) for editors, over standard input
 * and output. Nothing else is written to standard output: it is the protocol's.
 */
import { type Command } from 'commander';
import { createConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node.js';
import { serveLanguage, type RegistryClient } from '../lsp/index.js';
import { CA_FILE_HELP, clientFor, examples } from './api-commands.js';
import { ApiError } from './client.js';
import { fetchRegisteredType } from './diff.js';

interface LspOptions {
  stdio?: boolean;
  endpoint?: string;
  token?: string;
  caFile?: string;
  baseline?: string;
  baselineRegistered?: boolean;
  debounce?: string;
}

export function registerLsp(program: Command): void {
  const lsp = program
    .command('lsp')
    .description(
      'language server for editors: diagnostics, completion, hover and navigation for types and templates (see docs/editors.md)',
    )
    .option(
      '--stdio',
      'talk the Language Server Protocol over standard input and output (the only transport)',
    )
    .option(
      '--endpoint <url>',
      "a Typeplane server whose registered types templates may use (env TYPEPLANE_ENDPOINT); without it, only the workspace's",
    )
    .option('--token <token>', 'API token for --endpoint (env TYPEPLANE_TOKEN)')
    .option('--ca-file <file>', CA_FILE_HELP)
    .option(
      '--baseline <revision>',
      'show what `typeplane diff` reports against the file at this git revision',
    )
    .option(
      '--baseline-registered',
      "show what `typeplane diff --registered` reports against the server's default version of each type",
    )
    .option('--debounce <ms>', 'pause after a keystroke before a document is checked again', '150')
    .action((options: LspOptions, command: Command) => {
      const usage = usageProblem(options);
      if (usage) command.error(`error: ${usage}`, { exitCode: 2, code: 'typeplane.usage' });
      const wantsServer =
        options.endpoint !== undefined || !!process.env.TYPEPLANE_ENDPOINT || options.baselineRegistered;
      const connection = createConnection(
        new StreamMessageReader(process.stdin),
        new StreamMessageWriter(process.stdout),
      );
      serveLanguage(connection, {
        ...(wantsServer ? { registry: registryClient(options) } : {}),
        ...(options.baseline !== undefined ? { baseline: { revision: options.baseline } } : {}),
        ...(options.baselineRegistered ? { baseline: { registered: true } } : {}),
        debounceMs: Number(options.debounce),
      });
    });
  examples(lsp, [
    'typeplane lsp --stdio',
    'typeplane lsp --stdio --baseline main',
    'TYPEPLANE_TOKEN=tp_… typeplane lsp --stdio --endpoint http://127.0.0.1:4780 --baseline-registered',
  ]);
}

function usageProblem(options: LspOptions): string | undefined {
  if (!options.stdio) return 'give --stdio: the server talks to the editor over standard input and output';
  if (options.baseline !== undefined && options.baselineRegistered)
    return 'give one baseline: --baseline <revision> or --baseline-registered';
  if (options.baseline !== undefined && !/^[^-\s:][^\s:]*$/.test(options.baseline))
    return `--baseline must be a git revision (a branch, tag or commit), not '${options.baseline}'`;
  if (!/^\d{1,5}$/.test(options.debounce ?? ''))
    return `--debounce must be a number of milliseconds, not '${options.debounce}'`;
  return undefined;
}

/** The server's registry through the CLI's client (its token is sent, never shown). */
function registryClient(options: LspOptions): RegistryClient {
  const client = clientFor({ ...options, output: 'json' });
  return {
    async list() {
      const out = await client.call<{
        types: { typeName: string; apiVersion?: string; description?: string }[];
      }>('GET', '/v1/types');
      return out.types;
    },
    async get(typeName) {
      try {
        return await fetchRegisteredType(client, typeName);
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) return undefined;
        throw e;
      }
    },
  };
}

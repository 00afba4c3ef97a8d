/**
 * An editor's side of the language server, for tests: `typeplane lsp --stdio` as a child process,
 * spoken to over its standard input and output with vscode-jsonrpc (the library VS Code's client
 * uses), the diagnostics it publishes kept by document and version.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node.js';
import type {
  Diagnostic,
  PublishDiagnosticsParams,
  TextDocumentContentChangeEvent,
} from 'vscode-languageserver';
import { CLI } from '../helpers/cli.js';
import { root } from '../../scripts/dist-current.mjs';

export interface LspClient {
  connection: MessageConnection;
  child: ChildProcess;
  /** The server's standard error, for failure messages. */
  stderr: () => string;
  open(path: string, text: string, languageId?: string): string;
  change(uri: string, changes: TextDocumentContentChangeEvent[]): number;
  /** The diagnostics published for `uri` at `version` (the latest version when not given). */
  diagnostics(uri: string, version?: number, timeoutMs?: number): Promise<Diagnostic[]>;
  /** How many times diagnostics were published for `uri` so far. */
  publications(uri: string): number;
  /** The diagnostics of the publication for `uri` after the first `count`. */
  publishedAfter(uri: string, count: number, timeoutMs?: number): Promise<Diagnostic[]>;
  request<T>(method: string, params: unknown): Promise<T>;
  close(): Promise<void>;
}

export const uriOf = (path: string) => pathToFileURL(path).href;

/** Start the server for a workspace folder, initialised. */
export async function startLsp(
  folder: string,
  {
    args = [],
    env = {},
    debounceMs = 0,
  }: { args?: string[]; env?: NodeJS.ProcessEnv; debounceMs?: number } = {},
): Promise<LspClient> {
  const {
    NODE_TEST_CONTEXT: _runner,
    TYPEPLANE_TOKEN: _t,
    TYPEPLANE_ENDPOINT: _e,
    ...inherited
  } = process.env;
  const child = spawn(
    process.execPath,
    [...CLI, 'lsp', '--stdio', '--debounce', String(debounceMs), ...args],
    {
      cwd: root,
      env: { ...inherited, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const published = new Map<string, PublishDiagnosticsParams[]>();
  const waiters: (() => void)[] = [];
  connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
    published.set(params.uri, [...(published.get(params.uri) ?? []), params]);
    for (const wake of waiters.splice(0)) wake();
  });
  // The server asks to be told of changed files (the test tells it itself).
  connection.onRequest('client/registerCapability', () => null);
  connection.listen();
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: uriOf(folder),
    workspaceFolders: [{ uri: uriOf(folder), name: 'workspace' }],
    capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
  });
  await connection.sendNotification('initialized', {});
  const versions = new Map<string, number>();
  return {
    connection,
    child,
    stderr: () => stderr,
    open(path, text, languageId = path.endsWith('.json') ? 'json' : 'yaml') {
      const uri = uriOf(path);
      versions.set(uri, 1);
      void connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId, version: 1, text },
      });
      return uri;
    },
    change(uri, changes) {
      const version = (versions.get(uri) ?? 1) + 1;
      versions.set(uri, version);
      void connection.sendNotification('textDocument/didChange', {
        textDocument: { uri, version },
        contentChanges: changes,
      });
      return version;
    },
    async diagnostics(uri, version = versions.get(uri), timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = published.get(uri)?.find((p) => version === undefined || p.version === version);
        if (found) return found.diagnostics;
        if (Date.now() > deadline)
          throw new Error(`no diagnostics for ${uri} at version ${version}\n${stderr}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 200);
          waiters.push(() => (clearTimeout(timer), resolve()));
        });
      }
    },
    publications: (uri) => published.get(uri)?.length ?? 0,
    async publishedAfter(uri, count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = published.get(uri)?.[count];
        if (found) return found.diagnostics;
        if (Date.now() > deadline) throw new Error(`no new diagnostics for ${uri}\n${stderr}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 200);
          waiters.push(() => (clearTimeout(timer), resolve()));
        });
      }
    },
    request: (method, params) => connection.sendRequest(method, params),
    async close() {
      await connection.sendRequest('shutdown').catch(() => undefined);
      await connection.sendNotification('exit').catch(() => undefined);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      connection.dispose();
    },
  };
}

/**
 * @module The language server's wiring: the editor's requests and notifications (over the
 * connection vscode-languageserver gives) to the modules that answer them. Documents are synced
 * incrementally; each change is checked after a pause in typing (debounced), and only the latest
 * version's findings are published.
 */
import { fileURLToPath } from 'node:url';
import {
  CodeActionKind,
  DidChangeWatchedFilesNotification,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type InitializeResult,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { BreakingChangeLens, type Baseline } from './breaking-changes.js';
import { codeActions } from './code-actions.js';
import { complete } from './completion.js';
import { toLspDiagnostics } from './diagnostics.js';
import { OpenDocument } from './documents.js';
import { hover } from './hover.js';
import { definition, references } from './navigation.js';
import { recognise } from './recognition.js';
import { documentSymbols } from './symbols.js';
import { Workspace, type RegistryClient } from './workspace.js';

export interface LanguageServerOptions {
  /** A server's registry: its types are known to templates too. */
  registry?: RegistryClient;
  /** Show what `typeplane diff` reports against this baseline, at the changed places. */
  baseline?: Baseline;
  /** The pause after a change before it is checked (default 150 ms). */
  debounceMs?: number;
}

export const DEFAULT_DEBOUNCE_MS = 150;

/** Serve the Language Server Protocol on `connection` until the editor exits. */
export function serveLanguage(connection: Connection, options: LanguageServerOptions = {}): void {
  const documents = new TextDocuments(TextDocument);
  const open = new Map<string, OpenDocument>();
  const timers = new Map<string, NodeJS.Timeout>();
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  let workspace = new Workspace(process.cwd(), options.registry);
  let ready: Promise<void> = Promise.resolve();
  let lens: BreakingChangeLens | undefined;
  let watchFiles = false;

  connection.onInitialize((params): InitializeResult => {
    watchFiles = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    const folders = (params.workspaceFolders ?? []).map((f) => fileURLToPath(f.uri));
    if (folders.length === 0 && params.rootUri) folders.push(fileURLToPath(params.rootUri));
    workspace = new Workspace(folders[0] ?? process.cwd(), options.registry);
    if (options.baseline) lens = new BreakingChangeLens(options.baseline, workspace);
    ready = folders.length > 0 ? workspace.load(folders).catch(() => undefined) : Promise.resolve();
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: false },
        completionProvider: { triggerCharacters: ['"', ':', ' ', '/', '.', '!', '[', ','] },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        documentSymbolProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      },
      serverInfo: { name: 'typeplane' },
    };
  });

  const documentOf = (uri: string): OpenDocument | undefined => {
    const text = documents.get(uri);
    if (!text) return undefined;
    let doc = open.get(uri);
    if (!doc) open.set(uri, (doc = new OpenDocument(text)));
    doc.text = text;
    return doc;
  };

  const check = async (uri: string): Promise<void> => {
    await ready;
    const doc = documentOf(uri);
    if (!doc) return;
    const version = doc.text.version;
    const text = doc.text.getText();
    const file = doc.path ? workspace.shown(doc.path) : doc.text.uri;
    const found = await recognise(text, file, workspace, doc.kind);
    const changes =
      lens && doc.path && found.result?.valid
        ? await lens.changes(text, doc.path, file, found.result.types)
        : [];
    // A newer version is on its way to be checked: these findings are already stale.
    if (documents.get(uri)?.version !== version) return;
    if (doc.path) workspace.update(file, found.result);
    doc.checked(found.kind, found.diagnostics);
    await connection.sendDiagnostics({
      uri,
      version,
      diagnostics: toLspDiagnostics(found.diagnostics, changes, lens?.label ?? '', doc.text, doc.format),
    });
  };

  const schedule = (uri: string, delay: number) => {
    clearTimeout(timers.get(uri));
    timers.set(
      uri,
      setTimeout(() => {
        timers.delete(uri);
        check(uri).catch((e: unknown) =>
          connection.console.error(`checking ${uri} failed: ${(e as Error).stack ?? String(e)}`),
        );
      }, delay),
    );
  };

  // An opened document is checked at once; a change after a pause in typing. (TextDocuments reports
  // an open as a change of content too, right after it.)
  const opened = new Set<string>();
  documents.onDidOpen((e) => opened.add(e.document.uri));
  documents.onDidChangeContent((e) =>
    schedule(e.document.uri, opened.delete(e.document.uri) ? 0 : debounceMs),
  );
  documents.onDidClose((e) => {
    clearTimeout(timers.get(e.document.uri));
    timers.delete(e.document.uri);
    const path = open.get(e.document.uri)?.path;
    open.delete(e.document.uri);
    // What the editor held unsaved is gone: the other documents are checked against the file again.
    if (path) void workspace.reload(path).catch(() => undefined);
    void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });

  // Files changed outside the editor (a checkout, another tool): the workspace reads them again, and
  // the open documents are checked against them.
  connection.onInitialized(() => {
    if (watchFiles)
      void connection.client.register(DidChangeWatchedFilesNotification.type, {
        watchers: [{ globPattern: '**/*.{json,yaml,yml}' }],
      });
  });
  connection.onDidChangeWatchedFiles(async (params) => {
    await ready;
    const changed = params.changes
      .filter((c) => c.uri.startsWith('file:') && !documents.get(c.uri))
      .map((c) => workspace.reload(fileURLToPath(c.uri)).catch(() => undefined));
    if (changed.length === 0) return;
    await Promise.all(changed);
    for (const uri of open.keys()) schedule(uri, debounceMs);
  });

  // Requests read the document as last checked (its kind) and as it is now (its text).
  connection.onCompletion(async (params) => {
    const doc = documentOf(params.textDocument.uri);
    return doc ? complete(doc, params.position, workspace) : [];
  });
  connection.onHover(async (params) => {
    const doc = documentOf(params.textDocument.uri);
    return doc ? hover(doc, params.position, workspace) : null;
  });
  connection.onDefinition((params) => {
    const doc = documentOf(params.textDocument.uri);
    return doc ? definition(doc, params.position, workspace) : [];
  });
  connection.onReferences((params) => {
    const doc = documentOf(params.textDocument.uri);
    return doc ? references(doc, params.position, params.context.includeDeclaration) : [];
  });
  connection.onDocumentSymbol((params) => {
    const doc = documentOf(params.textDocument.uri);
    return doc ? documentSymbols(doc) : [];
  });
  connection.onCodeAction((params) => {
    const doc = documentOf(params.textDocument.uri);
    return doc ? codeActions(doc, params.context.diagnostics) : [];
  });

  documents.listen(connection);
  connection.listen();
}

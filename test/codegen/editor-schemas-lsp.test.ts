/**
 * The editor schemas in a real editor engine: `yaml-language-server` (the engine of VS Code's YAML
 * support) runs as a child process spoken to over LSP on stdio. Documents name their schema with a
 * `# yaml-language-server: $schema=…` line, as a user would; completion offers our keywords and
 * members, and diagnostics flag what the schemas forbid — for a manifest, a resource schema, and a
 * resource's properties against its type's schema.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node.js';
import {
  manifestEditorSchema,
  resourceSchemaEditorSchema,
  typePropertiesSchema,
} from '../../src/codegen/index.js';
import { validateDocument } from '../../src/schema/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'typeplane-lsp-'));
const write = (name: string, value: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return pathToFileURL(path).href;
};

interface Diagnostic {
  message: string;
  range: { start: { line: number; character: number } };
}
interface CompletionItem {
  label: string;
}

let server: ChildProcess;
let connection: MessageConnection;
const diagnostics = new Map<string, Diagnostic[]>();
const waiters: (() => void)[] = [];

before(async () => {
  server = spawn(join(root, 'node_modules/.bin/yaml-language-server'), ['--stdio'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  connection = createMessageConnection(
    new StreamMessageReader(server.stdout!),
    new StreamMessageWriter(server.stdin!),
  );
  connection.onNotification(
    'textDocument/publishDiagnostics',
    (params: { uri: string; diagnostics: Diagnostic[] }) => {
      diagnostics.set(params.uri, params.diagnostics);
      for (const w of waiters.splice(0)) w();
    },
  );
  // The server asks for its settings: validation, completion and hover on; schemas come from modelines.
  connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) =>
    params.items.map((item) =>
      item.section === 'yaml'
        ? { validate: true, completion: true, hover: true, schemas: {}, schemaStore: { enable: false } }
        : {},
    ),
  );
  connection.onRequest('client/registerCapability', () => null);
  connection.onNotification('window/logMessage', () => undefined);
  connection.onNotification('telemetry/event', () => undefined);
  connection.listen();
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(dir).href,
    capabilities: {
      workspace: { configuration: true },
      textDocument: { completion: { completionItem: { snippetSupport: false } }, publishDiagnostics: {} },
    },
  });
  await connection.sendNotification('initialized', {});
  await connection.sendNotification('workspace/didChangeConfiguration', {
    settings: { yaml: { validate: true, completion: true, hover: true, schemaStore: { enable: false } } },
  });
});

after(() => {
  connection?.dispose();
  server?.kill();
});

let version = 0;
/** Open a document and wait for the diagnostics the server publishes for it. */
async function open(name: string, text: string): Promise<{ uri: string; diagnostics: Diagnostic[] }> {
  const uri = pathToFileURL(join(dir, name)).href;
  diagnostics.delete(uri);
  await connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'yaml', version: ++version, text },
  });
  const deadline = Date.now() + 15_000;
  while (!diagnostics.has(uri)) {
    assert.ok(Date.now() < deadline, `no diagnostics for ${name} within 15 s`);
    await new Promise<void>((resolve) => {
      waiters.push(resolve);
      setTimeout(resolve, 200);
    });
  }
  return { uri, diagnostics: diagnostics.get(uri)! };
}

async function complete(uri: string, line: number, character: number): Promise<string[]> {
  const result = (await connection.sendRequest('textDocument/completion', {
    textDocument: { uri },
    position: { line, character },
  })) as { items: CompletionItem[] } | CompletionItem[] | null;
  const items = Array.isArray(result) ? result : (result?.items ?? []);
  return items.map((i) => i.label);
}

/** The line and column where `marker` is in `text` (then removed). */
function cursor(text: string, marker = '|'): { text: string; line: number; character: number } {
  const at = text.indexOf(marker);
  const before = text.slice(0, at).split('\n');
  return { text: text.replace(marker, ''), line: before.length - 1, character: before.at(-1)!.length };
}

test('a manifest: completion offers schema keywords, diagnostics flag unknown keys and bad values', async () => {
  const schema = write('manifest.json', manifestEditorSchema());
  const doc = cursor(`# yaml-language-server: $schema=${schema}
namespace: Acme.Storage
types:
  volumes:
    descriptin: A volume.
    apiVersions:
      '2025-01-01-preview':
        schema:
          type: object
          properties:
            size:
              type: strng
              |
`);
  const { uri, diagnostics: found } = await open('volumes.yaml', doc.text);
  const messages = found.map((d) => `${d.range.start.line}: ${d.message}`).join('\n');
  assert.match(messages, /^4: Property descriptin is not allowed\./m, messages);
  assert.match(
    messages,
    /^11: Value is not accepted\. Valid values: "string", "number", "integer", "boolean", "object", "array", "any"\./m,
    messages,
  );
  // Optional, as in Radius (validate warns): the editor does not flag it.
  assert.doesNotMatch(messages, /Missing property "description"/, messages);
  const labels = await complete(uri, doc.line, doc.character);
  for (const keyword of [
    'description',
    'enum',
    'x-radius-sensitive',
    'readOnly',
    'maxLength',
    'additionalProperties',
  ])
    assert.ok(labels.includes(keyword), `${keyword} not offered: ${labels.join(', ')}`);
  assert.ok(!labels.includes('patternProperties'), 'manifests have no patternProperties');
});

test('a manifest value: completion offers the schema types', async () => {
  const schema = write('manifest.json', manifestEditorSchema());
  const doc = cursor(`# yaml-language-server: $schema=${schema}
namespace: Acme.Storage
types:
  volumes:
    description: A volume.
    apiVersions:
      '2025-01-01-preview':
        schema:
          type: object
          properties:
            size:
              type: |
`);
  const { uri } = await open('values.yaml', doc.text);
  const labels = await complete(uri, doc.line, doc.character);
  for (const t of ['string', 'integer', 'boolean', 'object', 'array'])
    assert.ok(labels.includes(t), `${t}: ${labels.join(', ')}`);
});

test('a resource schema: top-level keys are offered, a malformed typeName is flagged', async () => {
  const schema = write('resource-schema.json', resourceSchemaEditorSchema());
  const doc = cursor(`# yaml-language-server: $schema=${schema}
typeName: Acme-Storage-Volume
description: A volume.
additionalProperties: false
properties:
  Id:
    type: string
primaryIdentifier: [/properties/Id]
|
`);
  const { uri, diagnostics: found } = await open('volume-schema.yaml', doc.text);
  const messages = found.map((d) => `${d.range.start.line}: ${d.message}`).join('\n');
  assert.match(messages, /^1: String does not match the pattern/m, messages);
  const labels = await complete(uri, doc.line, doc.character);
  for (const key of [
    'readOnlyProperties',
    'writeOnlyProperties',
    'createOnlyProperties',
    'handlers',
    'definitions',
  ])
    assert.ok(labels.includes(key), `${key}: ${labels.join(', ')}`);
});

test("a resource's properties against its type's schema: members offered, bounds checked", async () => {
  const result = validateDocument(
    `namespace: Typeplane.Messaging
types:
  queues:
    description: A queue.
    apiVersions:
      '2025-01-01-preview':
        schema:
          type: object
          properties:
            fifo: { type: boolean, description: In order. }
            retentionHours: { type: integer, minimum: 1, maximum: 336 }
            url: { type: string, readOnly: true }
`,
    { file: 'queues.yaml' },
  );
  const schema = write('queues-properties.json', typePropertiesSchema(result.types[0]!));
  const doc = cursor(`# yaml-language-server: $schema=${schema}
name: orders
retentionHours: 1000
|
`);
  const { uri, diagnostics: found } = await open('orders.yaml', doc.text);
  const messages = found.map((d) => `${d.range.start.line}: ${d.message}`).join('\n');
  assert.match(messages, /^2: Value is above the maximum of 336\./m, messages);
  const labels = await complete(uri, doc.line, doc.character);
  assert.ok(labels.includes('fifo'), labels.join(', '));
  assert.ok(labels.includes('url'), 'read-only members are listed (marked readOnly), as a read returns them');
});

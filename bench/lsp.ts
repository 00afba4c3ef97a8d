/**
 * Benchmark (not a test): the language server (`typeplane lsp --stdio`) as an editor drives it, over
 * stdio JSON-RPC, with the shared corpus as its workspace (1,500 type documents: every check of an
 * open document is also made among them).
 *
 * - Time to first diagnostics for the largest corpus schema: didOpen sent -> publishDiagnostics.
 * - Per-keystroke re-check (issue #37's target: < 100 ms): one character typed into that schema, the
 *   debounce set to 0, sent -> its version's diagnostics; ROUNDS times, p50 and p95.
 * - Memory with 100 open documents: the server's resident set after opening the 100 largest corpus
 *   files, against itself with none open.
 *
 * Baseline, measured in this run: validateDocument of the same schema in this process (the check
 * `typeplane validate` makes, without a process or protocol around it); the re-check is printed as a
 * ratio to it.
 *
 *   npm run bench:lsp            (ROUNDS=40; CLI=<main.js>; default: dist/ when current, else src/ via tsx)
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node.js';
import { validateDocument } from '../src/schema/index.js';
import { distIsCurrent } from '../scripts/dist-current.mjs';

const TARGET_MS = 100;
const ROUNDS = Number(process.env.ROUNDS ?? 40);
const corpus = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
const aws = join(corpus, 'aws-resource-schemas');
if (!existsSync(aws)) {
  console.error(`corpus not found at ${corpus}`);
  process.exit(1);
}
const built = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
// The build when it is current with src/ (as the tests choose), else the sources.
const cli = process.env.CLI ?? (distIsCurrent() ? built : undefined);
const args = cli ? [cli] : ['--import', 'tsx', fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))];

const files = readdirSync(aws)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ path: join(aws, f), size: statSync(join(aws, f)).size }))
  .sort((a, b) => b.size - a.size);
const largest = files[0]!;
const largestText = readFileSync(largest.path, 'utf8');

const child = spawn(process.execPath, [...args, 'lsp', '--stdio', '--debounce', '0'], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const connection = createMessageConnection(
  new StreamMessageReader(child.stdout!),
  new StreamMessageWriter(child.stdin!),
);
const published = new Map<string, (version: number | undefined) => void>();
connection.onNotification('textDocument/publishDiagnostics', (p: { uri: string; version?: number }) =>
  published.get(p.uri)?.(p.version),
);
connection.listen();

const uriOf = (path: string) => pathToFileURL(path).href;
function diagnosed(uri: string, version: number): Promise<void> {
  return new Promise((resolve) =>
    published.set(uri, (v) => {
      if (v === version) resolve();
    }),
  );
}
function open(path: string, text: string): Promise<void> {
  const uri = uriOf(path);
  const done = diagnosed(uri, 1);
  void connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'json', version: 1, text },
  });
  return done;
}
function rss(): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) * 1024;
}
const ms = (t: number) => `${t.toFixed(1)} ms`;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

let t = performance.now();
await connection.sendRequest('initialize', {
  processId: process.pid,
  rootUri: uriOf(corpus),
  workspaceFolders: [{ uri: uriOf(corpus), name: 'corpus' }],
  capabilities: {},
});
await connection.sendNotification('initialized', {});
// The workspace is read before the first check: a tiny document's diagnostics say it is.
await open(join(corpus, 'probe.json'), '{"typeName": "Bench::Probe::Type"}');
const workspaceMs = performance.now() - t;
const idle = rss();

t = performance.now();
await open(largest.path, largestText);
const firstMs = performance.now() - t;

// Typing: a character into the description, then taken out again, alternately.
const uri = uriOf(largest.path);
const at = largestText.indexOf('"description"') + '"description": "'.length;
const position = {
  line: largestText.slice(0, at).split('\n').length - 1,
  character: at - largestText.lastIndexOf('\n', at - 1) - 1,
};
const keystrokes: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const version = i + 2;
  const change =
    i % 2 === 0
      ? { range: { start: position, end: position }, text: 'x' }
      : { range: { start: position, end: { ...position, character: position.character + 1 } }, text: '' };
  const done = diagnosed(uri, version);
  t = performance.now();
  void connection.sendNotification('textDocument/didChange', {
    textDocument: { uri, version },
    contentChanges: [change],
  });
  await done;
  keystrokes.push(performance.now() - t);
}

// Baseline: validate's own check of the same text, here.
const baseline: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  t = performance.now();
  validateDocument(largestText, { file: largest.path, bicepWarnings: true });
  baseline.push(performance.now() - t);
}

for (const file of files.slice(1, 101)) await open(file.path, readFileSync(file.path, 'utf8'));
const withHundred = rss();

await connection.sendRequest('shutdown');
await connection.sendNotification('exit');
connection.dispose();

const p50 = pct(keystrokes, 0.5);
const p95 = pct(keystrokes, 0.95);
const lines = largestText.split('\n').length;
console.log(
  `workspace: ${files.length} corpus schemas (+ manifests) read in ${ms(workspaceMs)} before the first check`,
);
console.log(
  `largest schema: ${largest.path.split('/').pop()} (${(largest.size / 1024).toFixed(0)} KiB, ${lines} lines)`,
);
console.log(`time to first diagnostics: ${ms(firstMs)}`);
console.log(
  `per-keystroke re-check: p50 ${ms(p50)}, p95 ${ms(p95)} over ${ROUNDS} keystrokes; validateDocument alone p50 ${ms(pct(baseline, 0.5))} (ratio ${(p50 / pct(baseline, 0.5)).toFixed(2)}x)`,
);
console.log(
  `memory: ${(idle / 1048576).toFixed(0)} MiB with the workspace read, ${(withHundred / 1048576).toFixed(0)} MiB with 100 documents open (${((withHundred - idle) / 100 / 1024).toFixed(0)} KiB a document)`,
);
console.log(
  `verdict: per-keystroke re-check of a ${lines}-line schema p95 ${ms(p95)} (target < ${TARGET_MS} ms, issue #37): ${p95 < TARGET_MS ? 'met' : 'NOT met'}`,
);

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { toLspDiagnostics } from '../../src/lsp/diagnostics.js';
import { recognise } from '../../src/lsp/recognition.js';
import { Workspace } from '../../src/lsp/workspace.js';
import { loadTypes, type LoadResult } from '../../src/schema/index.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';

// In-process, with the modules the server runs, to keep the CPU low: the server's own stdio path is
// driven by the other tests of this folder.
const CORPUS = fileURLToPath(new URL('..', `file://${AWS_CORPUS}`));
const skip = corpusSkip();

let validate: LoadResult;
const texts = new Map<string, string>();

before(async () => {
  if (skip) return;
  // What `typeplane validate <corpus>` reports: its own call, with its own options.
  validate = await loadTypes([CORPUS], {
    cwd: CORPUS,
    bicepWarnings: true,
    checkHook: async (content, file) =>
      (await import('../../src/policy/hooks/index.js')).checkHookSchema(content, { file }),
  });
  for (const result of validate.results)
    texts.set(result.file!, readFileSync(join(CORPUS, result.file!), 'utf8'));
});

const line = (d: { rule: string; line?: number; column?: number; severity: string; message: string }) =>
  `${d.rule} ${d.line}:${d.column} ${d.severity} ${d.message}`;

test(
  'for every corpus file, the language server finds what typeplane validate finds (rule, place, severity, message)',
  { skip },
  async () => {
    // The server's workspace is the corpus folder; each file is checked as an opened document.
    const workspace = new Workspace(CORPUS);
    await workspace.load([CORPUS]);
    assert.ok(validate.results.length >= 1500, `${validate.results.length} corpus files`);
    let findings = 0;
    for (const expected of validate.results) {
      const file = expected.file!;
      const found = await recognise(texts.get(file)!, file, workspace);
      assert.deepEqual(found.diagnostics.map(line), expected.diagnostics.map(line), file);
      findings += found.diagnostics.length;
    }
    assert.ok(findings > 0, 'the corpus has findings to compare');
  },
);

test('each finding is placed at a range starting where validate places it', { skip }, () => {
  // Corpus files with findings, JSON and YAML: their ranges start at validate's line and column.
  const withFindings = validate.results.filter((r) => r.diagnostics.length > 0);
  const sample = [
    ...withFindings.filter((r) => r.file!.endsWith('.json')).slice(0, 40),
    ...withFindings.filter((r) => !r.file!.endsWith('.json')).slice(0, 40),
  ];
  assert.ok(sample.length > 0);
  for (const result of sample) {
    const text = texts.get(result.file!)!;
    const document = TextDocument.create('file:///x', 'json', 1, text);
    const format = result.file!.endsWith('.json') ? 'json' : 'yaml';
    const lsp = toLspDiagnostics(result.diagnostics, [], '', document, format);
    result.diagnostics.forEach((d, i) => {
      const range = lsp[i]!.range;
      assert.deepEqual(
        range.start,
        { line: d.line! - 1, character: d.column! - 1 },
        `${result.file} ${d.rule}`,
      );
      assert.ok(
        document.offsetAt(range.end) > document.offsetAt(range.start),
        `${result.file} ${d.rule} is a range`,
      );
    });
  }
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { toLspDiagnostics } from '../../src/lsp/diagnostics.js';
import { recognise } from '../../src/lsp/recognition.js';
import { Workspace } from '../../src/lsp/workspace.js';
import { loadTypes } from '../../src/schema/index.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';

const CORPUS = fileURLToPath(new URL('..', `file://${AWS_CORPUS}`));
const skip = corpusSkip();

test(
  'for every corpus file, the language server finds what typeplane validate finds (rule, place, severity, message)',
  { skip },
  async () => {
    // What `typeplane validate <corpus>` reports: its own call, its own options.
    const validate = await loadTypes([CORPUS], {
      cwd: CORPUS,
      bicepWarnings: true,
      checkHook: async (content, file) =>
        (await import('../../src/policy/hooks/index.js')).checkHookSchema(content, { file }),
    });
    const workspace = new Workspace(CORPUS);
    await workspace.load([CORPUS]);
    assert.ok(validate.results.length >= 1500, `${validate.results.length} corpus files`);
    let compared = 0;
    let findings = 0;
    for (const expected of validate.results) {
      const file = expected.file!;
      const text = readFileSync(join(CORPUS, file), 'utf8');
      const found = await recognise(text, file, workspace);
      const line = (d: { rule: string; line?: number; column?: number; severity: string; message: string }) =>
        `${d.rule} ${d.line}:${d.column} ${d.severity} ${d.message}`;
      assert.deepEqual(found.diagnostics.map(line), expected.diagnostics.map(line), file);
      compared++;
      findings += found.diagnostics.length;
    }
    assert.equal(compared, validate.results.length);
    assert.ok(findings > 0, 'the corpus has findings to compare');
  },
);

test('each finding is placed at a range starting where validate places it', { skip }, async () => {
  // A few corpus files with findings, JSON and YAML: their ranges start at validate's line and column.
  const validate = await loadTypes([CORPUS], { cwd: CORPUS, bicepWarnings: true });
  const withFindings = validate.results.filter((r) => r.diagnostics.length > 0);
  const sample = [
    ...withFindings.filter((r) => r.file!.endsWith('.json')).slice(0, 20),
    ...withFindings.filter((r) => !r.file!.endsWith('.json')).slice(0, 20),
  ];
  assert.ok(sample.length > 0);
  for (const result of sample) {
    const text = readFileSync(join(CORPUS, result.file!), 'utf8');
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

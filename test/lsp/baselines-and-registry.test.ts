import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CompletionItem, Diagnostic } from 'vscode-languageserver';
import { diffAgainst, diffDocuments } from '../../src/diff/index.js';
import { startTestService, WIDGET } from '../helpers/service.js';
import { startLsp } from './lsp-client.js';

/** WIDGET with Color removed (breaking) and a Size allowed (safe). */
const WIDGET_NEXT = WIDGET.replace('    "Color": {\n      "type": "string"\n    },\n', '').replace(
  '"L"',
  '"L", "XL"',
);

const shown = (d: Diagnostic) => `${d.code} ${d.range.start.line + 1}:${d.range.start.character + 1}`;

test("--baseline <rev> shows typeplane diff's changes since that git revision, at the changed places", async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'typeplane-lsp-git-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: folder });
  git('init', '-q');
  writeFileSync(join(folder, 'widget.json'), WIDGET);
  git('add', 'widget.json');
  git('commit', '-q', '-m', 'widget');
  const lsp = await startLsp(folder, { args: ['--baseline', 'HEAD'] });
  t.after(() => lsp.close());
  const uri = lsp.open(join(folder, 'widget.json'), WIDGET_NEXT);
  const lens = (await lsp.diagnostics(uri)).filter((d) => /^TP6/.test(String(d.code)));
  const diff = diffDocuments(
    { text: WIDGET, file: 'widget.json' },
    { text: WIDGET_NEXT, file: 'widget.json' },
  );
  assert.ok(diff.counts.breaking > 0 && diff.counts.safe > 0);
  assert.deepEqual(lens.map(shown).sort(), diff.changes.map((c) => `${c.rule} ${c.line}:${c.column}`).sort());
  const removed = lens.find((d) => d.code === 'TP6001')!;
  assert.match(removed.message, /^breaking change since HEAD: Test::Shop::Widget /);
  assert.equal(removed.severity, 2);
  // Unchanged, nothing is shown.
  const same = lsp.change(uri, [
    { range: { start: { line: 0, character: 0 }, end: { line: 999, character: 0 } }, text: WIDGET },
  ]);
  assert.deepEqual(
    (await lsp.diagnostics(uri, same)).filter((d) => /^TP6/.test(String(d.code))),
    [],
  );
});

test("with --endpoint: the server's types complete in templates, the template's findings are stack validate's, and --baseline-registered diffs against the registered version", async (t) => {
  const service = await startTestService();
  t.after(() => service.close());
  assert.equal((await service.call('POST', '/v1/types', WIDGET)).status, 201);
  const folder = mkdtempSync(join(tmpdir(), 'typeplane-lsp-registry-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const template = [
    'Resources:',
    '  W:',
    '    Type: Test::Shop::Widget',
    '    Properties:',
    '      Name: main',
    '      Size: XL',
    '      Colour: red',
    '  X:',
    '    Type: Test::Shop::Widgett',
    '    DependsOn: Y',
    '',
  ].join('\n');
  const lsp = await startLsp(folder, {
    args: ['--endpoint', service.url, '--baseline-registered'],
    env: { TYPEPLANE_TOKEN: service.token },
  });
  t.after(() => lsp.close());
  const uri = lsp.open(join(folder, 'app.yaml'), template);
  const found = await lsp.diagnostics(uri);
  const served = await service.call('POST', '/v1/stacks/validate', { template });
  assert.equal(served.status, 200, JSON.stringify(served.body));
  const expected = (
    served.body.diagnostics as { rule: string; line: number; column: number; message: string }[]
  ).map((d) => `${d.rule} ${d.line}:${d.column} ${d.message}`);
  assert.ok(expected.length >= 3, expected.join('\n'));
  assert.deepEqual(
    found.map((d) => `${d.code} ${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`),
    expected,
  );
  const types = await lsp.request<CompletionItem[]>('textDocument/completion', {
    textDocument: { uri },
    position: { line: 2, character: 10 },
  });
  assert.ok(types.some((i) => i.label === 'Test::Shop::Widget' && i.detail === 'registered'));
  const next = lsp.open(join(folder, 'widget.json'), WIDGET_NEXT);
  const lens = (await lsp.diagnostics(next)).filter((d) => /^TP6/.test(String(d.code)));
  const registered = (await service.call('GET', '/v1/types/Test::Shop::Widget')).body;
  const diff = diffAgainst(
    {
      ...registered,
      conditionalCreateOnlyProperties: registered.conditionalCreateOnlyProperties ?? [],
      deprecatedProperties: registered.deprecatedProperties ?? [],
    },
    { text: WIDGET_NEXT, file: 'widget.json' },
  );
  assert.ok(diff.counts.breaking > 0);
  assert.deepEqual(lens.map(shown).sort(), diff.changes.map((c) => `${c.rule} ${c.line}:${c.column}`).sort());
  // The token is sent to the server, never shown to the editor.
  assert.doesNotMatch(lsp.stderr(), new RegExp(service.token));
});

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkHookSchema } from '../../src/policy/hooks/index.js';
import { loadTypes } from '../../src/schema/index.js';
import { startLsp, uriOf, type LspClient } from './lsp-client.js';

const WIDGET = readFileSync(new URL('../../examples/shop/widget-v1.json', import.meta.url), 'utf8');

// A schema with mistakes validate finds: a misspelt keyword, a pointer to no property.
const BROKEN = WIDGET.replace('"createOnlyProperties"', '"createOnlyProperty"').replace(
  '"primaryIdentifier": ["/properties/Name"]',
  '"primaryIdentifier": ["/properties/Nam"]',
);

const TEMPLATE = [
  'Parameters:',
  '  Size:',
  '    Type: String',
  'Resources:',
  '  W:',
  '    Type: Test::Shop::Widgett',
  '  V:',
  '    Type: Test::Shop::Widget',
  '    Properties:',
  '      Name: main',
  '      Size: !Ref Sise',
  '',
].join('\n');

let folder: string;
let lsp: LspClient;

before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'typeplane-lsp-'));
  writeFileSync(join(folder, 'widget.json'), WIDGET);
  writeFileSync(join(folder, 'broken.json'), BROKEN.replace('Test::Shop::Widget', 'Test::Shop::Broken'));
  writeFileSync(join(folder, 'app.template'), TEMPLATE);
  lsp = await startLsp(folder);
});

after(async () => {
  await lsp?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** What `typeplane validate <folder>` says of one file: rule, line, column and message. */
async function validateSays(file: string) {
  const { results } = await loadTypes([folder], { cwd: folder, bicepWarnings: true });
  const result = results.find((r) => r.file === file)!;
  return result.diagnostics.map((d) => `${d.rule} ${d.line}:${d.column} ${d.severity} ${d.message}`);
}

const shown = (d: {
  code?: string | number;
  range: { start: { line: number; character: number } };
  severity?: number;
  message: string;
}) =>
  `${d.code} ${d.range.start.line + 1}:${d.range.start.character + 1} ${d.severity === 1 ? 'error' : 'warning'} ${d.message}`;

test('an opened schema gets the diagnostics typeplane validate reports, at their ranges', async () => {
  const text = BROKEN.replace('Test::Shop::Widget', 'Test::Shop::Broken');
  const uri = lsp.open(join(folder, 'broken.json'), text);
  const diagnostics = await lsp.diagnostics(uri);
  const expected = await validateSays('broken.json');
  assert.ok(expected.length >= 2, expected.join('\n'));
  assert.deepEqual(diagnostics.map(shown), expected);
  for (const d of diagnostics) assert.equal(d.source, 'typeplane');
  // The misspelt keyword is underlined whole: its name in quotes.
  const keyword = diagnostics.find((d) =>
    text.split('\n')[d.range.start.line]!.includes('createOnlyProperty"'),
  )!;
  const line = text.split('\n')[keyword.range.start.line]!;
  assert.equal(
    line.slice(keyword.range.start.character, keyword.range.end.character),
    '"createOnlyProperty"',
  );
});

test('an incremental change is checked again: the fixed mistake is gone, the other stays', async () => {
  const text = BROKEN.replace('Test::Shop::Widget', 'Test::Shop::Fixed');
  const path = join(folder, 'fixed.json');
  const uri = lsp.open(path, text);
  const first = await lsp.diagnostics(uri);
  assert.ok(first.some((d) => d.message.includes("'/properties/Nam'")));
  const line = text.split('\n').findIndex((l) => l.includes('/properties/Nam"'));
  const character = text.split('\n')[line]!.indexOf('/properties/Nam"') + '/properties/Nam'.length;
  const version = lsp.change(uri, [
    { range: { start: { line, character }, end: { line, character } }, text: 'e' },
  ]);
  const second = await lsp.diagnostics(uri, version);
  assert.ok(!second.some((d) => d.message.includes("'/properties/Nam'")), second.map(shown).join('\n'));
  assert.ok(
    second.some((d) => d.message.includes('createOnlyProperty')),
    second.map(shown).join('\n'),
  );
  // As validate would say of the file as it now is.
  writeFileSync(path, text.replace('/properties/Nam"', '/properties/Name"'));
  assert.deepEqual(second.map(shown), await validateSays('fixed.json'));
  rmSync(path);
});

test('a template is checked as stack validate checks it, against the workspace types', async () => {
  const uri = lsp.open(join(folder, 'app.template'), TEMPLATE, 'yaml');
  const diagnostics = await lsp.diagnostics(uri);
  const type = diagnostics.find((d) => d.message.includes('Widgett'));
  assert.ok(type, diagnostics.map(shown).join('\n'));
  assert.match(type.message, /did you mean Test::Shop::Widget\?/);
  assert.equal(type.range.start.line, 5);
  const ref = diagnostics.find((d) => d.message.includes("'Sise'"));
  assert.ok(ref, diagnostics.map(shown).join('\n'));
  assert.match(ref.message, /did you mean 'Size'/);
  assert.equal(ref.range.start.line, 10);
  assert.ok(
    diagnostics.every((d) => /^TP4\d{3}$/.test(String(d.code))),
    diagnostics.map(shown).join('\n'),
  );
});

test('a JSON file that is no type document (settings) has no diagnostics', async () => {
  const uri = lsp.open(join(folder, 'tsconfig.json'), '{"compilerOptions": {"strict": true}}');
  assert.deepEqual(await lsp.diagnostics(uri), []);
});

test('a hook schema gets what its registration reports', async () => {
  const hook = readFileSync(
    new URL('../../examples/hooks/python/require-tags.json', import.meta.url),
    'utf8',
  );
  const broken = hook.replace('"preCreate"', '"create"');
  const uri = lsp.open(join(folder, 'hook.json'), broken);
  const diagnostics = await lsp.diagnostics(uri);
  const expected = checkHookSchema(broken, { file: 'hook.json' }).diagnostics;
  assert.ok(expected.length > 0);
  assert.deepEqual(
    diagnostics.map((d) => `${d.code} ${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`),
    expected.map((d) => `${d.rule} ${d.line}:${d.column} ${d.message}`),
  );
});

test('a template over its size limit gets the limit finding, and nothing more is read from it', async () => {
  const padding = `# ${'x'.repeat(1000)}\n`.repeat(1100);
  const text = `${TEMPLATE}${padding}`;
  const uri = lsp.open(join(folder, 'large.template'), text, 'yaml');
  const diagnostics = await lsp.diagnostics(uri);
  assert.deepEqual(
    diagnostics.map((d) => d.code),
    ['TP4001'],
  );
  assert.match(diagnostics[0]!.message, /over the 1048576 limit/);
  const items = await lsp.request<unknown[]>('textDocument/completion', {
    textDocument: { uri },
    position: { line: 5, character: 10 },
  });
  assert.deepEqual(items, []);
  const symbols = await lsp.request<unknown[]>('textDocument/documentSymbol', { textDocument: { uri } });
  assert.deepEqual(symbols, []);
});

test('a document closed unsaved no longer counts: the file on disk does again', async () => {
  // An open, unsaved copy of widget.json renamed its type: another document defining the old name
  // is then the only one; closed, the file's definition is back and that one is defined twice.
  const other = WIDGET;
  const renamed = lsp.open(
    join(folder, 'widget.json'),
    WIDGET.replace('Test::Shop::Widget', 'Test::Shop::Renamed'),
  );
  await lsp.diagnostics(renamed);
  const second = lsp.open(join(folder, 'zz-widget-copy.json'), other);
  assert.ok(!(await lsp.diagnostics(second)).some((d) => d.code === 'TP1011'));
  await lsp.connection.sendNotification('textDocument/didClose', { textDocument: { uri: renamed } });
  // Checked again after a change: now widget.json (on disk) defines the type first.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const version = lsp.change(second, [
    { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: ' ' },
  ]);
  const again = await lsp.diagnostics(second, version);
  const twice = again.find((d) => d.code === 'TP1011');
  assert.ok(twice, JSON.stringify(again));
  assert.match(twice.message, /already defined in widget\.json/);
});

test('a type document written on disk outside the editor counts once the editor says it changed', async () => {
  const template = ['Resources:', '  L:', '    Type: Test::Shop::Later', ''].join('\n');
  const uri = lsp.open(join(folder, 'later.template'), template, 'yaml');
  assert.ok(
    (await lsp.diagnostics(uri)).some((d) => d.message.includes('Test::Shop::Later is not registered')),
  );
  const path = join(folder, 'later.json');
  writeFileSync(path, WIDGET.replace('Test::Shop::Widget', 'Test::Shop::Later'));
  const seen = lsp.publications(uri);
  await lsp.connection.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [{ uri: uriOf(path), type: 1 }],
  });
  const after = await lsp.publishedAfter(uri, seen);
  // The type is known now: what the template lacks of it is what is said.
  assert.deepEqual(
    after.map((d) => d.message),
    ["Test::Shop::Later.Name: required property 'Name' is missing"],
  );
  rmSync(path);
});

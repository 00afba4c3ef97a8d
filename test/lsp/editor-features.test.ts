import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type {
  CodeAction,
  CompletionItem,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
} from 'vscode-languageserver';
import { startLsp, uriOf, type LspClient } from './lsp-client.js';

const WIDGET = readFileSync(new URL('../../examples/shop/widget-v1.json', import.meta.url), 'utf8');

/** A schema using a definition, with a pointer list. */
const GADGET = JSON.stringify(
  {
    typeName: 'Test::Shop::Gadget',
    description: 'A gadget.',
    definitions: { Part: { type: 'object', properties: { Serial: { type: 'string' } } } },
    properties: {
      Id: { type: 'string', description: 'The gadget id.' },
      Part: { $ref: '#/definitions/Part', description: 'Its main part.' },
      Note: { type: 'string', maxLength: 40, description: 'A note.' },
    },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Id'],
    readOnlyProperties: ['/properties/Id'],
  },
  null,
  2,
);

const TEMPLATE = [
  'Parameters:', // 0
  '  Size:', // 1
  '    Type: String', // 2
  '    Description: How large.', // 3
  'Conditions:', // 4
  "  Large: !Equals [!Ref Size, 'L']", // 5
  'Mappings:', // 6
  '  Colors:', // 7
  '    S: {Name: red}', // 8
  'Resources:', // 9
  '  V:', // 10
  '    Type: Test::Shop::Widget', // 11
  '    Properties:', // 12
  '      Name: main', // 13
  '      Size: !Ref Sise', // 14
  '      Color: !FindInMap [Colors, S, Name]', // 15
  '  G:', // 16
  '    Type: Test::Shop::Gadget', // 17
  '    DependsOn: V', // 18
  '    Condition: Large', // 19
  '    Properties:', // 20
  '      Note: !GetAtt V.Name', // 21
  '', // 22
].join('\n');

let folder: string;
let lsp: LspClient;
let templateUri: string;
let templateDiagnostics: Diagnostic[];

before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'typeplane-lsp-features-'));
  writeFileSync(join(folder, 'widget.json'), WIDGET);
  writeFileSync(join(folder, 'gadget.json'), GADGET);
  writeFileSync(join(folder, 'app.yaml'), TEMPLATE);
  lsp = await startLsp(folder);
  templateUri = lsp.open(join(folder, 'app.yaml'), TEMPLATE);
  templateDiagnostics = await lsp.diagnostics(templateUri);
});

after(async () => {
  await lsp?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Where `needle` is in `text` (plus `within` characters into it), as an LSP position. */
function at(text: string, needle: string, within = 0) {
  const offset = text.indexOf(needle);
  assert.ok(offset >= 0, `'${needle}' is in the text`);
  const before = text.slice(0, offset + within);
  const line = before.split('\n').length - 1;
  return { line, character: before.length - before.lastIndexOf('\n') - 1 };
}

async function completion(uri: string, position: { line: number; character: number }) {
  const answer = await lsp.request<CompletionItem[] | { items: CompletionItem[] }>(
    'textDocument/completion',
    {
      textDocument: { uri },
      position,
    },
  );
  return Array.isArray(answer) ? answer : answer.items;
}

test("completion in a template: types, a type's properties with required marks, Ref, GetAtt, DependsOn, conditions, FindInMap", async () => {
  // A resource's Type: the workspace's types.
  const types = await completion(templateUri, at(TEMPLATE, 'Test::Shop::Widget'));
  assert.ok(
    types.some((i) => i.label === 'Test::Shop::Widget'),
    types.map((i) => i.label).join(),
  );
  assert.ok(types.some((i) => i.label === 'Test::Shop::Gadget'));
  // A new property's name under V's Properties: Widget's, Name marked required, with its description.
  const edited = TEMPLATE.replace('      Name: main\n', '      Name: main\n      C\n');
  const version = lsp.change(templateUri, [{ range: whole(TEMPLATE), text: edited }]);
  await lsp.diagnostics(templateUri, version);
  const properties = await completion(templateUri, at(edited, '      C\n', 7));
  const labels = properties.map((i) => i.label).sort();
  assert.deepEqual(labels, ['Color', 'Name', 'Size']);
  const name = properties.find((i) => i.label === 'Name')!;
  assert.match(name.detail!, /required/);
  assert.match(JSON.stringify(name.documentation), /identifier/);
  // Ref: parameters, resources and pseudo parameters.
  const refs = await completion(templateUri, at(edited, '!Ref Sise', 5));
  for (const label of ['Size', 'V', 'G', 'AWS::Region'])
    assert.ok(
      refs.some((i) => i.label === label),
      label,
    );
  // GetAtt: a resource's attributes after the dot.
  const atts = await completion(templateUri, at(edited, '!GetAtt V.Name', 'GetAtt V.'.length + 1));
  assert.ok(
    atts.some((i) => i.label === 'V.Name'),
    atts.map((i) => i.label).join(),
  );
  assert.ok(atts.some((i) => i.label === 'V.Size'));
  // In !Sub's string: names, then a resource's attributes.
  const subbed = edited.replace('      Name: main\n', "      Name: !Sub '${V.Na}-x'\n");
  const subVersion = lsp.change(templateUri, [{ range: whole(edited), text: subbed }]);
  await lsp.diagnostics(templateUri, subVersion);
  const subAtts = await completion(templateUri, at(subbed, '${V.Na}', '${V.Na'.length));
  assert.ok(
    subAtts.some(
      (i) =>
        i.label === 'V.Name' &&
        i.textEdit &&
        'range' in i.textEdit &&
        i.textEdit.range.start.character === at(subbed, 'V.Na}').character,
    ),
  );
  const subNames = await completion(templateUri, at(subbed, '${V.Na}', 3));
  assert.ok(subNames.some((i) => i.label === 'Size') && subNames.some((i) => i.label === 'V'));
  const restored = lsp.change(templateUri, [{ range: whole(subbed), text: edited }]);
  await lsp.diagnostics(templateUri, restored);
  // DependsOn: the other resources. A resource's Condition: the conditions.
  const depends = await completion(templateUri, at(edited, 'DependsOn: V', 'DependsOn: '.length));
  assert.deepEqual(
    depends.map((i) => i.label),
    ['V'],
  );
  const conditions = await completion(templateUri, at(edited, 'Condition: Large', 'Condition: '.length));
  assert.deepEqual(
    conditions.map((i) => i.label),
    ['Large'],
  );
  // FindInMap: map names, then a map's keys.
  const maps = await completion(templateUri, at(edited, '[Colors', 1));
  assert.deepEqual(
    maps.map((i) => i.label),
    ['Colors'],
  );
  const keys = await completion(templateUri, at(edited, 'Colors, S', 'Colors, '.length));
  assert.deepEqual(
    keys.map((i) => i.label),
    ['S'],
  );
  const back = lsp.change(templateUri, [{ range: whole(edited), text: TEMPLATE }]);
  templateDiagnostics = await lsp.diagnostics(templateUri, back);
});

function whole(text: string) {
  const lines = text.split('\n');
  return {
    start: { line: 0, character: 0 },
    end: { line: lines.length - 1, character: lines.at(-1)!.length },
  };
}

test('completion in a resource schema: top-level keywords, property pointers, $ref targets', async () => {
  const text = GADGET.replace(
    '"readOnlyProperties": [\n    "/properties/Id"\n  ]',
    '"readOnlyProperties": [\n    ""\n  ]',
  );
  const uri = lsp.open(join(folder, 'gadget-draft.json'), text);
  await lsp.diagnostics(uri);
  const pointers = await completion(uri, at(text, '""', 1));
  assert.deepEqual(pointers.map((i) => i.label).sort(), [
    '/properties/Id',
    '/properties/Note',
    '/properties/Part',
    '/properties/Part/Serial',
  ]);
  assert.equal(
    pointers[0]!.textEdit && 'range' in pointers[0]!.textEdit
      ? pointers[0]!.textEdit.newText.startsWith('"')
      : false,
    true,
  );
  const refs = await completion(uri, at(text, '"#/definitions/Part"', 2));
  assert.ok(
    refs.some((i) => i.label === '#/definitions/Part'),
    refs.map((i) => i.label).join(),
  );
  const keywords = await completion(uri, at(text, '"description"', 1));
  const writeOnly = keywords.find((i) => i.label === 'writeOnlyProperties');
  assert.ok(writeOnly, keywords.map((i) => i.label).join());
  assert.ok(writeOnly.documentation, 'keywords come with what they mean');
});

test('hover: a schema property, a template resource type and property, a Ref target', async () => {
  const gadget = lsp.open(join(folder, 'gadget.json'), GADGET);
  await lsp.diagnostics(gadget);
  const note = await lsp.request<Hover>('textDocument/hover', {
    textDocument: { uri: gadget },
    position: at(GADGET, '"Note"', 2),
  });
  const noteText = JSON.stringify(note.contents);
  assert.match(noteText, /A note\./);
  assert.match(noteText, /maxLength/);
  const type = await lsp.request<Hover>('textDocument/hover', {
    textDocument: { uri: templateUri },
    position: at(TEMPLATE, 'Test::Shop::Widget', 3),
  });
  assert.match(JSON.stringify(type.contents), /A widget of the example shop/);
  const property = await lsp.request<Hover>('textDocument/hover', {
    textDocument: { uri: templateUri },
    position: at(TEMPLATE, 'Name: main', 1),
  });
  assert.match(JSON.stringify(property.contents), /The widget's name, its identifier\./);
  assert.match(JSON.stringify(property.contents), /required, identifier/);
  const ref = await lsp.request<Hover>('textDocument/hover', {
    textDocument: { uri: templateUri },
    position: at(TEMPLATE, '!Ref Size', 6),
  });
  assert.match(JSON.stringify(ref.contents), /Size\*\* \(parameter, String\).*How large/);
});

test('definition and references: Ref, GetAtt, DependsOn, $ref and pointers', async () => {
  const def = (uri: string, position: { line: number; character: number }) =>
    lsp.request<Location[]>('textDocument/definition', { textDocument: { uri }, position });
  const [parameter] = await def(templateUri, at(TEMPLATE, '!Ref Size', 6));
  assert.deepEqual(parameter!.range.start, { line: 1, character: 2 });
  const [resource] = await def(templateUri, at(TEMPLATE, '!GetAtt V.Name', 8));
  assert.deepEqual(resource!.range.start, { line: 10, character: 2 });
  const [dependsOn] = await def(templateUri, at(TEMPLATE, 'DependsOn: V', 11));
  assert.deepEqual(dependsOn!.range.start, { line: 10, character: 2 });
  const [typeFile] = await def(templateUri, at(TEMPLATE, 'Test::Shop::Gadget', 2));
  assert.equal(typeFile!.uri, uriOf(join(folder, 'gadget.json')));
  const gadget = uriOf(join(folder, 'gadget.json'));
  const [definition] = await def(gadget, at(GADGET, '"#/definitions/Part"', 3));
  assert.deepEqual(definition!.range.start, at(GADGET, '"Part": {\n      "type"'));
  const [pointer] = await def(gadget, at(GADGET, '"/properties/Id"', 3));
  assert.deepEqual(pointer!.range.start, at(GADGET, '"Id": {'));
  const uses = await lsp.request<Location[]>('textDocument/references', {
    textDocument: { uri: templateUri },
    position: at(TEMPLATE, 'V:', 0),
    context: { includeDeclaration: false },
  });
  assert.deepEqual(
    uses.map((u) => u.range.start.line).sort((a, b) => a - b),
    [18, 21],
  );
  const pointers = await lsp.request<Location[]>('textDocument/references', {
    textDocument: { uri: gadget },
    position: at(GADGET, '"Id": {', 1),
    context: { includeDeclaration: false },
  });
  assert.equal(pointers.length, 2);
});

test('quick fixes replace a mistyped name with the one a finding suggests', async () => {
  const sise = templateDiagnostics.find((d) => d.message.includes("'Sise'"));
  assert.ok(sise, JSON.stringify(templateDiagnostics));
  const actions = await lsp.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri: templateUri },
    range: sise.range,
    context: { diagnostics: [sise] },
  });
  assert.equal(actions.length, 1);
  const [edit] = actions[0]!.edit!.changes![templateUri]!;
  assert.equal(edit!.newText, 'Size');
  assert.deepEqual(edit!.range, { start: at(TEMPLATE, 'Sise'), end: at(TEMPLATE, 'Sise', 4) });
  const broken = WIDGET.replace('"createOnlyProperties"', '"createOnlyProperty"').replace(
    'Test::Shop::Widget',
    'Test::Shop::Misspelt',
  );
  const uri = lsp.open(join(folder, 'misspelt.json'), broken);
  const diagnostics = await lsp.diagnostics(uri);
  const misspelt = diagnostics.find((d) => d.code === 'TP2003')!;
  const [fix] = await lsp.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: misspelt.range,
    context: { diagnostics: [misspelt] },
  });
  assert.equal(fix!.edit!.changes![uri]![0]!.newText, 'createOnlyProperties');
});

test("document symbols: a template's sections and declarations, a schema's properties and definitions", async () => {
  const symbols = await lsp.request<DocumentSymbol[]>('textDocument/documentSymbol', {
    textDocument: { uri: templateUri },
  });
  assert.deepEqual(
    symbols.map((s) => s.name),
    ['Parameters', 'Conditions', 'Mappings', 'Resources'],
  );
  const resources = symbols.find((s) => s.name === 'Resources')!;
  assert.deepEqual(
    resources.children!.map((c) => [c.name, c.detail]),
    [
      ['V', 'Test::Shop::Widget'],
      ['G', 'Test::Shop::Gadget'],
    ],
  );
  const gadget = uriOf(join(folder, 'gadget.json'));
  const schema = await lsp.request<DocumentSymbol[]>('textDocument/documentSymbol', {
    textDocument: { uri: gadget },
  });
  const properties = schema.find((s) => s.name === 'properties')!;
  assert.deepEqual(
    properties.children!.map((c) => c.name),
    ['Id', 'Part', 'Note'],
  );
  assert.deepEqual(
    schema.find((s) => s.name === 'definitions')!.children!.map((c) => c.name),
    ['Part'],
  );
});

test("completion in a JSON template: Ref, GetAtt attributes, DependsOn and a type's properties", async () => {
  const text = JSON.stringify(
    {
      Parameters: { Size: { Type: 'String' } },
      Resources: {
        V: {
          Type: 'Test::Shop::Widget',
          Properties: { Name: { Ref: '' }, Color: { 'Fn::GetAtt': ['G', ''] } },
        },
        G: { Type: 'Test::Shop::Gadget', DependsOn: [''] },
      },
    },
    null,
    2,
  );
  const uri = lsp.open(join(folder, 'app.json'), text);
  await lsp.diagnostics(uri);
  const refs = await completion(uri, at(text, '"Ref": ""', '"Ref": "'.length));
  assert.deepEqual(
    refs.filter((i) => !i.label.startsWith('AWS::')).map((i) => i.label),
    ['Size', 'V', 'G'],
  );
  const attributes = await completion(uri, at(text, '"G",\n            ""', '"G",\n            "'.length));
  assert.deepEqual(attributes.map((i) => i.label).sort(), ['Id', 'Note', 'Part', 'Part.Serial']);
  // Read-only attributes (what a resource gives back) come first.
  assert.equal([...attributes].sort((a, b) => a.sortText!.localeCompare(b.sortText!))[0]!.label, 'Id');
  const depends = await completion(
    uri,
    at(text, '"DependsOn": [\n        ""', '"DependsOn": [\n        "'.length),
  );
  assert.deepEqual(
    depends.map((i) => i.label),
    ['V'],
  );
  const properties = await completion(uri, at(text, '"Name": {', 1));
  assert.deepEqual(properties.map((i) => i.label).sort(), ['Color', 'Name', 'Size']);
  assert.equal(properties.find((i) => i.label === 'Name')!.textEdit!.newText, '"Name"');
});

test("completion in a manifest: its keywords, from the manifest dialect's tables", async () => {
  const text = readFileSync(new URL('../../examples/postgresDatabases.yaml', import.meta.url), 'utf8');
  const edited = text.replace('              default: S\n', '              default: S\n              max\n');
  const uri = lsp.open(join(folder, 'databases.yaml'), edited);
  await lsp.diagnostics(uri);
  const keywords = await completion(uri, at(edited, '              max\n', 17));
  const labels = keywords.map((i) => i.label);
  for (const keyword of ['maxLength', 'minLength', 'pattern', 'enum', 'x-radius-sensitive'])
    assert.ok(labels.includes(keyword), `${keyword} in ${labels.join()}`);
  const top = await completion(uri, at(edited, 'namespace', 2));
  assert.ok(top.some((i) => i.label === 'types') && top.some((i) => i.label === 'namespace'));
});

test('the outline of a half-written manifest lists a property that has no schema yet', async () => {
  const text = [
    'namespace: Acme.Things',
    'types:',
    '  widgets:',
    '    apiVersions:',
    "      '2025-01-01':",
    '        schema:',
    '          properties:',
    '            size:',
    '',
  ].join('\n');
  const uri = lsp.open(join(folder, 'half.yaml'), text);
  await lsp.diagnostics(uri);
  const symbols = await lsp.request<DocumentSymbol[]>('textDocument/documentSymbol', {
    textDocument: { uri },
  });
  const version = symbols.find((s) => s.name === 'types')!.children![0]!.children![0]!;
  assert.deepEqual(
    version.children!.map((c) => [c.name, c.detail]),
    [['size', undefined]],
  );
});

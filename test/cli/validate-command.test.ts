import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function typeplane(args: string[], cwd = root) {
  const run = spawnSync(process.execPath, [...CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const valid = JSON.stringify(
  {
    typeName: 'Acme::Test::Thing',
    description: 'A thing.',
    properties: { Name: { type: 'string' } },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
    required: ['Name'],
  },
  null,
  2,
);

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-cli-'));
  mkdirSync(join(dir, 'types', 'nested'), { recursive: true });
  writeFileSync(join(dir, 'types', 'ok.json'), valid);
  return dir;
}

test('a folder of valid types exits 0 and prints a summary', () => {
  const dir = workspace();
  const { code, stdout } = typeplane(['validate', 'types'], dir);
  assert.equal(code, 0);
  assert.match(stdout, /✔ 1 file checked: 1 valid file, 1 type, 0 errors, 0 warnings/);
});

test('errors print as path:line:col  severity  rule  message and exit 1', () => {
  const dir = workspace();
  writeFileSync(
    join(dir, 'types', 'nested', 'bad.json'),
    valid.replace(
      '"primaryIdentifier": [\n    "/properties/Name"',
      '"primaryIdentifier": [\n    "/properties/Nme"',
    ),
  );
  const { code, stdout } = typeplane(['validate', 'types'], dir);
  assert.equal(code, 1);
  const line = stdout.split('\n').find((l) => l.includes('TP2010'));
  assert.ok(line, stdout);
  assert.match(
    line,
    /^types\/nested\/bad\.json:11:5 {2}error {4}TP2010 {2}primaryIdentifier '\/properties\/Nme'/,
  );
  assert.match(stdout, /✖ 2 files checked: 1 valid file, 1 type, 1 error, 0 warnings/);
});

test('--strict turns warnings into errors', () => {
  const dir = workspace();
  writeFileSync(
    join(dir, 'types', 'ok.json'),
    valid.replace(',\n  "createOnlyProperties": [\n    "/properties/Name"\n  ]', ''),
  );
  assert.equal(typeplane(['validate', 'types'], dir).code, 0);
  const strict = typeplane(['validate', 'types', '--strict'], dir);
  assert.equal(strict.code, 1);
  assert.match(strict.stdout, /error {4}TP2042/);
});

test('--format json reports every file with its diagnostics', () => {
  const dir = workspace();
  writeFileSync(join(dir, 'types', 'broken.yaml'), 'types: [\n');
  const { code, stdout } = typeplane(['validate', 'types', '--format', 'json'], dir);
  assert.equal(code, 1);
  const report = JSON.parse(stdout) as {
    valid: boolean;
    summary: { files: number; errors: number };
    files: { file: string; valid: boolean; types: string[]; diagnostics: { rule: string; line: number }[] }[];
  };
  assert.equal(report.valid, false);
  assert.equal(report.summary.files, 2);
  const broken = report.files.find((f) => f.file.endsWith('broken.yaml'));
  assert.equal(broken?.valid, false);
  assert.equal(broken?.diagnostics[0]?.rule, 'TP1006');
  assert.deepEqual(report.files.find((f) => f.file.endsWith('ok.json'))?.types, ['Acme::Test::Thing']);
});

test('usage errors exit 2: no paths, unknown option, bad format', () => {
  assert.equal(typeplane(['validate']).code, 2);
  assert.equal(typeplane(['validate', 'x', '--nope']).code, 2);
  const bad = typeplane(['validate', 'examples', '--format', 'xml']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /-o\/--output must be one of text, json, yaml, not 'xml'/);
  const badOutput = typeplane(['validate', 'examples', '-o', 'xml']);
  assert.equal(badOutput.code, 2);
  assert.match(badOutput.stderr, /option '-o, --output <format>' argument 'xml' is invalid/);
});

test('a missing path is a usage error (exit 2), as for type register', () => {
  const { code, stdout, stderr } = typeplane(['validate', 'examples', 'no/such/dir']);
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.match(stderr, /^error: no such file or folder: no\/such\/dir\n/);
});

test('in a folder, what is no type document is skipped with a note; named alone it is an error saying what it is', () => {
  const dir = workspace();
  // What `generate` writes beside the types, and a stack template.
  for (const args of [
    ['generate', 'bicep', 'types/ok.json', '--out', 'types/bicep'],
    ['generate', 'json-schema', 'types/ok.json', '--out', 'types/schemas'],
  ])
    assert.equal(typeplane(args, dir).code, 0);
  writeFileSync(join(dir, 'types', 'app.yaml'), readFileSync(join(root, 'examples/stacks/app.template')));
  // A type's configuration, for `type configure --file`.
  writeFileSync(join(dir, 'types', 'config.json'), '{"Token": "tok-1"}');
  const folder = typeplane(['validate', 'types'], dir);
  assert.equal(folder.code, 0, folder.stdout + folder.stderr);
  assert.match(folder.stdout, /✔ 1 file checked: 1 valid file, 1 type, 0 errors, 0 warnings; 6 skipped/);
  assert.match(
    folder.stderr,
    /^note: skipped types\/app\.yaml: this is a stack template: use `typeplane stack validate`$/m,
  );
  assert.match(folder.stderr, /^note: skipped types\/bicep\/types\.json: Bicep types/m);
  assert.match(folder.stderr, /^note: skipped types\/schemas\/stack-template\.json: a JSON Schema/m);
  const json = JSON.parse(typeplane(['validate', 'types', '-o', 'json'], dir).stdout) as {
    summary: { files: number; skipped: number };
    skipped: { file: string; reason: string }[];
  };
  assert.deepEqual(json.summary.skipped, 6);
  assert.equal(json.skipped.length, 6);
  assert.match(
    folder.stderr,
    /^note: skipped types\/config\.json: no key of a resource schema or a manifest/m,
  );

  const named = typeplane(['validate', 'types/app.yaml'], dir);
  assert.equal(named.code, 1);
  assert.match(
    named.stdout,
    /^types\/app\.yaml:\d+:1 {2}error {4}TP1008 {2}this is a stack template: use `typeplane stack validate`$/m,
  );

  // A document that is nothing Typeplane knows stays an error, in a folder too.
  writeFileSync(join(dir, 'types', 'typo.json'), valid.replace('typeName', 'typename'));
  const typo = typeplane(['validate', 'types'], dir);
  assert.equal(typo.code, 1);
  assert.match(typo.stdout, /types\/typo\.json:1:1 {2}error {4}TP1008/);
});

test('--exclude skips the files and folders a glob matches', () => {
  const dir = workspace();
  mkdirSync(join(dir, 'types', 'drafts'));
  writeFileSync(join(dir, 'types', 'drafts', 'broken.json'), '{');
  writeFileSync(join(dir, 'types', 'nested', 'wip.draft.yaml'), 'types: [\n');
  assert.equal(typeplane(['validate', 'types'], dir).code, 1);
  const run = typeplane(['validate', 'types', '--exclude', 'drafts', '--exclude', '*.draft.yaml'], dir);
  assert.equal(run.code, 0, run.stdout);
  assert.match(run.stdout, /✔ 1 file checked: 1 valid file/);
  const onlyOne = typeplane(['validate', 'types', '--exclude', 'types/drafts/**'], dir);
  assert.match(onlyOne.stdout, /✖ 2 files checked/);
});

test('the same type defined in two files is an error in the second', () => {
  const dir = workspace();
  writeFileSync(join(dir, 'types', 'twin.json'), valid);
  const { code, stdout } = typeplane(['validate', 'types'], dir);
  assert.equal(code, 1);
  assert.match(
    stdout,
    /types\/twin\.json:1:1 {2}error {4}TP1011 {2}type Acme::Test::Thing is already defined in types\/ok\.json/,
  );
});

test('the bundled examples pass --strict, and so does the next version of the widget the README registers', () => {
  const all = typeplane(['validate', 'examples', '--strict']);
  assert.equal(all.code, 0, all.stdout);
  assert.match(all.stdout, /0 errors, 0 warnings/);
  const next = typeplane(['validate', 'docs/walkthrough/widget-v2.json', '--strict']);
  assert.equal(next.code, 0, next.stdout);
});

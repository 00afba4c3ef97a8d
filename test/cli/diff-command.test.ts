/**
 * `typeplane diff` as a user runs it: text lines `file:line:col  verdict  rule  message`, `-o json`,
 * exit 1 when a change is breaking (or a document is invalid), 0 otherwise.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI } from '../helpers/cli.js';

function typeplane(args: string[], cwd: string) {
  const run = spawnSync(process.execPath, [...CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const widget = (sizes: string[], extra: Record<string, unknown> = {}) =>
  JSON.stringify(
    {
      typeName: 'Acme::Test::Widget',
      description: 'A widget.',
      properties: { Name: { type: 'string' }, Size: { type: 'string', enum: sizes }, ...extra },
      additionalProperties: false,
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
    },
    null,
    2,
  );

function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-diff-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

test('a breaking change prints a located line with its rule and exits 1', () => {
  const dir = workspace({ 'v1.json': widget(['S', 'M', 'L']), 'v2.json': widget(['S', 'M']) });
  const { code, stdout } = typeplane(['diff', 'v1.json', 'v2.json'], dir);
  assert.equal(code, 1, stdout);
  assert.match(
    stdout,
    /^v2\.json:10:7 {2}breaking {3}TP6003 {2}Acme::Test::Widget \/properties\/Size: value "L" no longer allowed$/m,
  );
  assert.match(stdout, /✖ 1 breaking change, 0 dangerous changes, 0 safe changes/);
});

test('only safe changes exit 0; -o json is the whole report', () => {
  const dir = workspace({
    'v1.json': widget(['S']),
    'v2.json': widget(['S', 'M'], { Colour: { type: 'string' } }),
  });
  const { code, stdout } = typeplane(['diff', 'v1.json', 'v2.json', '-o', 'json'], dir);
  assert.equal(code, 0, stdout);
  const report = JSON.parse(stdout) as { breaking: boolean; counts: unknown; changes: { rule: string }[] };
  assert.equal(report.breaking, false);
  assert.deepEqual(report.counts, { breaking: 0, dangerous: 0, safe: 2 });
  assert.deepEqual(report.changes.map((c) => c.rule).sort(), ['TP6101', 'TP6102']);
});

test('an invalid document is reported with its position and exits 1; one file that is not a manifest is a usage mistake', () => {
  const dir = workspace({ 'v1.json': widget(['S']), 'bad.json': '{ "typeName": ' });
  const bad = typeplane(['diff', 'v1.json', 'bad.json'], dir);
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /^bad\.json:1:\d+ +error +TP1005 /m);
  const alone = typeplane(['diff', 'v1.json'], dir);
  assert.equal(alone.code, 1);
  assert.match(alone.stderr, /give two documents to compare/);
});

test('a flag misused is a usage error (exit 2) naming the flag', () => {
  const dir = workspace({ 'v1.json': widget(['S']), 'v2.json': widget(['S']) });
  const version = typeplane(['diff', 'v1.json', 'v2.json', '--version', '2'], dir);
  assert.equal(version.code, 2);
  assert.match(version.stderr, /--version goes with --registered <typeName>/);
  const two = typeplane(['diff', 'v1.json', 'v2.json', '--registered', 'Acme::Test::Widget'], dir);
  assert.equal(two.code, 2);
  assert.match(two.stderr, /with --registered, give one document/);
});

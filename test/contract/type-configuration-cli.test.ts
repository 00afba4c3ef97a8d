/**
 * `typeplane test --type-configuration <file>`: the configuration reaches every handler call; a type
 * that requires one is not tested without it, and one that does not match is refused before any call.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { root, widgetSchema } from './helpers.js';
import { CLI } from '../helpers/cli.js';

function typeplane(args: string[]) {
  const run = spawnSync(process.execPath, [...CLI, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'typeplane-type-configuration-'));
const schema = join(dir, 'widget.json');
const document = JSON.parse(readFileSync(widgetSchema, 'utf8')) as Record<string, unknown>;
document.typeConfiguration = {
  properties: { ApiKey: { type: 'string', minLength: 8 } },
  required: ['ApiKey'],
  additionalProperties: false,
};
writeFileSync(schema, JSON.stringify(document, null, 2));
const config = (value: unknown) => {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(value));
  return file;
};
const provider = join(root, 'test/contract/fixtures/configured-widgets.ts');
const common = ['test', '--schema', schema, '--provider', provider, '--runs', '1', '--seed', '7'];

test('with its configuration, a provider that needs it passes the suite', () => {
  const run = typeplane([...common, '--type-configuration', config({ ApiKey: 'contract-key-1' })]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.ok(!run.stdout.includes('contract-key-1'), 'the configuration is not shown in the report');
});

test('a type that requires a configuration is not tested without one; a wrong one is refused (exit 2)', () => {
  const missing = typeplane(common);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /requires a type configuration .* --type-configuration <file>/);
  const wrong = typeplane([...common, '--type-configuration', config({ ApiKey: 'short' })]);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /does not match the typeConfiguration of Test::Contract::Widget: \/ApiKey/);
});

test('the wrong key reaches the provider, which the suite then reports failing', () => {
  const run = typeplane([
    ...common,
    '--type-configuration',
    config({ ApiKey: 'another-key' }),
    '--only',
    'create→read',
  ]);
  assert.equal(run.code, 1, run.stdout + run.stderr);
});

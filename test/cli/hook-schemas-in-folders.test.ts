/**
 * A hook schema beside resource types is recognised by its shape, never read as a type:
 * `typeplane validate` checks it as its registration does (TP8001-TP8005 at line and column),
 * `typeplane generate` (TypeScript and Bicep) and `type register <folder>` skip it with a note, and
 * one named on its own to generate, or sent to POST /v1/types, is refused saying what it is. The
 * CLI runs as a child process; the server over real HTTP.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { exits, runCli } from '../helpers/cli.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const HOOK = join(root, 'examples/hooks/python/require-tags.json');
const env = { PATH: process.env.PATH, NO_COLOR: '1' };

/** A hook schema with two mistakes: a handler without permissions, a target name that is no glob. */
const BROKEN_HOOK = `typeName: Acme::Policy::Broken
description: refuses nothing yet
typeConfiguration:
  properties: {}
  additionalProperties: false
handlers:
  preCreate:
    targetNames: ["Acme::*"]
  preDelete:
    targetNames: ["not a glob!"]
    permissions: []
additionalProperties: false
`;

/** A folder of one type, the example hook and a broken hook. */
function folder(): string {
  const dir = tempDir('typeplane-hook-folder-');
  copyFileSync(join(root, 'examples/queues.yaml'), join(dir, 'queues.yaml'));
  copyFileSync(HOOK, join(dir, 'require-tags.json'));
  writeFileSync(join(dir, 'broken-hook.yaml'), BROKEN_HOOK);
  return dir;
}

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

test('validate checks hook schemas with the registration’s located diagnostics, and counts valid ones', async () => {
  const dir = folder();
  const run = await runCli(['validate', '.'], { env, cwd: dir });
  exits(run, 1);
  const lines = run.stdout.trim().split('\n');
  assert.deepEqual(lines.slice(0, -1), [
    "broken-hook.yaml:8:5  error    TP8003  preCreate must have 'permissions' (may be [])",
    "broken-hook.yaml:10:19  error    TP8004  'not a glob!' is not a type name or glob: use the characters of type names with '*' (any run) and '?' (one character), like 'Acme::Storage::*'",
  ]);
  assert.equal(lines.at(-1), '✖ 3 files checked: 2 valid files, 1 type, 1 hook, 2 errors, 0 warnings');
  assert.doesNotMatch(run.stderr, /skipped/);

  const json = await runCli(['validate', 'require-tags.json', 'queues.yaml', '-o', 'json'], {
    env,
    cwd: dir,
  });
  exits(json, 0);
  const report = JSON.parse(json.stdout) as {
    summary: { hooks: number; validFiles: number };
    files: { file: string; dialect: string; valid: boolean; types: string[] }[];
  };
  assert.deepEqual(report.summary.hooks, 1);
  assert.deepEqual(
    report.files.map((f) => [f.file, f.dialect, f.valid, f.types]),
    [
      ['queues.yaml', 'manifest', true, ['Typeplane.Messaging/queues@2025-01-01-preview']],
      ['require-tags.json', 'hook', true, []],
    ],
  );
});

test('generate and generate bicep skip a folder’s hook schemas with a note; named alone, one is refused', async () => {
  const dir = folder();
  const note =
    /^note: skipped require-tags\.json: a hook schema, not a type document: register it with `typeplane hook register`/m;
  const ts = await runCli(['generate', '.'], { env, cwd: dir });
  exits(ts, 0);
  assert.match(ts.stdout, /export interface TypeplaneMessagingQueues /);
  assert.match(ts.stderr, note);
  assert.match(ts.stderr, /^note: skipped broken-hook\.yaml: a hook schema/m);

  const bicep = await runCli(['generate', 'bicep', '.', '--out', 'bicep'], { env, cwd: dir });
  exits(bicep, 0);
  assert.match(bicep.stderr, note);
  assert.match(readFileSync(join(dir, 'bicep/index.json'), 'utf8'), /Typeplane\.Messaging\/queues/);

  const named = await runCli(['generate', 'bicep', 'require-tags.json', '--out', 'none'], { env, cwd: dir });
  exits(named, 1);
  assert.match(named.stderr, /require-tags\.json:1:1 +error +TP1008 +a hook schema, not a type document/);
  assert.equal(existsSync(join(dir, 'none')), false);
});

test('type register <folder> leaves hook schemas out with a note; POST /v1/types refuses one saying what it is', async () => {
  const dir = folder();
  const run = await runCli(['type', 'register', dir, '--endpoint', svc.url], {
    env: { ...env, TYPEPLANE_TOKEN: svc.token },
  });
  exits(run, 0);
  assert.match(run.stdout, /registered Typeplane\.Messaging\/queues/);
  const skipped = [...run.stderr.matchAll(/^note: skipped (.+?): a hook schema/gm)].map((m) =>
    m[1]!.replace(dir + '/', ''),
  );
  assert.deepEqual(skipped, ['broken-hook.yaml', 'require-tags.json']);

  const posted = await svc.call('POST', '/v1/types', readFileSync(HOOK, 'utf8'));
  assert.equal(posted.status, 400);
  assert.match(
    JSON.stringify(posted.body),
    /TP1008.*this is a hook schema .*register it with POST \/v1\/hooks \('typeplane hook register'\)/,
  );
});

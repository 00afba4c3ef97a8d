/**
 * `typeplane hook …` against a real server: a schema with mistakes is refused with each at its line
 * and column in the file; a good one registers, is configured from a YAML file, listed, shown and
 * deregistered.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { startTestService, tempDir } from '../helpers/service.js';

const SCHEMA = fileURLToPath(new URL('../../examples/hooks/python/require-tags.json', import.meta.url));
const HOOK = 'Example::Policy::RequireTags';

test('hook register shows a schema’s mistakes located in the file; register, configure, list, show, deregister', async (t) => {
  const svc = await startTestService();
  t.after(() => svc.close());
  const env = { PATH: process.env.PATH, TYPEPLANE_ENDPOINT: svc.url, TYPEPLANE_TOKEN: svc.token };
  const dir = tempDir();
  const bad = join(dir, 'bad.yaml');
  writeFileSync(
    bad,
    [
      'typeName: Acme::Policy::Bad',
      'description: a hook with mistakes',
      'typeConfiguration:',
      // A list is no settings' schema (a hook with none declares `{}`).
      '  properties: []',
      '  additionalProperties: false',
      'additionalProperties: false',
      'handlers:',
      '  preCreate:',
      '    targetNames: []',
      '    permissions: []',
      '',
    ].join('\n'),
  );
  const refused = await runCli(['hook', 'register', bad], { env });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, new RegExp(`${bad}:4:15 TP2035 `));
  assert.match(refused.stderr, new RegExp(`${bad}:9:18 TP8003 preCreate.targetNames must list at least one`));

  const registered = await runCli(['hook', 'register', SCHEMA], { env });
  assert.equal(registered.code, 0, registered.stderr);
  assert.equal(registered.stdout, `registered hook ${HOOK}\n`);
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    'CloudFormationConfiguration:\n  HookConfiguration:\n    HookInvocationStatus: ENABLED\n    FailureMode: WARN\n    Properties: { Tag: owner }\n    TargetOperations: [RESOURCE, CLOUD_CONTROL]\n',
  );
  const configured = await runCli(['hook', 'configure', HOOK, '--file', config], { env });
  assert.equal(configured.code, 0, configured.stderr);
  assert.equal(configured.stdout, `configured hook ${HOOK}: enabled, FailureMode WARN\n`);
  const listed = await runCli(['hook', 'list'], { env });
  assert.match(
    listed.stdout,
    /Example::Policy::RequireTags\s+true\s+WARN\s+RESOURCE,CLOUD_CONTROL\s+preCreate,preUpdate,preDelete\s+Example::\*/,
  );
  const shown = await runCli(['hook', 'configuration', HOOK, '-o', 'json'], { env });
  assert.equal(
    JSON.parse(shown.stdout).configuration.CloudFormationConfiguration.HookConfiguration.Properties.Tag,
    'owner',
  );
  const gone = await runCli(['hook', 'deregister', HOOK], { env });
  assert.equal(gone.stdout, `deregistered hook ${HOOK}\n`);
  const empty = await runCli(['hook', 'list'], { env });
  assert.match(empty.stdout + empty.stderr, /No hooks found/);
});

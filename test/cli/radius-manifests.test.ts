/**
 * The CLI on Radius manifests: `typeplane validate` passes the Radius schema design's sample with no
 * error, and a folder of built-in provider manifests with an icon beside them; `typeplane type
 * register` prints the warnings the server returns.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestService } from '../helpers/service.js';
import { CLI } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function typeplane(args: string[]) {
  const run = spawnSync(process.execPath, [...CLI, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

test("the design's sample passes typeplane validate with no error and one warning", () => {
  const { code, stdout, stderr } = typeplane([
    'validate',
    'test/fixtures/radius/radius-design-postgresDatabases.yaml',
    'test/fixtures/radius/built-in-providers',
  ]);
  assert.equal(code, 0, stdout + stderr);
  assert.match(stdout, /test\/fixtures\/radius\/radius-design-postgresDatabases\.yaml:10:5 +warning +TP3021/);
  assert.match(stdout, /7 files checked: 7 valid files, 24 types, 0 errors/);
});

test('type register prints the warnings of the registration, located in the file', async () => {
  const service = await startTestService();
  try {
    // Asynchronously: the server answers from this process.
    const child = spawn(
      process.execPath,
      [
        ...CLI,
        'type',
        'register',
        'test/fixtures/radius/radius-design-postgresDatabases.yaml',
        '--endpoint',
        service.url,
        '--token',
        service.token,
      ],
      { cwd: root, env: { ...process.env, NO_COLOR: '1' } },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stdout);
    assert.deepEqual(
      stdout
        .trim()
        .split('\n')
        .map((l) => l.replace(/ TP3021 .*/, ' TP3021')),
      [
        'registered MyCompany.Resources/postgresDatabases@2025-01-01-preview (version 1)',
        'test/fixtures/radius/radius-design-postgresDatabases.yaml:10:5 warning TP3021',
      ],
    );
  } finally {
    await service.close();
  }
});

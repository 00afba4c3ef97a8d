import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, settle, spawnServer, tempDir } from '../helpers/service.js';
import { defineProvider, progress } from '../../src/providers/sdk.js';
import { ConfigError, loadModule, readConfig } from '../../src/providers/load.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = join(root, 'examples/providers/typescript/greeting-provider.ts');
const T = encodeURIComponent('Example::Demo::Greeting');

test(
  'serve --provider loads an SDK module, registers its schema and routes its type to it',
  { timeout: 60_000 },
  async () => {
    const server = await spawnServer(tempDir(), ['--provider', example]);
    try {
      const a = api(server.url, server.token);
      const types = await a.call('GET', '/v1/types');
      assert.ok(types.body.types.some((t: { typeName: string }) => t.typeName === 'Example::Demo::Greeting'));
      const created = await a.call('POST', `/v1/resources/${T}?wait=10`, {
        desiredState: { Name: 'ada', Language: 'fr' },
      });
      assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
      assert.equal(
        created.body.progressEvent.resourceModel.Text,
        'Bonjour, ada!',
        'the provider (not the state provider) made it',
      );
      const again = await a.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'ada' } });
      assert.equal(again.body.progressEvent.errorCode, 'AlreadyExists');
      const del = await a.call('DELETE', `/v1/resources/${T}/ada?wait=10`);
      assert.equal(del.body.progressEvent.operationStatus, 'SUCCESS');
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((r) => server.child.once('exit', r));
    }
  },
);

test('a configuration file names providers with their settings, and types', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const config = join(dir, 'typeplane.config.yaml');
  writeFileSync(
    config,
    [
      'types:',
      `  - ${join(root, 'examples/queues.yaml')}`,
      'providers:',
      `  - module: ${example}`,
      '    config:',
      "      punctuation: '?'",
      '  - builtin: file',
      '    config: { root: ./files }',
      '',
    ].join('\n'),
  );
  const server = await spawnServer(tempDir(), ['--config', config]);
  try {
    const a = api(server.url, server.token);
    const created = await a.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'bob' } });
    const done = await settle(a, created.body.progressEvent.requestToken);
    assert.equal(done.resourceModel.Text, 'Hello, bob?');
    const file = await a.call(
      'POST',
      `/v1/resources/${encodeURIComponent('Typeplane::Local::File')}?wait=10`,
      {
        desiredState: { Path: 'hello.txt', Content: 'hi' },
      },
    );
    assert.equal(file.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(file.body));
    assert.equal(
      readFileSync(join(dir, 'files', 'hello.txt'), 'utf8'),
      'hi',
      'the root is relative to the configuration',
    );
    const types = (await a.call('GET', '/v1/types')).body.types.map((t: { typeName: string }) => t.typeName);
    assert.ok(
      types.some((t: string) => t.startsWith('Typeplane.Messaging/')),
      JSON.stringify(types),
    );
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
  }
});

test('bad configurations and modules are refused with a message saying what to fix', async () => {
  const dir = tempDir();
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  await assert.rejects(
    readConfig(write('a.yaml', 'providers: [{ builtin: mysql }]')),
    (e: Error) => e instanceof ConfigError && /unknown built-in provider 'mysql'/.test(e.message),
  );
  await assert.rejects(
    readConfig(write('b.yaml', 'providers: [{ url: "http://x" }]')),
    /must list the `types`/,
  );
  await assert.rejects(readConfig(write('c.yaml', 'provider: []')), /'provider' is not a configuration key/);
  await assert.rejects(readConfig(write('d.json', '{ nope')), /is not valid JSON/);
  await assert.rejects(readConfig(join(dir, 'missing.yaml')), /cannot read the configuration/);
  await assert.rejects(
    loadModule(write('e.mjs', 'export default { name: "x" };')),
    /does not export a provider/,
  );
  await assert.rejects(loadModule(join(dir, 'nothing.mjs')), /cannot load the provider module/);
  const ok = await readConfig(
    write('f.yaml', 'types: [./types]\nproviders:\n  - module: ./p.js\n    config: { root: ./files }\n'),
  );
  assert.deepEqual(ok.config.providers, [{ module: './p.js', config: { root: './files' } }]);
  assert.equal(ok.baseDir, dir);
});

test('defineProvider checks the definition at load and progress builds events', () => {
  assert.throws(() => defineProvider({ name: 'x', types: [] } as never), /'types' must list/);
  assert.throws(
    () => defineProvider({ name: 'x', types: ['A::B::C'] } as never),
    /create handler is missing/,
  );
  assert.deepEqual(progress.success({ A: 1 }), { status: 'SUCCESS', resourceModel: { A: 1 } });
  assert.deepEqual(progress.inProgress(undefined, { callbackContext: { n: 1 }, callbackDelaySeconds: 5 }), {
    status: 'IN_PROGRESS',
    callbackContext: { n: 1 },
    callbackDelaySeconds: 5,
  });
  assert.deepEqual(progress.failed('NotFound', 'gone'), {
    status: 'FAILED',
    errorCode: 'NotFound',
    message: 'gone',
  });
  assert.deepEqual(progress.list([], null), { status: 'SUCCESS', resourceModels: [], nextToken: null });
});

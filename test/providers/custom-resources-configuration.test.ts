/**
 * The configuration's `customResources`: the URL prefixes custom resource handlers may be under, and
 * the URL handlers reach the server at. Read as given; every wrong value refused at once, located;
 * and `typeplane serve --config` (a child process) serves what it allows.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, readConfig } from '../../src/providers/index.js';
import { api, spawnServer, tempDir } from '../helpers/service.js';

function configFile(text: string): string {
  const file = join(tempDir('typeplane-custom-config-'), 'typeplane.config.yaml');
  writeFileSync(file, text);
  return file;
}

test('customResources settings are read as given', async () => {
  const file = configFile(
    "customResources:\n  serviceTokens: ['https://handlers.example.com/cfn/', 'http://127.0.0.1:9000']\n  responseUrl: https://typeplane.example.com\n",
  );
  const { config } = await readConfig(file);
  assert.deepEqual(config.customResources, {
    serviceTokens: ['https://handlers.example.com/cfn/', 'http://127.0.0.1:9000'],
    responseUrl: 'https://typeplane.example.com',
  });
});

test('every wrong customResources value is refused at once, located, saying what is expected', async () => {
  const file = configFile(
    "customResources:\n  serviceTokens: ['ftp://files.example.com/', 'https://user:pw@handlers.example.com/', 7]\n  responseUrl: not a url\n  colour: blue\n",
  );
  const error = await readConfig(file).then(
    () => assert.fail('the configuration was accepted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ConfigError, String(error));
  const prefix =
    'must be an http(s) URL prefix without credentials, query or fragment (like https://handlers.example.com/)';
  assert.deepEqual(error.message.split('\n'), [
    `${file}: customResources.colour is not a setting (known: serviceTokens, responseUrl)`,
    `${file}: customResources.serviceTokens[0] ${prefix}`,
    `${file}: customResources.serviceTokens[1] ${prefix}`,
    `${file}: customResources.serviceTokens[2] ${prefix}`,
    `${file}: customResources.responseUrl must be the http(s) URL handlers reach this server at (like https://typeplane.example.com)`,
  ]);
});

test('typeplane serve --config allows the ServiceTokens under the prefixes it lists, and no other', async () => {
  const file = configFile("customResources:\n  serviceTokens: ['http://127.0.0.1:1/allowed']\n");
  const server = await spawnServer(tempDir(), ['--config', file]);
  try {
    const client = api(server.url, server.token);
    const template = (token: string) =>
      `Resources:\n  C:\n    Type: Custom::Thing\n    Properties: { ServiceToken: '${token}' }\n`;
    const allowed = await client.call('POST', '/v1/stacks/validate', {
      template: template('http://127.0.0.1:1/allowed/thing'),
    });
    assert.equal(allowed.body.valid, true, JSON.stringify(allowed.body));
    // A prefix is matched at a path segment's boundary, on the same scheme, host and port.
    for (const token of [
      'http://127.0.0.1:1/allowed-not/thing',
      'http://127.0.0.1:2/allowed/thing',
      'https://127.0.0.1:1/allowed/thing',
    ]) {
      const refused = await client.call('POST', '/v1/stacks/validate', { template: template(token) });
      assert.equal(refused.body.valid, false, token);
      assert.match(refused.body.diagnostics[0].message, /is not under a URL prefix this server allows/);
    }
  } finally {
    server.child.kill();
  }
});

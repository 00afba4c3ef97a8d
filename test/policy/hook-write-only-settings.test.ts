/**
 * A hook's own settings marked `"writeOnly": true` in its typeConfiguration (an API key for its
 * backend) never come back to whoever makes a change: a hook that echoes one — in a FAILED message,
 * a WARN warning or an error it throws — has it masked as `***`, at any depth and through a `$ref`,
 * while its other settings are told as given. The configuration itself is read back only by admins,
 * as a type's configuration is. Over real HTTP on both stores, the hook served with defineHook.
 */
import assert from 'node:assert/strict';
import { defineHook, hookProgress } from '../../src/providers/sdk.js';
import { eachStoreService } from '../helpers/each-store.js';
import { api, WIDGET, WIDGET_TYPE } from '../helpers/service.js';

const HOOK = 'Test::Hooks::Backend';
const API_KEY = 'sk-live-4f9a1c2e77';
const TOKEN = 'tenant-token-93b1';
const PASSPHRASE = 'passphrase-x7q2';
const SIGNING = 'signing-key-8d3e';
const REGION_KEY = 'region-key-51fa';

const schema = JSON.stringify({
  typeName: HOOK,
  description: 'asks a backend whether a colour may be used',
  definitions: { Secret: { type: 'string', writeOnly: true } },
  typeConfiguration: {
    properties: {
      ApiKey: { type: 'string', writeOnly: true },
      Backend: {
        type: 'object',
        properties: { Url: { type: 'string' }, Token: { $ref: '#/definitions/Secret' } },
        additionalProperties: false,
      },
      Banned: { type: 'string' },
      // Write-only in a branch of allOf, of oneOf, and as a map's patternProperties.
      Vault: {
        allOf: [
          { type: 'object' },
          { properties: { Passphrase: { $ref: '#/definitions/Secret' } }, additionalProperties: false },
        ],
      },
      Signing: { oneOf: [{ type: 'string', writeOnly: true }, { type: 'integer' }] },
      RegionKeys: {
        type: 'object',
        patternProperties: { '^[a-z0-9-]+$': { type: 'string', writeOnly: true } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
  handlers: {
    preCreate: { targetNames: [WIDGET_TYPE], permissions: [] },
    preUpdate: { targetNames: [WIDGET_TYPE], permissions: [] },
  },
  additionalProperties: false,
});

/** A careless hook: its messages carry everything it was configured with. */
const backend = defineHook({
  typeName: HOOK,
  async preCreate({ hookConfiguration: c, target }) {
    const backend = c?.Backend as { Url: string; Token: string };
    return target.properties.Color === c?.Banned
      ? hookProgress.failed(
          `${String(c?.Banned)} is banned by ${backend.Url} (key ${String(c?.ApiKey)}, token ${backend.Token}, ${JSON.stringify([c?.Vault, c?.Signing, c?.RegionKeys])})`,
        )
      : hookProgress.success();
  },
  async preUpdate({ hookConfiguration: c }) {
    throw new Error(`backend refused key ${String(c?.ApiKey)}`);
  },
});

eachStoreService(
  'a hook’s write-only settings are masked in every message it gives; its other settings are not',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const registered = await svc.call('POST', '/v1/hooks', schema);
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const configuration = (failureMode: string) => ({
      CloudFormationConfiguration: {
        HookConfiguration: {
          HookInvocationStatus: 'ENABLED',
          FailureMode: failureMode,
          Properties: {
            ApiKey: API_KEY,
            Backend: { Url: 'https://colours.example', Token: TOKEN },
            Banned: 'red',
            Vault: { Passphrase: PASSPHRASE },
            Signing: SIGNING,
            RegionKeys: { 'eu-west-1': REGION_KEY },
          },
        },
      },
    });
    const configure = async (failureMode: string) => {
      const put = await svc.call('PUT', `/v1/hooks/${HOOK}/configuration`, configuration(failureMode));
      assert.equal(put.status, 200, JSON.stringify(put.body));
    };
    await configure('FAIL');
    const made = await svc.call('POST', '/v1/tokens', { role: 'writer' });
    const writer = api(svc.url, made.body.token);

    const refused = await writer.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
      desiredState: { Name: 'w1', Color: 'red' },
    });
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.details[0].message,
      'red is banned by https://colours.example (key ***, token ***, [{"Passphrase":"***"},"***",{"eu-west-1":"***"}])',
    );
    for (const secret of [API_KEY, PASSPHRASE, SIGNING, REGION_KEY])
      assert.ok(!JSON.stringify(refused.body).includes(secret), secret);

    // WARN: the change proceeds, its warning masked the same way.
    await configure('WARN');
    const warned = await writer.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=5`, {
      desiredState: { Name: 'w1', Color: 'red' },
    });
    assert.equal(warned.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(warned.body));
    const text = JSON.stringify(warned.body) + String(warned.headers.get('warning'));
    assert.match(text, /red is banned by https:\/\/colours\.example \(key \*\*\*, token \*\*\*, /);
    assert.ok(!text.includes(API_KEY) && !text.includes(TOKEN));

    // An error the hook throws (HookFailed) is masked too.
    await configure('FAIL');
    const failed = await writer.call('PATCH', `/v1/resources/${WIDGET_TYPE}/w1`, {
      patchDocument: [{ op: 'replace', path: '/Color', value: 'blue' }],
    });
    assert.equal(failed.status, 403);
    assert.equal(failed.body.details[0].reason, 'HookFailed');
    assert.match(failed.body.details[0].message, /backend refused key \*\*\*$/);

    // The configuration is an admin's to read back, as a type's configuration is; listing and
    // showing the hook never carry its settings.
    assert.equal((await writer.call('GET', `/v1/hooks/${HOOK}/configuration`)).status, 403);
    const read = await svc.call('GET', `/v1/hooks/${HOOK}/configuration`);
    assert.deepEqual(read.body.configuration, configuration('FAIL'));
    for (const path of ['/v1/hooks', `/v1/hooks/${HOOK}`]) {
      const shown = await svc.call('GET', path);
      assert.equal(shown.status, 200);
      assert.ok(!JSON.stringify(shown.body).includes(API_KEY), path);
    }
  },
  () => ({ hookServers: [backend] }),
);

/**
 * Hooks over real HTTP on each store: an admin registers a hook's schema (refused, located, when it
 * is wrong) and configures it; the example Python hook (examples/hooks/python), a real child process
 * on the provider protocol's hook actions, then judges every create, update and delete its handlers'
 * targetNames reach — FAIL mode refuses with 403 and the hook's verdict, writing nothing; WARN mode
 * lets the change through with the verdict as a warning — and its configuration's Properties and
 * target filters are what it goes by.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { createRemoteHook } from '../../src/providers/sdk.js';
import { eachStoreService } from '../helpers/each-store.js';
import { api, type Api } from '../helpers/service.js';
import { PYTHON_HOOK, startPythonHook } from '../helpers/python-hook.js';

const HOOK = 'Example::Policy::RequireTags';
const SCHEMA = readFileSync(`${PYTHON_HOOK}require-tags.json`, 'utf8');
const BUCKET = 'Example::Shop::Bucket';
const BUCKET_SCHEMA = JSON.stringify({
  typeName: BUCKET,
  description: 'A bucket for hook tests.',
  properties: {
    Name: { type: 'string' },
    Secret: { type: 'string' },
    Tags: {
      type: 'array',
      items: {
        type: 'object',
        properties: { Key: { type: 'string' }, Value: { type: 'string' } },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  writeOnlyProperties: ['/properties/Secret'],
});
const OTHER = 'Other::Shop::Crate';
const OTHER_SCHEMA = BUCKET_SCHEMA.replace(BUCKET, OTHER);

let hookUrl = '';
let stopHook: (() => void) | undefined;
after(() => stopHook?.());
before(async () => {
  const hook = await startPythonHook();
  stopHook = hook.stop;
  hookUrl = hook.url;
});

const servers = () => ({
  hookServers: [createRemoteHook({ name: 'python-hooks', url: hookUrl, hooks: [HOOK] })],
});

const configuration = (settings: Record<string, unknown>) => ({
  CloudFormationConfiguration: { HookConfiguration: { HookInvocationStatus: 'ENABLED', ...settings } },
});

async function setUp(svc: Api, settings: Record<string, unknown>): Promise<void> {
  assert.equal((await svc.call('POST', '/v1/types', BUCKET_SCHEMA)).status, 201);
  assert.equal((await svc.call('POST', '/v1/types', OTHER_SCHEMA)).status, 201);
  const registered = await svc.call('POST', '/v1/hooks', SCHEMA);
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  const configured = await svc.call('PUT', `/v1/hooks/${HOOK}/configuration`, configuration(settings));
  assert.equal(configured.status, 200, JSON.stringify(configured.body));
}

const tagged = (name: string, tags: Record<string, string>, more: Record<string, unknown> = {}) => ({
  desiredState: { Name: name, Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })), ...more },
});

eachStoreService(
  'hooks are an admin’s to register and configure; a wrong schema or configuration is refused, located',
  async (svc) => {
    const made = await svc.call('POST', '/v1/tokens', { role: 'writer' });
    const writer = api(svc.url, made.body.token);
    assert.equal((await writer.call('POST', '/v1/hooks', SCHEMA)).status, 403);
    assert.equal((await writer.call('GET', '/v1/hooks')).status, 403);

    const bad = await svc.call(
      'POST',
      '/v1/hooks',
      SCHEMA.replace('"preDelete"', '"delete"').replace('"Example::*"', '"Example::* bad"'),
    );
    assert.equal(bad.status, 400);
    const located = bad.body.details.map((d: any) => `${d.rule} ${d.pointer} ${d.line}:${d.column}`);
    assert.deepEqual(located, [
      'TP8004 /handlers/preCreate/targetNames/0 17:36',
      'TP8003 /handlers/delete 19:5',
    ]);
    assert.equal((await svc.call('GET', `/v1/hooks/${HOOK}`)).status, 404, 'nothing registered');

    const yaml = await svc.call('POST', '/v1/hooks', SCHEMA, { 'content-type': 'application/yaml' });
    assert.equal(yaml.status, 201, 'JSON is YAML too');
    assert.equal(yaml.body.outcome, 'registered');
    assert.equal(yaml.body.configured, false);
    assert.equal((await svc.call('POST', '/v1/hooks', SCHEMA)).body.outcome, 'unchanged');

    const wrong = await svc.call(
      'PUT',
      `/v1/hooks/${HOOK}/configuration`,
      configuration({ FailureMode: 'STOP', Properties: { Tag: 'has space', Other: 1 } }),
    );
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.body.details.map((d: any) => d.pointer).sort(), [
      '/CloudFormationConfiguration/HookConfiguration/FailureMode',
      '/CloudFormationConfiguration/HookConfiguration/Properties/Other',
      '/CloudFormationConfiguration/HookConfiguration/Properties/Tag',
    ]);
    assert.equal((await svc.call('GET', `/v1/hooks/${HOOK}/configuration`)).status, 404);
    const set = await svc.call(
      'PUT',
      `/v1/hooks/${HOOK}/configuration`,
      configuration({ FailureMode: 'WARN' }),
    );
    assert.equal(set.status, 200);
    const shown = await svc.call('GET', `/v1/hooks/${HOOK}/configuration`);
    assert.equal(shown.body.configuration.CloudFormationConfiguration.HookConfiguration.FailureMode, 'WARN');
    const listed = await svc.call('GET', '/v1/hooks');
    assert.deepEqual(
      listed.body.hooks.map((h: any) => [h.typeName, h.enabled, h.failureMode]),
      [[HOOK, true, 'WARN']],
    );
    assert.equal((await svc.call('DELETE', `/v1/hooks/${HOOK}`)).status, 204);
    assert.equal((await svc.call('DELETE', `/v1/hooks/${HOOK}`)).status, 404);
    assert.equal((await svc.call('GET', `/v1/hooks/${HOOK}/configuration`)).status, 404);
  },
  servers,
);

eachStoreService(
  'in FAIL mode an HTTP hook refuses a create, an update and a delete it finds non-compliant, writing nothing',
  async (svc) => {
    await setUp(svc, { FailureMode: 'FAIL' });
    const refused = await svc.call('POST', `/v1/resources/${BUCKET}`, tagged('b1', { team: 'x' }));
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.errorCode, 'AccessDenied');
    assert.deepEqual(refused.body.details, [
      {
        source: 'hook',
        name: HOOK,
        action: 'Deny',
        message: `${BUCKET} b1 lacks the tag costCenter: add it to Tags`,
        reason: 'NonCompliant',
      },
    ]);
    assert.equal((await svc.call('GET', `/v1/resources/${BUCKET}/b1`)).status, 404);

    const created = await svc.call(
      'POST',
      `/v1/resources/${BUCKET}?wait=5`,
      tagged('b1', { costCenter: 'c1', protected: 'true' }),
    );
    assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));

    const untag = await svc.call('PATCH', `/v1/resources/${BUCKET}/b1?wait=5`, {
      patchDocument: [{ op: 'replace', path: '/Tags', value: [{ Key: 'protected', Value: 'true' }] }],
    });
    assert.equal(untag.status, 403);
    assert.match(untag.body.details[0].message, /b1 lacks the tag costCenter/);

    const remove = await svc.call('DELETE', `/v1/resources/${BUCKET}/b1?wait=5`);
    assert.equal(remove.status, 403);
    assert.match(remove.body.details[0].message, /b1 is protected/);
    assert.equal((await svc.call('GET', `/v1/resources/${BUCKET}/b1`)).status, 200, 'still there');

    // A type no handler's targetNames reach is not judged.
    const other = await svc.call('POST', `/v1/resources/${OTHER}?wait=5`, tagged('c1', {}));
    assert.equal(other.body.progressEvent.operationStatus, 'SUCCESS');
  },
  servers,
);

eachStoreService(
  'in WARN mode the change proceeds with the hook’s verdict as a warning; Properties and target filters steer the hook',
  async (svc) => {
    await setUp(svc, { FailureMode: 'WARN', Properties: { Tag: 'owner' } });
    const warned = await svc.call(
      'POST',
      `/v1/resources/${BUCKET}?wait=5`,
      tagged('b2', { costCenter: 'c' }),
    );
    assert.equal(warned.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(warned.body));
    assert.deepEqual(warned.body.progressEvent.warnings, [
      {
        source: 'hook',
        name: HOOK,
        action: 'Warn',
        message: `${BUCKET} b2 lacks the tag owner: add it to Tags`,
        reason: 'NonCompliant',
      },
    ]);
    const owned = await svc.call('POST', `/v1/resources/${BUCKET}?wait=5`, tagged('b3', { owner: 'me' }));
    assert.equal(owned.body.progressEvent.warnings, undefined);

    // Only deletes, and only of buckets: a create without the tag passes unjudged.
    await svc.call(
      'PUT',
      `/v1/hooks/${HOOK}/configuration`,
      configuration({
        FailureMode: 'FAIL',
        TargetFilters: { Actions: ['DELETE'], TargetNames: [BUCKET] },
      }),
    );
    const unjudged = await svc.call('POST', `/v1/resources/${BUCKET}?wait=5`, tagged('b4', {}));
    assert.equal(unjudged.body.progressEvent.operationStatus, 'SUCCESS');
    assert.equal(unjudged.body.progressEvent.warnings, undefined);
    await svc.call('PATCH', `/v1/resources/${BUCKET}/b4?wait=5`, {
      patchDocument: [{ op: 'add', path: '/Tags/-', value: { Key: 'protected', Value: 'true' } }],
    });
    assert.equal((await svc.call('DELETE', `/v1/resources/${BUCKET}/b4`)).status, 403);

    // Disabled: not invoked at all.
    await svc.call(
      'PUT',
      `/v1/hooks/${HOOK}/configuration`,
      configuration({ HookInvocationStatus: 'DISABLED', FailureMode: 'FAIL' }),
    );
    const deleted = await svc.call('DELETE', `/v1/resources/${BUCKET}/b4?wait=5`);
    assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(deleted.body));
  },
  servers,
);

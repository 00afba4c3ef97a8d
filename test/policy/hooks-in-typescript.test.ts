/**
 * Hooks served in TypeScript with `defineHook`, over a real server: a hook is handed the target, the
 * caller's identity and its configuration's Properties, and write-only values only when its
 * configuration grants them (and never echoes one back in a verdict); a hook that times out, throws
 * or answers nonsense follows its failure mode (FAIL refuses, WARN warns); IN_PROGRESS is called back
 * within the timeout; hooks run concurrently; and a hook's denial reaches a Cloud Control client (the
 * AWS SDK) with the hook's message, nothing created.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateResourceCommand, GetResourceRequestStatusCommand } from '@aws-sdk/client-cloudcontrol';
import { defineHook, hookProgress, type HookRequest } from '../../src/providers/sdk.js';
import { cloudControl, issueKeys } from '../helpers/cloudcontrol.js';
import { eachStoreService } from '../helpers/each-store.js';
import { api, startTestService, WIDGET, WIDGET_TYPE, type TestService } from '../helpers/service.js';

const schema = (typeName: string, targetNames = ['Test::Shop::*']) =>
  JSON.stringify({
    typeName,
    description: `${typeName} for tests`,
    typeConfiguration: {
      properties: { Banned: { type: 'string' } },
      additionalProperties: false,
    },
    handlers: {
      preCreate: { targetNames, permissions: [] },
      preUpdate: { targetNames, permissions: [] },
      preDelete: { targetNames, permissions: [] },
    },
    additionalProperties: false,
  });

async function enable(svc: TestService, typeName: string, settings: Record<string, unknown> = {}) {
  const registered = await svc.call('POST', '/v1/hooks', schema(typeName));
  assert.ok([200, 201].includes(registered.status), JSON.stringify(registered.body));
  const configured = await svc.call('PUT', `/v1/hooks/${typeName}/configuration`, {
    CloudFormationConfiguration: {
      HookConfiguration: { HookInvocationStatus: 'ENABLED', FailureMode: 'FAIL', ...settings },
    },
  });
  assert.equal(configured.status, 200, JSON.stringify(configured.body));
}

const seen: HookRequest[] = [];
const colour = defineHook({
  typeName: 'Test::Hooks::Colour',
  async preCreate(request) {
    seen.push(request);
    const banned = request.hookConfiguration?.Banned;
    const secret = request.target.properties.Secret;
    // A careless hook that echoes what it was handed: the verdict must not carry it.
    if (request.target.properties.Color === banned)
      return hookProgress.failed(`colour ${String(banned)} is banned (secret was ${String(secret)})`);
    return hookProgress.success();
  },
  async preUpdate(request) {
    seen.push(request);
    return request.target.properties.Color === request.target.previousProperties?.Color
      ? hookProgress.success()
      : hookProgress.failed('the colour may not change');
  },
  async preDelete(request) {
    seen.push(request);
    return hookProgress.unsupportedTarget();
  },
});

eachStoreService(
  'a defineHook hook is handed the target, the caller and its Properties; write-only values only when granted, never echoed',
  async (svc) => {
    seen.length = 0;
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    await enable(svc, 'Test::Hooks::Colour', { Properties: { Banned: 'red' } });
    const made = await svc.call('POST', '/v1/tokens', { role: 'writer', description: 'ci pipeline' });
    const writer = api(svc.url, made.body.token);

    const refused = await writer.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
      desiredState: { Name: 'w1', Color: 'red', Secret: 'hunter2-very-secret' },
    });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body.details, [
      {
        source: 'hook',
        name: 'Test::Hooks::Colour',
        action: 'Deny',
        message: 'colour red is banned (secret was undefined)',
        reason: 'NonCompliant',
      },
    ]);
    const first = seen[0]!;
    assert.equal(first.action, 'preCreate');
    assert.equal(first.hookTypeName, 'Test::Hooks::Colour');
    assert.deepEqual(first.target, {
      typeName: WIDGET_TYPE,
      logicalId: 'w1',
      properties: { Name: 'w1', Color: 'red', Size: 'S' },
    });
    assert.deepEqual(first.hookConfiguration, { Banned: 'red' });
    assert.deepEqual(first.caller, { tokenId: made.body.id, role: 'writer', description: 'ci pipeline' });

    // Granted: the hook sees the secret, and its message still does not carry it.
    await enable(svc, 'Test::Hooks::Colour', { Properties: { Banned: 'red' }, IncludeWriteOnlyValues: true });
    const granted = await writer.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
      desiredState: { Name: 'w1', Color: 'red', Secret: 'hunter2-very-secret' },
    });
    assert.equal(granted.status, 403);
    assert.equal(seen.at(-1)!.target.properties.Secret, 'hunter2-very-secret');
    assert.equal(granted.body.details[0].message, 'colour red is banned (secret was ***)');
    assert.ok(!JSON.stringify(granted.body).includes('hunter2'));

    const blue = await writer.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=5`, {
      desiredState: { Name: 'w1', Color: 'blue' },
    });
    assert.equal(blue.body.progressEvent.operationStatus, 'SUCCESS');
    const repaint = await writer.call('PATCH', `/v1/resources/${WIDGET_TYPE}/w1`, {
      patchDocument: [{ op: 'replace', path: '/Color', value: 'green' }],
    });
    assert.equal(repaint.status, 403);
    assert.equal(seen.at(-1)!.target.previousProperties?.Color, 'blue');
    assert.equal(seen.at(-1)!.target.properties.Color, 'green');
    // UnsupportedTarget: the hook has nothing to say, the delete proceeds.
    const deleted = await writer.call('DELETE', `/v1/resources/${WIDGET_TYPE}/w1?wait=5`);
    assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS');
    assert.equal(deleted.body.progressEvent.warnings, undefined);
  },
  () => ({ hookServers: [colour] }),
);

const slow = defineHook({
  typeName: 'Test::Hooks::Slow',
  async preCreate() {
    await sleep(5_000);
    return hookProgress.success();
  },
});
const broken = defineHook({
  typeName: 'Test::Hooks::Broken',
  async preCreate() {
    throw new Error('the rules database is down');
  },
});
const nonsense = defineHook({
  typeName: 'Test::Hooks::Nonsense',
  preCreate: async () => ({ status: 'MAYBE' }) as never,
});
let polls = 0;
const patient = defineHook({
  typeName: 'Test::Hooks::Patient',
  async preCreate(request) {
    polls++;
    const step = Number(request.callbackContext?.step ?? 0);
    return step < 2
      ? hookProgress.inProgress({ step: step + 1 }, 0.05)
      : hookProgress.failed(`decided after ${step + 1} calls`);
  },
});

test('a hook that times out, throws or answers nonsense follows its failure mode; IN_PROGRESS is called back; hooks run concurrently', async (t) => {
  const svc = await startTestService({ hookServers: [slow, broken, nonsense, patient] });
  t.after(() => svc.close());
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  await enable(svc, 'Test::Hooks::Slow', { TimeoutInSeconds: 1 });
  await enable(svc, 'Test::Hooks::Broken', { TimeoutInSeconds: 1 });
  await enable(svc, 'Test::Hooks::Nonsense', { FailureMode: 'WARN', TimeoutInSeconds: 1 });
  await enable(svc, 'Test::Hooks::Patient', { FailureMode: 'WARN', TimeoutInSeconds: 1 });

  const started = Date.now();
  const refused = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}`, { desiredState: { Name: 'w1' } });
  const took = Date.now() - started;
  assert.equal(refused.status, 403);
  const byName = Object.fromEntries(refused.body.details.map((d: any) => [d.name, d]));
  assert.deepEqual(byName['Test::Hooks::Slow'], {
    source: 'hook',
    name: 'Test::Hooks::Slow',
    action: 'Deny',
    message: 'hook Test::Hooks::Slow did not answer preCreate within 1 s',
    reason: 'HookTimeout',
  });
  assert.equal(byName['Test::Hooks::Broken'].action, 'Deny');
  assert.match(byName['Test::Hooks::Broken'].message, /threw: the rules database is down/);
  assert.equal(byName['Test::Hooks::Broken'].reason, 'HookFailed');
  assert.equal(byName['Test::Hooks::Nonsense'].action, 'Warn');
  assert.match(byName['Test::Hooks::Nonsense'].message, /a status other than SUCCESS, FAILED or IN_PROGRESS/);
  assert.deepEqual(byName['Test::Hooks::Patient'], {
    source: 'hook',
    name: 'Test::Hooks::Patient',
    action: 'Warn',
    message: 'decided after 3 calls',
    reason: 'NonCompliant',
  });
  assert.equal(polls, 3);
  // Concurrently: the slow hook's second bounds the whole review, not the sum of the hooks.
  assert.ok(took < 1900, `took ${took} ms`);

  // In WARN mode a timeout lets the change through, told as a warning.
  await enable(svc, 'Test::Hooks::Slow', { FailureMode: 'WARN', TimeoutInSeconds: 1 });
  await svc.call('DELETE', '/v1/hooks/Test::Hooks::Broken');
  const through = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=5`, {
    desiredState: { Name: 'w1' },
  });
  assert.equal(through.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(through.body));
  assert.deepEqual(through.body.progressEvent.warnings.map((w: any) => `${w.name} ${w.reason}`).sort(), [
    'Test::Hooks::Nonsense HookFailed',
    'Test::Hooks::Patient NonCompliant',
    'Test::Hooks::Slow HookTimeout',
  ]);
});

test('a hook registered but served by nobody here follows its failure mode, saying so', async (t) => {
  const svc = await startTestService();
  t.after(() => svc.close());
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  await enable(svc, 'Test::Hooks::Nowhere');
  const refused = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}`, { desiredState: { Name: 'w1' } });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.details[0].reason, 'HookNotServed');
  assert.match(refused.body.details[0].message, /no hook server .* serves Test::Hooks::Nowhere/);
});

test('a hook’s denial reaches a Cloud Control client with the hook’s message, nothing created', async (t) => {
  const svc = await startTestService({ hookServers: [colour] });
  t.after(() => svc.close());
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  // Cloud Control's changes are judged when TargetOperations name it, as in CloudFormation.
  await enable(svc, 'Test::Hooks::Colour', {
    Properties: { Banned: 'red' },
    TargetOperations: ['RESOURCE', 'CLOUD_CONTROL'],
  });
  const cc = cloudControl(svc.url, await issueKeys(svc, 'writer'));
  t.after(() => cc.destroy());
  // As AWS answers a hook's failure: the call succeeds, its operation FAILED with the hook's message.
  const { ProgressEvent: event } = await cc.send(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: JSON.stringify({ Name: 'w9', Color: 'red' }),
    }),
  );
  assert.equal(event!.OperationStatus, 'FAILED');
  assert.match(event!.StatusMessage!, /colour red is banned/);
  const status = await cc.send(new GetResourceRequestStatusCommand({ RequestToken: event!.RequestToken! }));
  assert.equal(status.ProgressEvent!.OperationStatus, 'FAILED');
  assert.deepEqual(
    status.HooksProgressEvent?.map((h) => [h.HookTypeName, h.HookStatus, h.FailureMode, h.HookStatusMessage]),
    [['Test::Hooks::Colour', 'HOOK_COMPLETE_FAILED', 'FAIL', 'colour red is banned (secret was undefined)']],
  );
  assert.equal((await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/w9`)).status, 404);

  // A hook that passes is listed too, as AWS lists the hooks a request invoked.
  const { ProgressEvent: passed } = await cc.send(
    new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: JSON.stringify({ Name: 'w8' }) }),
  );
  const passedStatus = await cc.send(
    new GetResourceRequestStatusCommand({ RequestToken: passed!.RequestToken! }),
  );
  assert.equal(passedStatus.ProgressEvent!.OperationStatus, 'SUCCESS');
  assert.deepEqual(
    passedStatus.HooksProgressEvent?.map((h) => [h.HookTypeName, h.HookStatus, h.InvocationPoint]),
    [['Test::Hooks::Colour', 'HOOK_COMPLETE_SUCCEEDED', 'PRE_PROVISION']],
  );
  const onV1 = await svc.call('GET', `/v1/requests/${passed!.RequestToken!}`);
  assert.equal(onV1.body.progressEvent.hooksPassed[0].name, 'Test::Hooks::Colour');
  assert.equal(onV1.body.progressEvent.warnings, undefined, 'a pass is not a warning');
});

test('a stack’s plan shows a hook’s verdict on its resource, its deployment is refused before anything runs, and the hook is told the stack', async (t) => {
  seen.length = 0;
  const svc = await startTestService({ hookServers: [colour] });
  t.after(() => svc.close());
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  await enable(svc, 'Test::Hooks::Colour', { Properties: { Banned: 'red' } });
  const template = `
Resources:
  Fine: { Type: ${WIDGET_TYPE}, Properties: { Name: fine } }
  Red: { Type: ${WIDGET_TYPE}, Properties: { Name: red-one, Color: red } }
`;
  const plan = await svc.call('POST', '/v1/stacks/shop/plans', { template });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  const byId = Object.fromEntries(plan.body.changes.map((c: any) => [c.logicalId, c]));
  assert.deepEqual(byId.Red.verdicts, [
    {
      source: 'hook',
      name: 'Test::Hooks::Colour',
      action: 'Deny',
      message: 'colour red is banned (secret was undefined)',
      reason: 'NonCompliant',
    },
  ]);
  assert.equal(byId.Fine.verdicts, undefined);
  const deployed = await svc.call('PUT', '/v1/stacks/shop', { template });
  assert.equal(deployed.status, 403);
  assert.equal((await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/fine`)).status, 404, 'nothing created');
  const fixed = await svc.call('PUT', '/v1/stacks/shop?wait=20', {
    template: template.replace('Color: red', 'Color: blue'),
  });
  assert.equal(fixed.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(fixed.body));
  const asked = seen.filter((r) => r.target.logicalId === 'red-one').at(-1)!;
  assert.equal(asked.caller?.stack, 'shop');
});

/**
 * A span per resource for every kind of stack step, not only the forward ones: a deployment whose
 * second resource fails rolls the first back in a `stack resource rollback` span, a stack's deletion
 * deletes each resource in a `stack resource delete` span, each holding its engine operation (begin,
 * step, the provider's call); a deployment resumed by a restarted server continues the trace of the
 * request that began it; and a recipe's instance has each resource made and deleted in a `recipe
 * resource create|delete` span under the instance's handler steps. Over real HTTP, with a real OTLP/HTTP receiver; one server serves the rollback, the
 * deletion and the recipe (each in a trace of its own), another is stopped and resumed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '../helpers/slow-notes.js';
import { api, settle } from '../helpers/service.js';
import { SAMPLE_MANIFEST, SAMPLE_TYPE } from '../recipes/fixtures.js';
import { TYPE, attribute, callerTrace, names, setUp, stop, tree, type OtlpSpan } from './traced-server.js';

const PAIR = `Resources:
  Left:
    Type: ${TYPE}
    Properties: { Name: left }
  Right:
    Type: ${TYPE}
    Properties: { Name: NAME, Size: !Ref Left }
`;

/** The spans of `logicalId`'s steps under `parent`, named `stack resource <phase>`. */
function resourceSpans(children: OtlpSpan[], phase: string, logicalId: string): OtlpSpan[] {
  return children.filter(
    (s) => s.name === `stack resource ${phase}` && attribute(s, 'typeplane.logical_id') === logicalId,
  );
}

test("stack steps in a trace, on one server: a rollback, a stack delete, and a recipe instance's steps", async (t) => {
  // The provider refuses to make anything named "broken".
  const { otlp, remote, server, client } = await setUp(
    t,
    {},
    {
      answer: (action, name) =>
        action === 'CREATE' && name === 'broken'
          ? { status: 'FAILED', errorCode: 'InvalidRequest', message: 'broken on purpose' }
          : undefined,
    },
  );

  const failing = callerTrace();
  const rolled = await client.call(
    'PUT',
    '/v1/stacks/failing?wait=20',
    { template: PAIR.replace('NAME', 'broken') },
    { traceparent: failing.traceparent },
  );
  assert.equal(rolled.status, 202, JSON.stringify(rolled.body));
  assert.equal(rolled.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(rolled.body.stack));

  const deleting = callerTrace();
  const deployed = await client.call('PUT', '/v1/stacks/pair?wait=20', {
    template: PAIR.replace('NAME', 'right'),
  });
  assert.equal(deployed.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(deployed.body.stack));
  const deleted = await client.call('DELETE', '/v1/stacks/pair?wait=20', undefined, {
    traceparent: deleting.traceparent,
  });
  assert.equal(deleted.status, 202, JSON.stringify(deleted.body));
  assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE', JSON.stringify(deleted.body.stack));

  const manifest = await client.call('POST', '/v1/types', SAMPLE_MANIFEST, {
    'content-type': 'application/yaml',
  });
  assert.equal(manifest.status, 201, JSON.stringify(manifest.body));
  const recipe = await client.call('POST', '/v1/recipes', {
    typeName: SAMPLE_TYPE,
    file: 'recipe.yaml',
    template: `Resources:\n  Box:\n    Type: ${TYPE}\n    Properties: { Name: !Sub '\${context.resource.name}-box' }\n`,
  });
  assert.equal(recipe.status, 201, JSON.stringify(recipe.body));

  const making = callerTrace();
  const created = await client.call(
    'POST',
    `/v1/resources/${encodeURIComponent(SAMPLE_TYPE)}`,
    { desiredState: { name: 'orders', size: 'S' } },
    { traceparent: making.traceparent },
  );
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const made = await settle(client, created.body.progressEvent.requestToken, 20_000);
  assert.equal(made.operationStatus, 'SUCCESS', JSON.stringify(made));
  const removing = callerTrace();
  const removed = await client.call(
    'DELETE',
    `/v1/resources/${encodeURIComponent(SAMPLE_TYPE)}/orders`,
    undefined,
    { traceparent: removing.traceparent },
  );
  assert.equal(removed.status, 202, JSON.stringify(removed.body));
  const ended = await settle(client, removed.body.progressEvent.requestToken, 20_000);
  assert.equal(ended.operationStatus, 'SUCCESS', JSON.stringify(ended));
  // Stopped, it exports every span it still holds.
  await stop(server.child);
  const { parentOf, childrenOf } = tree(otlp.spans);

  await t.test(
    'a rollback and a stack delete: a span per resource step, each holding its engine operation',
    () => {
      // The rollback: Left made, Right refused, Left deleted again — each step in the deployment's span.
      const inRollback = otlp.spans.filter((s) => s.traceId === failing.traceId);
      const deploy = inRollback.find((s) => s.name === 'stack deploy');
      assert.ok(deploy, `no deployment span: ${names(inRollback)}`);
      assert.equal(parentOf(deploy)?.name, 'PUT /v1/stacks/:stackName');
      const steps = childrenOf(deploy);
      assert.equal(resourceSpans(steps, 'forward', 'Left').length, 1, names(steps));
      assert.equal(resourceSpans(steps, 'forward', 'Right').length, 1, names(steps));
      const [putBack] = resourceSpans(steps, 'rollback', 'Left');
      assert.ok(putBack, `no rollback span for Left: ${names(steps)}`);
      assert.equal(attribute(putBack, 'typeplane.type_name'), TYPE);
      assert.equal(attribute(putBack, 'typeplane.stack'), 'failing');
      // Right was never made: its rollback step deletes nothing, and calls no provider.
      const begun = childrenOf(putBack).find((s) => s.name === 'begin DELETE');
      assert.ok(begun, `under Left's rollback: ${names(childrenOf(putBack))}`);
      const stepped = childrenOf(begun).find((s) => s.name === 'step DELETE');
      assert.ok(stepped, `under its begin: ${names(childrenOf(begun))}`);
      const call = childrenOf(stepped).find((s) => s.name === 'POST');
      assert.ok(call, `under its step: ${names(childrenOf(stepped))}`);
      const deleteCall = remote.calls.find(
        (c) => c.action === 'DELETE' && String(c.headers.traceparent).includes(failing.traceId),
      );
      assert.equal(deleteCall?.headers.traceparent, `00-${failing.traceId}-${call.spanId}-01`);

      // The deletion: one span per resource under the stack's, each with its delete operation.
      const inDelete = otlp.spans.filter((s) => s.traceId === deleting.traceId);
      const removal = inDelete.find((s) => s.name === 'stack delete');
      assert.ok(removal, `no deletion span: ${names(inDelete)}`);
      assert.equal(parentOf(removal)?.name, 'DELETE /v1/stacks/:stackName');
      assert.equal(attribute(removal, 'typeplane.stack'), 'pair');
      for (const logicalId of ['Left', 'Right']) {
        const [gone] = resourceSpans(childrenOf(removal), 'delete', logicalId);
        assert.ok(gone, `no delete span for ${logicalId}: ${names(childrenOf(removal))}`);
        assert.equal(attribute(gone, 'typeplane.type_name'), TYPE);
        const begin = childrenOf(gone).find((s) => s.name === 'begin DELETE');
        assert.ok(begin, `under ${logicalId}'s delete: ${names(childrenOf(gone))}`);
        const step = childrenOf(begin).find((s) => s.name === 'step DELETE');
        assert.ok(step && childrenOf(step).some((s) => s.name === 'POST'), names(childrenOf(begin)));
      }
    },
  );

  await t.test(
    "a recipe's instance: each resource its recipe makes or deletes is a step under the instance's handler step",
    () => {
      // Made without a stack (its stack is written when first needed), and so deleted: the recipe's
      // own steps, one per resource, each holding its engine operation.
      for (const [caller, operation, action] of [
        [making, 'CREATE', 'create'],
        [removing, 'DELETE', 'delete'],
      ] as const) {
        const spans = otlp.spans.filter((s) => s.traceId === caller.traceId);
        const steps = spans.filter(
          (s) => s.name === `step ${operation}` && attribute(s, 'typeplane.type_name') === SAMPLE_TYPE,
        );
        const box = steps
          .flatMap(childrenOf)
          .find(
            (s) => s.name === `recipe resource ${action}` && attribute(s, 'typeplane.logical_id') === 'Box',
          );
        assert.ok(box, `no step for the recipe's resource under the instance's step: ${names(spans)}`);
        assert.equal(attribute(box, 'typeplane.type_name'), TYPE);
        assert.ok(
          childrenOf(box).some((s) => s.name === `begin ${operation}`),
          `the resource's ${operation} under its step: ${names(childrenOf(box))}`,
        );
      }
    },
  );
});

test('a deployment resumed by a restarted server continues the trace of the request that began it', async (t) => {
  // "slow" takes two calls: the server is stopped between them, with its deployment still running.
  let asked = 0;
  const { otlp, server, start } = await setUp(
    t,
    {},
    {
      args: ['--lease', '1'],
      answer: (action, name) =>
        action === 'CREATE' && name === 'slow' && asked++ === 0
          ? { status: 'IN_PROGRESS', callbackDelaySeconds: 2 }
          : undefined,
    },
  );
  const caller = callerTrace();
  const put = await api(server.url, server.token).call(
    'PUT',
    '/v1/stacks/later',
    { template: `Resources:\n  Slow:\n    Type: ${TYPE}\n    Properties: { Name: slow }\n` },
    { traceparent: caller.traceparent },
  );
  assert.equal(put.status, 202, JSON.stringify(put.body));
  await until('the first call made', 10_000, async () => (asked > 0 ? true : undefined));
  await stop(server.child);

  const again = await start();
  t.after(() => stop(again.child));
  const client = api(again.url, again.token);
  const done = await until('the deployment ended', 30_000, async () => {
    const r = await client.call('GET', '/v1/stacks/later');
    return r.body.deploymentId === undefined && /_COMPLETE$|_FAILED$/.test(r.body.status)
      ? r.body
      : undefined;
  });
  assert.equal(done.status, 'CREATE_COMPLETE', JSON.stringify(done));
  await stop(again.child);

  const spans = otlp.spans.filter((s) => s.traceId === caller.traceId);
  const { parentOf, childrenOf } = tree(spans);
  const deploys = spans.filter((s) => s.name === 'stack deploy');
  assert.equal(deploys.length, 2, `begun, then resumed, in the caller's trace: ${names(spans)}`);
  const resumed = deploys.find((s) => attribute(s, 'typeplane.deployment.resumed') === true);
  assert.ok(resumed, 'the second is marked resumed');
  assert.equal(attribute(resumed, 'typeplane.stack'), 'later');
  const begun = deploys.find((s) => s !== resumed)!;
  assert.equal(parentOf(begun)?.name, 'PUT /v1/stacks/:stackName');
  assert.equal(resumed.parentSpanId, begun.parentSpanId, 'both under the request that began it');
  const [step] = resourceSpans(childrenOf(resumed), 'forward', 'Slow');
  assert.ok(step, `the resumed deployment's step: ${names(childrenOf(resumed))}`);
});

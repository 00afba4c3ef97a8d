/**
 * Traces: a server started with the standard OTEL_* variables exports its spans over OTLP/HTTP to a
 * real receiver in this test (a node:http server taking POST /v1/traces, JSON bodies), and the spans
 * form one tree per request — the caller's traceparent honoured, the engine's begin and step under
 * the request's span, the HTTP provider's call under the step, with the provider handed that call's
 * traceparent; a stack deployment is one trace with a span per resource; a Cloud Control call is
 * traced too; log lines carry the trace id. Without the variables, nothing is sent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exchange } from '../../src/cli/exchange.js';
import { issueKeys, signedHeaders } from '../helpers/cloudcontrol.js';
import { TYPE, attribute, hex, setUp, stop, tree } from './traced-server.js';

test('one trace per request, from the caller through the engine to the HTTP provider, and one per stack deployment', async (t) => {
  const { otlp, remote, server, client } = await setUp(t, {});

  // A create under the caller's trace.
  const callerTrace = hex(16);
  const callerSpan = hex(8);
  const created = await client.call(
    'POST',
    `/v1/resources/${TYPE}?wait=10`,
    { desiredState: { Name: 'one', Size: 'M' } },
    { traceparent: `00-${callerTrace}-${callerSpan}-01` },
  );
  assert.equal(created.status, 202, JSON.stringify(created.body));
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));

  // A stack of two things: one deployment.
  const template = `Resources:\n  Left:\n    Type: ${TYPE}\n    Properties: { Name: left }\n  Right:\n    Type: ${TYPE}\n    Properties: { Name: right, Size: !Ref Left }\n`;
  const deployed = await client.call('PUT', '/v1/stacks/pair?wait=20', { template });
  assert.equal(deployed.status, 202, JSON.stringify(deployed.body));
  assert.equal(deployed.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(deployed.body.stack));

  // A Cloud Control create under another trace of the caller's.
  const ccTrace = hex(16);
  const keys = await issueKeys(client, 'admin');
  const body = JSON.stringify({
    TypeName: TYPE,
    DesiredState: JSON.stringify({ Name: 'by-cloud-control' }),
  });
  const cc = await exchange(
    'POST',
    new URL(`${server.url}/`),
    {
      ...signedHeaders({ keys, url: server.url, operation: 'CreateResource', body }),
      traceparent: `00-${ccTrace}-${hex(8)}-01`,
    },
    body,
  );
  assert.equal(cc.status, 200, cc.text);

  await stop(server.child);
  const spans = otlp.spans;
  const { parentOf, childrenOf } = tree(spans);

  // The create: caller → HTTP server span → begin → step → HTTP provider call.
  const inCreate = spans.filter((s) => s.traceId === callerTrace);
  const root = inCreate.find((s) => s.parentSpanId === callerSpan);
  assert.ok(root, `no span continues the caller's: ${JSON.stringify(inCreate.map((s) => s.name))}`);
  assert.equal(root.name, 'POST /v1/resources/:typeName');
  assert.equal(root.kind, 2, 'SERVER');
  assert.equal(attribute(root, 'http.route'), '/v1/resources/:typeName');
  assert.equal(attribute(root, 'http.response.status_code'), 202);
  const begin = childrenOf(root).find((s) => s.name === 'begin CREATE');
  assert.ok(begin, `under the request: ${JSON.stringify(childrenOf(root).map((s) => s.name))}`);
  assert.equal(attribute(begin, 'typeplane.type_name'), TYPE);
  const step = childrenOf(begin).find((s) => s.name === 'step CREATE');
  assert.ok(step, `under begin: ${JSON.stringify(childrenOf(begin).map((s) => s.name))}`);
  assert.equal(attribute(step, 'typeplane.operation'), 'CREATE');
  assert.equal(attribute(step, 'typeplane.type_name'), TYPE);
  // The store's transactions: the begin's and the step's (the answer recorded), each in a group commit.
  for (const parent of [begin, step]) {
    const group = childrenOf(parent).find((s) => s.name === 'sqlite group commit');
    assert.ok(
      group,
      `no group commit under ${parent.name}: ${JSON.stringify(childrenOf(parent).map((s) => s.name))}`,
    );
    assert.equal(attribute(group, 'db.system.name'), 'sqlite');
    assert.ok(Number(attribute(group, 'db.operation.batch.size')) >= 1);
  }
  const call = childrenOf(step).find((s) => s.name === 'POST');
  assert.ok(call, `under the step: ${JSON.stringify(childrenOf(step).map((s) => s.name))}`);
  assert.equal(call.kind, 3, 'CLIENT');
  assert.equal(attribute(call, 'http.response.status_code'), 200);
  assert.equal(attribute(call, 'url.full'), remote.url);
  // The provider was handed that call's context.
  const first = remote.calls.find((c) => c.action === 'CREATE');
  assert.equal(first?.headers.traceparent, `00-${callerTrace}-${call.spanId}-01`);
  assert.equal(first.headers.baggage, undefined);

  // The deployment: one trace, the request's, with a span per resource, each with its provider call.
  const deploy = spans.find((s) => s.name === 'stack deploy');
  assert.ok(deploy, `no deployment span: ${JSON.stringify([...new Set(spans.map((s) => s.name))])}`);
  assert.equal(attribute(deploy, 'typeplane.stack'), 'pair');
  assert.equal(parentOf(deploy)?.name, 'PUT /v1/stacks/:stackName');
  const resources = childrenOf(deploy).filter((s) => s.name === 'stack resource forward');
  assert.deepEqual(resources.map((s) => attribute(s, 'typeplane.logical_id')).sort(), ['Left', 'Right']);
  for (const resource of resources) {
    assert.equal(resource.traceId, deploy.traceId);
    assert.equal(attribute(resource, 'typeplane.type_name'), TYPE);
    const begun = childrenOf(resource).find((s) => s.name === 'begin CREATE');
    assert.ok(begun, `under ${String(attribute(resource, 'typeplane.logical_id'))}`);
    const stepped = childrenOf(begun).find((s) => s.name === 'step CREATE');
    assert.ok(stepped && childrenOf(stepped).some((s) => s.name === 'POST'));
  }
  const deployCalls = remote.calls.filter((c) => String(c.headers.traceparent).includes(deploy.traceId));
  assert.equal(deployCalls.length, 2, 'each resource create reached the provider in the deployment trace');

  // Cloud Control: the caller's trace honoured, the action named.
  const ccRoot = spans.find((s) => s.traceId === ccTrace && s.kind === 2);
  assert.ok(ccRoot, 'the Cloud Control call continues the caller trace');
  assert.equal(ccRoot.name, 'POST /');
  assert.equal(attribute(ccRoot, 'rpc.method'), 'CreateResource');
  assert.ok(
    spans.some((s) => s.traceId === ccTrace && s.name === 'begin CREATE' && s.parentSpanId === ccRoot.spanId),
  );

  // Log lines written inside a trace carry its ids.
  const lines = server
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const logged = lines.find((l) => l.trace_id === callerTrace);
  assert.ok(logged, 'a log line of the create carries its trace id');
  assert.match(String(logged.span_id), /^[0-9a-f]{16}$/);
});

test('without OTEL_* variables asking for traces, nothing is sent', async (t) => {
  // The endpoint is named, but the SDK is disabled: as off as with nothing set.
  const { otlp, remote, server, client } = await setUp(t, { OTEL_SDK_DISABLED: 'true' });
  const traceparent = `00-${hex(16)}-${hex(8)}-01`;
  const created = await client.call(
    'POST',
    `/v1/resources/${TYPE}?wait=10`,
    { desiredState: { Name: 'quiet' } },
    { traceparent },
  );
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  await stop(server.child);
  assert.equal(otlp.posts(), 0);
  // The provider is handed no traceparent (not even the caller's), and the logs carry no ids.
  assert.equal(remote.calls[0]?.headers.traceparent, undefined);
  assert.doesNotMatch(server.logs(), /trace_id/);
});

/**
 * Custom resources through CloudFormation's protocol, over real HTTP on loopback: a handler written
 * with the body and headers of AWS's `cfn-response` helper (an empty Content-Type) runs as a child
 * process; Typeplane POSTs it Create, Update and Delete requests and reads what it PUTs back to the
 * one-time ResponseURL. A ServiceToken outside the server's allow-list is refused before anything is
 * called; a NoEcho answer's Data never shows; a FAILED answer rolls the stack back. On SQLite, and
 * on PostgreSQL for the store's part (what is pending, the one-time URL).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { api, startTestService, type TestService } from '../helpers/service.js';
import { serviceOn } from '../helpers/each-store.js';
import { pgSkip } from '../helpers/postgres.js';

const HANDLER = fileURLToPath(
  new URL('../fixtures/custom-resource-handler/cfn-response-handler.mjs', import.meta.url),
);

interface Seen {
  request?: Record<string, any>;
  answered?: string;
  status?: number;
}

let handler: ChildProcess;
let handlerUrl: string;
const seen: Seen[] = [];
let s: TestService;

before(async () => {
  handler = spawn(process.execPath, [HANDLER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: handler.stdout! });
  handlerUrl = await new Promise<string>((resolve) =>
    lines.on('line', (line) => {
      const port = /^listening (\d+)$/.exec(line)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}/handlers/greeter`);
      else seen.push(JSON.parse(line) as Seen);
    }),
  );
  const port = /:(\d+)\//.exec(handlerUrl)![1];
  s = await startTestService({ customResources: { serviceTokens: [`http://127.0.0.1:${port}/handlers/`] } });
});
after(async () => {
  handler?.kill();
  await s?.close();
});

const TEMPLATE = (token: string, extra = '') => `
Parameters:
  Name: { Type: String }
  Count: { Type: Number, Default: 3 }
Resources:
  Greeter:
    Type: Custom::Greeter
    Properties:
      ServiceToken: ${token}
      ServiceTimeout: 20
      Name: !Ref Name
      Count: !Ref Count
${extra}
Outputs:
  Greeting: { Value: !GetAtt Greeter.Greeting }
  Id: { Value: !Ref Greeter }
`;

const requests = (from: number) => seen.slice(from).flatMap((l) => (l.request ? [l.request] : []));

async function deploy(stack: string, template: string, parameters: Record<string, string>) {
  const put = await s.call('PUT', `/v1/stacks/${stack}?wait=60`, { template, parameters });
  assert.equal(put.status, 202, JSON.stringify(put.body));
  return put.body.stack;
}

const outputs = (stack: { outputs: { name: string; value: unknown }[] }) =>
  Object.fromEntries(stack.outputs.map((o) => [o.name, o.value]));

test('a cfn-response handler creates, updates, replaces and deletes a custom resource; its ServiceToken cannot change', async () => {
  let mark = seen.length;
  const created = await deploy('greeting', TEMPLATE(handlerUrl), { Name: 'ana' });
  assert.equal(created.status, 'CREATE_COMPLETE', JSON.stringify(created));
  assert.deepEqual(outputs(created), { Greeting: 'hello ana', Id: 'greeter-ana' });
  const [create] = requests(mark);
  assert.equal(create!.RequestType, 'Create');
  assert.equal(create!.ResourceType, 'Custom::Greeter');
  assert.equal(create!.LogicalResourceId, 'Greeter');
  assert.equal(create!.StackId, created.stackId);
  assert.equal(create!.PhysicalResourceId, undefined);
  // Values as CloudFormation sends them: numbers as text.
  assert.deepEqual(create!.ResourceProperties, {
    ServiceToken: handlerUrl,
    ServiceTimeout: '20',
    Name: 'ana',
    Count: '3',
  });
  assert.match(create!.ResponseURL, new RegExp(`^${s.url}/v1/custom-resource-responses/[A-Za-z0-9_-]{43}$`));
  // The response was taken (200), and the URL answers once: a second PUT, even the same, is refused.
  assert.equal(seen.find((l) => l.answered === create!.RequestId)?.status, 200);
  const again = await api(s.url).call('PUT', new URL(create!.ResponseURL).pathname, '{}', {
    'content-type': '',
  });
  assert.equal(again.status, 404, JSON.stringify(again.body));

  mark = seen.length;
  const updated = await deploy('greeting', TEMPLATE(handlerUrl), { Name: 'ana', Count: '4' });
  assert.equal(updated.status, 'UPDATE_COMPLETE', JSON.stringify(updated));
  const [update, ...noMore] = requests(mark);
  assert.deepEqual(noMore, []);
  assert.equal(update!.RequestType, 'Update');
  assert.equal(update!.PhysicalResourceId, 'greeter-ana');
  assert.equal(update!.ResourceProperties.Count, '4');
  assert.equal(update!.OldResourceProperties.Count, '3');

  // A new PhysicalResourceId from an Update is a replacement: the old one is deleted in cleanup.
  mark = seen.length;
  const replaced = await deploy('greeting', TEMPLATE(handlerUrl), { Name: 'bo', Count: '4' });
  assert.equal(replaced.status, 'UPDATE_COMPLETE', JSON.stringify(replaced));
  assert.deepEqual(outputs(replaced), { Greeting: 'hello bo', Id: 'greeter-bo' });
  const [replace, cleanup] = requests(mark);
  assert.equal(replace!.RequestType, 'Update');
  assert.equal(cleanup!.RequestType, 'Delete');
  assert.equal(cleanup!.PhysicalResourceId, 'greeter-ana');
  assert.equal(cleanup!.ResourceProperties.Name, 'ana');

  // Another handler may not take the resource over: the update fails, and the stack rolls back.
  mark = seen.length;
  const moved = await deploy('greeting', TEMPLATE(`${handlerUrl}-v2`), { Name: 'bo', Count: '4' });
  assert.equal(moved.status, 'UPDATE_ROLLBACK_COMPLETE', JSON.stringify(moved));
  assert.match(moved.statusReason, /Greeter: NotUpdatable: a custom resource's ServiceToken cannot change/);
  assert.deepEqual(requests(mark), []);

  mark = seen.length;
  const deleted = await s.call('DELETE', '/v1/stacks/greeting?wait=60');
  assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE', JSON.stringify(deleted.body));
  const [remove] = requests(mark);
  assert.equal(remove!.RequestType, 'Delete');
  assert.equal(remove!.PhysicalResourceId, 'greeter-bo');
  assert.equal(remove!.ResourceProperties.Name, 'bo');
});

test('a ServiceToken outside the allow-list is refused at validate, plan and deploy, and never called', async () => {
  const mark = seen.length;
  const elsewhere = handlerUrl.replace('/handlers/greeter', '/admin/greeter');
  const template = TEMPLATE(elsewhere);
  const validated = await s.call('POST', '/v1/stacks/validate', { template, parameters: { Name: 'x' } });
  assert.equal(validated.body.valid, false);
  const [diagnostic] = validated.body.diagnostics;
  assert.equal(diagnostic.pointer, '/Resources/Greeter/Properties/ServiceToken');
  assert.match(
    diagnostic.message,
    /is not under a URL prefix this server allows.*customResources: \{ serviceTokens/,
  );
  const planned = await s.call('POST', '/v1/stacks/refused/plans', { template, parameters: { Name: 'x' } });
  assert.equal(planned.status, 400, JSON.stringify(planned.body));
  const put = await s.call('PUT', '/v1/stacks/refused', { template, parameters: { Name: 'x' } });
  assert.equal(put.status, 400, JSON.stringify(put.body));
  // A Lambda ARN cannot be called here: said so.
  const lambda = await s.call('POST', '/v1/stacks/validate', {
    template: TEMPLATE('arn:aws:lambda:us-east-1:123456789012:function:greeter'),
    parameters: { Name: 'x' },
  });
  assert.match(
    lambda.body.diagnostics[0].message,
    /not an http\(s\) URL.*Lambda or SNS ARN cannot be called here/,
  );
  assert.deepEqual(requests(mark), []);
});

test('a server without an allow-list refuses every custom resource, saying how to allow one', async () => {
  const plain = await startTestService();
  try {
    const r = await plain.call('POST', '/v1/stacks/validate', {
      template: TEMPLATE(handlerUrl),
      parameters: { Name: 'x' },
    });
    assert.equal(r.body.valid, false);
    assert.match(r.body.diagnostics[0].message, /custom resources are off on this server.*serviceTokens/);
  } finally {
    await plain.close();
  }
});

test('the Data of a NoEcho answer is read by GetAtt but never shown in outputs, events or describe', async () => {
  const secret = 'hunter2-very-secret';
  const template = `
Resources:
  Vault:
    Type: AWS::CloudFormation::CustomResource
    Properties:
      ServiceToken: ${handlerUrl}
      ServiceTimeout: 20
      Name: vault
      Secret: ${secret}
  Reader:
    Type: Custom::Greeter
    Properties:
      ServiceToken: ${handlerUrl}
      ServiceTimeout: 20
      Name: reader
      Note: !Sub 'reader-\${Vault.Secret}'
Outputs:
  Secret: { Value: !GetAtt Vault.Secret }
  ReaderId: { Value: !Ref Reader }
`;
  const stack = await deploy('vault', template, {});
  assert.equal(stack.status, 'CREATE_COMPLETE', JSON.stringify(stack));
  // The secret reached the resource that reads it…
  assert.ok(seen.some((l) => l.request?.ResourceProperties?.Note === `reader-${secret}`));
  // …and is shown nowhere.
  const shown = [
    stack,
    (await s.call('GET', '/v1/stacks/vault')).body,
    (await s.call('GET', '/v1/stacks/vault/outputs')).body,
    (await s.call('GET', '/v1/stacks/vault/events')).body,
  ];
  for (const body of shown) assert.ok(!JSON.stringify(body).includes(secret), JSON.stringify(body));
  assert.deepEqual(outputs(stack), { Secret: '****', ReaderId: 'greeter-reader' });
  await s.call('DELETE', '/v1/stacks/vault?wait=60');
});

test("a handler's FAILED answer fails the resource with its Reason and rolls the stack back", async () => {
  const template = TEMPLATE(handlerUrl, `      Fail: 'true'`).replace(
    'Outputs:\n  Greeting: { Value: !GetAtt Greeter.Greeting }\n  Id: { Value: !Ref Greeter }\n',
    '',
  );
  const stack = await deploy('failing', template, { Name: 'cy' });
  assert.equal(stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(stack));
  assert.match(stack.statusReason, /Greeter: GeneralServiceException: cannot greet cy/);
  assert.deepEqual(stack.resources, []);
});

test('a response over 4096 bytes or naming another request is refused; no answer within ServiceTimeout fails the resource', async () => {
  const mark = seen.length;
  const template = TEMPLATE(handlerUrl, `      Silent: 'true'`)
    .replace('ServiceTimeout: 20', 'ServiceTimeout: 3')
    .replace(
      'Outputs:\n  Greeting: { Value: !GetAtt Greeter.Greeting }\n  Id: { Value: !Ref Greeter }\n',
      '',
    );
  const put = await s.call('PUT', '/v1/stacks/silent', { template, parameters: { Name: 'dee' } });
  assert.equal(put.status, 202, JSON.stringify(put.body));
  let request: Record<string, any> | undefined;
  while (!(request = requests(mark)[0])) await new Promise((resolve) => setTimeout(resolve, 20));
  const path = new URL(request.ResponseURL).pathname;
  const anyone = api(s.url);
  const answer = {
    Status: 'SUCCESS',
    PhysicalResourceId: 'x',
    StackId: request.StackId,
    RequestId: request.RequestId,
    LogicalResourceId: request.LogicalResourceId,
  };
  const large = await anyone.call(
    'PUT',
    path,
    JSON.stringify({ ...answer, Data: { Blob: 'x'.repeat(5000) } }),
  );
  assert.equal(large.status, 413, JSON.stringify(large.body));
  const other = await anyone.call('PUT', path, JSON.stringify({ ...answer, RequestId: 'another' }));
  assert.equal(other.status, 400, JSON.stringify(other.body));
  assert.match(other.body.message, /RequestId must be the request's/);
  const ended = await waitEnded('silent');
  assert.equal(ended.status, 'ROLLBACK_COMPLETE', JSON.stringify(ended));
  assert.match(ended.statusReason, /sent no response to the ResponseURL within its ServiceTimeout \(3 s\)/);
});

/** The stack once its deployment has ended (read until it has no deployment). */
async function waitEnded(stack: string) {
  for (;;) {
    const body = (await s.call('GET', `/v1/stacks/${stack}`)).body;
    if (!body.deploymentId) return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test(
  'on PostgreSQL, the pending request and its one-time ResponseURL are kept in its store alike',
  { skip: pgSkip },
  async (t) => {
    const port = /:(\d+)\//.exec(handlerUrl)![1];
    const pg = await serviceOn(t, 'postgresql', {
      customResources: { serviceTokens: [`http://127.0.0.1:${port}/handlers/`] },
    });
    const mark = seen.length;
    const put = await pg.call('PUT', '/v1/stacks/on-pg?wait=60', {
      template: TEMPLATE(handlerUrl),
      parameters: { Name: 'pg' },
    });
    assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
    assert.deepEqual(outputs(put.body.stack), { Greeting: 'hello pg', Id: 'greeter-pg' });
    const [create] = requests(mark);
    const again = await api(pg.url).call('PUT', new URL(create!.ResponseURL).pathname, '{}', {
      'content-type': '',
    });
    assert.equal(again.status, 404);
    const deleted = await pg.call('DELETE', '/v1/stacks/on-pg?wait=60');
    assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE', JSON.stringify(deleted.body));
    assert.deepEqual(
      requests(mark).map((r) => r.RequestType),
      ['Create', 'Delete'],
    );
  },
);

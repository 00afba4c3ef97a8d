/**
 * Stacks and a token's type scope, over a real server: a client token replays only to the caller
 * that sent it, once its access is checked; a stack whose types a token reaches none of answers as a
 * missing one on every route; a token reaching some sees no parameters, description, outputs or
 * reason; the listing's cursors name no stack, and a rolled-back stack (no resources left) is listed
 * only to tokens reaching every type it used; a stack made while an outsider asks for it is answered
 * as missing too.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, startTestService, WIDGET, type Api, type TestService } from '../helpers/service.js';
import { GADGET } from './helpers.js';

const SHOP = `
Description: the shop's secret plan
Parameters:
  Motto: { Type: String }
Resources:
  W: { Type: Test::Shop::Widget, Properties: { Name: w, Color: !Ref Motto } }
  G: { Type: Test::Shop::Gadget, Properties: { WidgetName: !Ref W, Note: hidden-note } }
Outputs:
  Note: { Value: !GetAtt G.Note }
`;
const WIDGET_ONLY = 'Resources:\n  W: { Type: Test::Shop::Widget, Properties: { Name: solo } }\n';
/** Fails on G (a widget's Id is read-only and never set), and rolls back: no resource is left. */
const FAILING = `
Resources:
  W: { Type: Test::Shop::Widget, Properties: { Name: gone } }
  G: { Type: Test::Shop::Gadget, Properties: { Note: !GetAtt W.Id } }
`;

let s: TestService;
let widgetWriter: Api;
let otherWidgetWriter: Api;
let widgetReader: Api;
let outsider: Api; // a reader whose globs reach none of the shop's types
let outsideWriter: Api;

before(async () => {
  s = await startTestService();
  for (const doc of [WIDGET, GADGET]) assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  const token = async (role: string, types: string[]) => {
    const res = await s.call('POST', '/v1/tokens', { role, types });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return api(s.url, res.body.token);
  };
  widgetWriter = await token('writer', ['Test::Shop::Widget']);
  otherWidgetWriter = await token('writer', ['Test::Shop::Widget']);
  widgetReader = await token('reader', ['Test::Shop::Widget']);
  outsider = await token('reader', ['Test::Garden::*']);
  outsideWriter = await token('writer', ['Test::Garden::*']);
  const shop = await s.call('PUT', '/v1/stacks/shop?wait=20', {
    template: SHOP,
    parameters: { Motto: 'plain-motto' },
    clientToken: 'deploy-1',
  });
  assert.equal(shop.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(shop.body));
});
after(() => s.close());

test('a client token replays only to the caller that sent it, once its access is checked', async () => {
  // Another caller's token and body: refused for the types, not answered with the deployment.
  const replayed = await widgetWriter.call('PUT', '/v1/stacks/shop', {
    template: SHOP,
    parameters: { Motto: 'plain-motto' },
    clientToken: 'deploy-1',
  });
  assert.equal(replayed.status, 403, JSON.stringify(replayed.body));
  assert.equal(replayed.body.errorCode, 'AccessDenied');
  assert.doesNotMatch(JSON.stringify(replayed.body), /hidden-note|plain-motto|deploymentId/);

  // Two callers each allowed the request: the same token is two requests, not a replay of the other's.
  const body = { template: WIDGET_ONLY, clientToken: 'solo-1' };
  const first = await widgetWriter.call('PUT', '/v1/stacks/solo?wait=20', body);
  assert.equal(first.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(first.body));
  const again = await widgetWriter.call('PUT', '/v1/stacks/solo?wait=20', body);
  assert.equal(again.body.deploymentId, first.body.deploymentId, 'its own token replays');
  const other = await otherWidgetWriter.call('PUT', '/v1/stacks/solo?wait=20', body);
  assert.equal(other.status, 202, JSON.stringify(other.body));
  assert.notEqual(other.body.deploymentId, first.body.deploymentId);
  assert.equal(other.body.stack.status, 'UPDATE_COMPLETE');
});

test('a stack out of reach answers exactly as a missing one; a partial view shows none of the rest', async () => {
  const routes: [string, (name: string) => string, unknown?][] = [
    ['GET', (n) => `/v1/stacks/${n}`],
    ['GET', (n) => `/v1/stacks/${n}/events`],
    ['GET', (n) => `/v1/stacks/${n}/outputs`],
    ['GET', (n) => `/v1/stacks/${n}/drift`],
    ['GET', (n) => `/v1/stacks/${n}/plans/00000000-0000-4000-8000-000000000000`],
  ];
  const shape = (body: Record<string, unknown>, name: string) =>
    JSON.stringify({ ...body, requestId: undefined }).replaceAll(name, 'NAME');
  for (const [method, path] of routes) {
    const hidden = await outsider.call(method, path('shop'));
    const missing = await outsider.call(method, path('nowhere'));
    assert.equal(missing.status, 404);
    assert.equal(hidden.status, 404, `${method} ${path('shop')}: ${JSON.stringify(hidden.body)}`);
    assert.equal(shape(hidden.body, 'shop'), shape(missing.body, 'nowhere'));
  }
  const deleted = await outsideWriter.call('DELETE', '/v1/stacks/shop');
  const deletedMissing = await outsideWriter.call('DELETE', '/v1/stacks/nowhere');
  assert.equal(deleted.status, 404, JSON.stringify(deleted.body));
  assert.equal(shape(deleted.body, 'shop'), shape(deletedMissing.body, 'nowhere'));
  assert.equal((await s.call('GET', '/v1/stacks/shop')).body.status, 'CREATE_COMPLETE');

  // A token reaching some of its types: its resources of those types and the status, nothing else.
  const partial = await widgetReader.call('GET', '/v1/stacks/shop');
  assert.equal(partial.status, 200);
  assert.deepEqual(
    partial.body.resources.map((r: { logicalId: string }) => r.logicalId),
    ['W'],
  );
  assert.deepEqual([partial.body.parameters, partial.body.outputs], [{}, []]);
  assert.equal(partial.body.description, undefined);
  assert.doesNotMatch(JSON.stringify(partial.body), /plain-motto|secret plan|hidden-note/);
  // Whoever reaches every type sees it all.
  const whole = await s.call('GET', '/v1/stacks/shop');
  assert.deepEqual(whole.body.parameters, { Motto: 'plain-motto' });
  assert.equal(whole.body.description, "the shop's secret plan");
});

test('the listing names no stack out of reach: sealed cursors, rolled-back stacks need every type used', async () => {
  const failed = await s.call('PUT', '/v1/stacks/failed?wait=20', { template: FAILING });
  assert.equal(failed.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(failed.body));
  assert.deepEqual(failed.body.stack.resources, []);

  const walk = async (client: Api) => {
    const names: string[] = [];
    let nextToken: string | null = null;
    do {
      const query: string = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
      const page = await client.call('GET', `/v1/stacks?maxResults=1${query}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      names.push(...page.body.stacks.map((x: { stackName: string }) => x.stackName));
      nextToken = page.body.nextToken;
      if (nextToken) {
        const decoded = Buffer.from(nextToken.split('.').pop()!, 'base64url').toString('latin1');
        for (const name of ['failed', 'shop', 'solo']) {
          assert.ok(
            !nextToken.includes(name) && !decoded.includes(name),
            `the cursor ${nextToken} names ${name}`,
          );
        }
      }
    } while (nextToken);
    return names;
  };
  assert.deepEqual(await walk(s), ['failed', 'shop', 'solo']);
  assert.deepEqual(await walk(widgetReader), ['solo'], 'the rolled-back stack used a gadget too');
  assert.deepEqual(await walk(outsider), []);

  const forged = Buffer.from(JSON.stringify({ kv: 'failed' })).toString('base64url');
  const refused = await widgetReader.call('GET', `/v1/stacks?nextToken=${forged}`);
  assert.equal(refused.status, 400);
  assert.equal(refused.body.errorCode, 'InvalidRequest');
});

test('a refusal over a shared export name names no stack out of the caller’s reach', async () => {
  const gadgets = (extra: string) =>
    `Resources:\n  G: { Type: Test::Shop::Gadget, Properties: { Note: n } }\n${extra}`;
  const exporter = await s.call('PUT', '/v1/stacks/gadget-exporter?wait=20', {
    template: gadgets('Outputs:\n  X: { Value: v, Export: { Name: taken-name } }\n'),
  });
  assert.equal(exporter.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(exporter.body));
  // The export name is taken: the widget writer is told so, but not by which stack.
  const clash = await widgetWriter.call('PUT', '/v1/stacks/widget-exporter', {
    template: `${WIDGET_ONLY}Outputs:\n  X: { Value: v, Export: { Name: taken-name } }\n`,
  });
  assert.equal(clash.status, 409, JSON.stringify(clash.body));
  assert.match(clash.body.message, /export taken-name is already exported by a stack out of your reach/);
  assert.doesNotMatch(JSON.stringify(clash.body), /gadget-exporter/);
  // The admin reaches every type: it is told the stack's name.
  const admin = await s.call('PUT', '/v1/stacks/other-exporter', {
    template: gadgets('Outputs:\n  X: { Value: v, Export: { Name: taken-name } }\n'),
  });
  assert.match(admin.body.message, /already exported by stack gadget-exporter/);

  // The widget writer's export, imported by a stack of the admin's: it cannot be deleted, and the
  // importer is counted, not named.
  const mine = await widgetWriter.call('PUT', '/v1/stacks/widget-export?wait=20', {
    template: `Resources:\n  W: { Type: Test::Shop::Widget, Properties: { Name: exp } }\nOutputs:\n  X: { Value: v, Export: { Name: widget-x } }\n`,
  });
  assert.equal(mine.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(mine.body));
  const importer = await s.call('PUT', '/v1/stacks/gadget-importer?wait=20', {
    template: 'Resources:\n  G: { Type: Test::Shop::Gadget, Properties: { Note: !ImportValue widget-x } }\n',
  });
  assert.equal(importer.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(importer.body));
  const refused = await widgetWriter.call('DELETE', '/v1/stacks/widget-export');
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.match(refused.body.message, /is imported by a stack out of your reach/);
  assert.doesNotMatch(JSON.stringify(refused.body), /gadget-importer/);
  const dropped = await widgetWriter.call('PUT', '/v1/stacks/widget-export', {
    template: WIDGET_ONLY.replace('solo', 'exp'),
  });
  assert.equal(dropped.status, 409, JSON.stringify(dropped.body));
  assert.doesNotMatch(JSON.stringify(dropped.body), /gadget-importer/);
  assert.match(
    (await s.call('DELETE', '/v1/stacks/widget-export')).body.message,
    /imported by stack gadget-importer/,
  );
});

test('a stack made while an outsider asks for it, or for its events, is answered as missing', async () => {
  // The reach was once checked before the stack was read: a stack made in between (the check found
  // none, so passed) was then answered 200. Both asked at once, many times: every answer is a 404.
  for (const what of ['', '/events']) {
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const name = `race${what.replace('/', '-')}-${i}`;
        const [made, seen] = await Promise.all([
          s.call('PUT', `/v1/stacks/${name}`, { template: WIDGET_ONLY.replace('solo', `${name}-w`) }),
          outsider.call('GET', `/v1/stacks/${name}${what}`),
        ]);
        assert.equal(made.status, 202, JSON.stringify(made.body));
        return seen;
      }),
    );
    for (const seen of answers) assert.equal(seen.status, 404, `${what}: ${JSON.stringify(seen.body)}`);
  }
});

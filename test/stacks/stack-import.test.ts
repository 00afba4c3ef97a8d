/**
 * Stack import (CloudFormation's IMPORT change sets) over real HTTP: resources Typeplane has a record
 * of, in no stack, brought into a stack by identifier — the plan shows Import with how the properties
 * read differ from the template's, the deployment creates nothing, the stack then holds them (drift
 * sees the same differences), and a retained one leaves the stack to be imported again (both on
 * SQLite and PostgreSQL). Refused: a resource without DeletionPolicy Retain, one in another stack, one
 * Typeplane has no record of, and any other change in the same deployment; of two imports of one
 * resource at once, the second (409, on both stores).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { settle, startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { serviceOn, type StoreKind } from '../helpers/each-store.js';
import { pgSkip } from '../helpers/postgres.js';

const T = encodeURIComponent(WIDGET_TYPE);

async function service(t: import('node:test').TestContext, kind: StoreKind = 'sqlite') {
  const provider = memoryProvider();
  const s = await serviceOn(t, kind, { providers: new Map([[WIDGET_TYPE, provider]]) });
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  for (const [name, color] of [
    ['legacy', 'red'],
    ['spare', 'green'],
  ]) {
    const made = await s.call('POST', `/v1/resources/${T}`, { desiredState: { Name: name, Color: color } });
    assert.equal((await settle(s, made.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  }
  return { s, provider };
}

const legacy = (color: string, policy = 'Retain') =>
  `Resources:\n  Legacy:\n    Type: ${WIDGET_TYPE}\n    DeletionPolicy: ${policy}\n    Properties: { Name: legacy, Color: ${color} }\n`;
const toImport = (logicalId: string, name: string) => ({
  LogicalResourceId: logicalId,
  ResourceType: WIDGET_TYPE,
  ResourceIdentifier: { Name: name },
});

for (const kind of ['sqlite', 'postgresql'] as const)
  test(
    `an import is planned as Import with the differences read, then deployed creating nothing; drift sees the same difference [${kind}]`,
    { skip: kind === 'postgresql' && pgSkip },
    async (t) => {
      const { s, provider } = await service(t, kind);
      const plan = await s.call('POST', '/v1/stacks/app/plans', {
        template: legacy('blue'),
        resourcesToImport: [toImport('Legacy', 'legacy')],
      });
      assert.equal(plan.status, 201, JSON.stringify(plan.body));
      assert.deepEqual(
        plan.body.changes.map((c: { action: string; logicalId: string; identifier: string }) => [
          c.action,
          c.logicalId,
          c.identifier,
        ]),
        [['Import', 'Legacy', 'legacy']],
      );
      assert.deepEqual(plan.body.changes[0].differences, [
        { path: '/Color', expected: 'blue', actual: 'red', kind: 'NOT_EQUAL' },
      ]);

      const creates = provider.calls.filter((c) => c.action === 'create').length;
      const applied = await s.call('POST', `/v1/stacks/app/plans/${plan.body.planId}/apply?wait=20`);
      assert.equal(applied.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(applied.body.stack));
      assert.equal(provider.calls.filter((c) => c.action === 'create').length, creates, 'nothing created');
      assert.deepEqual(
        applied.body.stack.resources.map((r: { logicalId: string; identifier: string }) => [
          r.logicalId,
          r.identifier,
        ]),
        [['Legacy', 'legacy']],
      );
      const events = (await s.call('GET', '/v1/stacks/app/events')).body.events.map(
        (e: { logicalId: string; status: string }) => `${e.logicalId} ${e.status}`,
      );
      assert.ok(events.includes('Legacy IMPORT_COMPLETE'), events.join('\n'));
      const drift = await s.call('GET', '/v1/stacks/app/drift');
      assert.equal(drift.body.status, 'DRIFTED');
      assert.deepEqual(drift.body.resources[0].differences, [
        { path: '/Color', expected: 'blue', actual: 'red', kind: 'NOT_EQUAL' },
      ]);
      // Managed by the stack now: a deployment changing its template updates it.
      const updated = await s.call('PUT', '/v1/stacks/app?wait=20', { template: legacy('navy') });
      assert.equal(updated.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(updated.body.stack));
      assert.equal(provider.store.get('legacy')?.Color, 'navy');
    },
  );

for (const kind of ['sqlite', 'postgresql'] as const)
  test(
    `a retained resource leaves the stack with the stack, and is imported into another one [${kind}]`,
    { skip: kind === 'postgresql' && pgSkip },
    async (t) => {
      const { s, provider } = await service(t, kind);
      const first = await s.call('PUT', '/v1/stacks/first?wait=20', {
        template: legacy('red'),
        resourcesToImport: [toImport('Legacy', 'legacy')],
      });
      assert.equal(first.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(first.body.stack));
      const taken = await s.call('PUT', '/v1/stacks/second?wait=20', {
        template: legacy('red'),
        resourcesToImport: [toImport('Legacy', 'legacy')],
      });
      assert.equal(taken.status, 400);
      assert.match(
        taken.body.message,
        /Test::Shop::Widget legacy is Legacy of stack first; a resource belongs to one stack/,
      );

      assert.equal((await s.call('DELETE', '/v1/stacks/first?wait=20')).body.stack.status, 'DELETE_COMPLETE');
      assert.ok(provider.store.has('legacy'), 'retained');
      const second = await s.call('PUT', '/v1/stacks/second?wait=20', {
        template: legacy('red'),
        resourcesToImport: [toImport('Legacy', 'legacy')],
      });
      assert.equal(second.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(second.body.stack));
    },
  );

test('an import is refused without DeletionPolicy Retain, for what Typeplane has no record of, named wrongly, or with another change', async (t) => {
  const { s } = await service(t);
  const refusal = async (template: string, resourcesToImport: unknown) => {
    const put = await s.call('PUT', '/v1/stacks/app', { template, resourcesToImport });
    assert.equal(put.status, 400, JSON.stringify(put.body));
    return put.body as { message: string; details: { pointer: string; message: string }[] };
  };
  const deletable = await refusal(legacy('red', 'Delete'), [toImport('Legacy', 'legacy')]);
  assert.match(
    deletable.details[0]!.message,
    /'Legacy' needs DeletionPolicy: Retain in the template \(line 2\)/,
  );

  const unknown = await refusal(legacy('red'), [toImport('Legacy', 'nowhere')]);
  assert.match(
    unknown.details[0]!.message,
    /no record of Test::Shop::Widget nowhere: import it from its provider first \('typeplane resource import Test::Shop::Widget nowhere'\)/,
  );

  const badly = await refusal(legacy('red'), [
    { LogicalResourceId: 'Nope', ResourceType: WIDGET_TYPE, ResourceIdentifier: { Name: 'legacy' } },
    { LogicalResourceId: 'Legacy', ResourceType: 'Other::Type', ResourceIdentifier: { Name: 'legacy' } },
  ]);
  assert.deepEqual(
    badly.details.map((d) => d.pointer),
    ['/resourcesToImport/0/LogicalResourceId', '/resourcesToImport/1/ResourceType'],
  );
  const keyed = await refusal(legacy('red'), [
    { LogicalResourceId: 'Legacy', ResourceType: WIDGET_TYPE, ResourceIdentifier: { Id: 'legacy' } },
  ]);
  assert.match(keyed.details[0]!.message, /identified by Name; missing: Name; not of its identifier: Id/);
  const shaped = await refusal(legacy('red'), { Legacy: 'legacy' });
  assert.equal(shaped.details[0]!.pointer, '/resourcesToImport');

  const more = `${legacy('red')}  Extra:\n    Type: ${WIDGET_TYPE}\n    Properties: { Name: extra }\n`;
  const added = await refusal(more, [toImport('Legacy', 'legacy')]);
  assert.match(added.message, /Extra would be added: an import changes nothing but the resources it imports/);
  const renamed = await refusal(legacy('red').replace('Name: legacy', 'Name: spare'), [
    toImport('Legacy', 'legacy'),
  ]);
  assert.match(renamed.message, /Legacy's properties identify spare, not legacy, the resource to import/);
  const conditioned = await refusal(
    `Conditions:\n  Never: !Equals [a, b]\n${legacy('red').replace('    DeletionPolicy', '    Condition: Never\n    DeletionPolicy')}`,
    [toImport('Legacy', 'legacy')],
  );
  assert.match(conditioned.message, /Legacy is not made by this template \(its Condition is false\)/);
  assert.equal((await s.call('GET', '/v1/stacks/app')).status, 404, 'no stack was made');
});

test('an import rolled back leaves what it had imported where it was: kept at its provider, recorded, out of the stack', async (t) => {
  let spareReads = 0;
  const provider = memoryProvider({
    read: (req, store) => {
      // Read when the import is checked, then lost before the deployment reads it again.
      if (req.desiredState.Name === 'spare' && ++spareReads > 1)
        return { status: 'FAILED', errorCode: 'NotFound', message: 'spare is gone' };
      const model = store.get(String(req.desiredState.Name));
      return model
        ? { status: 'SUCCESS', resourceModel: model }
        : { status: 'FAILED', errorCode: 'NotFound' };
    },
  });
  const s = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  for (const name of ['legacy', 'spare']) {
    const made = await s.call('POST', `/v1/resources/${T}`, { desiredState: { Name: name } });
    assert.equal((await settle(s, made.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  }
  const template = [
    'Resources:',
    '  Legacy:',
    `    Type: ${WIDGET_TYPE}`,
    '    DeletionPolicy: Retain',
    '    Properties: { Name: legacy }',
    '  Spare:',
    `    Type: ${WIDGET_TYPE}`,
    '    DeletionPolicy: Retain',
    '    DependsOn: Legacy',
    '    Properties: { Name: spare }',
  ].join('\n');
  const put = await s.call('PUT', '/v1/stacks/app?wait=20', {
    template,
    resourcesToImport: [toImport('Legacy', 'legacy'), toImport('Spare', 'spare')],
  });
  assert.equal(put.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(put.body.stack));
  assert.match(put.body.stack.statusReason, /Spare: NotFound/);
  assert.deepEqual(put.body.stack.resources, []);
  assert.equal(provider.calls.filter((c) => c.action === 'delete').length, 0, 'nothing deleted');
  const events = (await s.call('GET', '/v1/stacks/app/events')).body.events.map(
    (e: { logicalId: string; status: string }) => `${e.logicalId} ${e.status}`,
  );
  assert.ok(events.includes('Legacy IMPORT_COMPLETE'), events.join('\n'));
  assert.ok(events.includes('Spare IMPORT_FAILED'), events.join('\n'));
  assert.ok(events.includes('Legacy DELETE_SKIPPED'), events.join('\n'));
  assert.equal((await s.call('GET', `/v1/resources/${T}/legacy`)).status, 200);
  const again = await s.call('PUT', '/v1/stacks/other?wait=20', {
    template: legacy('red').replace('Color: red', 'Size: S'),
    resourcesToImport: [toImport('Legacy', 'legacy')],
  });
  assert.equal(again.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(again.body.stack));
});

test('an import into an existing stack leaves its resources as they are; its client token covers what it imports', async (t) => {
  const { s, provider } = await service(t);
  const own = `  Own:\n    Type: ${WIDGET_TYPE}\n    Properties: { Name: own }\n`;
  const first = await s.call('PUT', '/v1/stacks/app?wait=20', { template: `Resources:\n${own}` });
  assert.equal(first.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(first.body.stack));
  const template = `${legacy('red')}${own}`;
  const plan = await s.call('POST', '/v1/stacks/app/plans', {
    template,
    resourcesToImport: [toImport('Legacy', 'legacy')],
  });
  assert.deepEqual(
    plan.body.changes.map((c: { action: string; logicalId: string }) => `${c.action} ${c.logicalId}`),
    ['Import Legacy', 'NoChange Own'],
  );
  const calls = provider.calls.length;
  const put = await s.call('PUT', '/v1/stacks/app?wait=20', {
    template,
    resourcesToImport: [toImport('Legacy', 'legacy')],
    clientToken: 'import-1',
  });
  assert.equal(put.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(put.body.stack));
  assert.deepEqual(
    provider.calls.slice(calls).map((c) => c.action),
    ['read', 'read'],
    'read when checked and when imported; nothing else',
  );
  const other = await s.call('PUT', '/v1/stacks/app', {
    template,
    resourcesToImport: [toImport('Legacy', 'spare')],
    clientToken: 'import-1',
  });
  assert.equal(other.status, 400, 'the same client token with other resources to import is another request');
  assert.match(other.body.message, /clientToken was already used for a different request/);
});

for (const kind of ['sqlite', 'postgresql'] as const)
  test(
    `two imports of one resource into two stacks at once: one is begun, the other refused with 409 [${kind}]`,
    { skip: kind === 'postgresql' && pgSkip },
    async (t) => {
      // Each import reads the resource before it begins: both reads are held until both arrived, so
      // both requests have checked that no stack holds it before either begins.
      let arrived = 0;
      let release!: () => void;
      const both = new Promise<void>((r) => (release = r));
      const provider = memoryProvider({
        read: async (req, store) => {
          if (++arrived === 2) release();
          await Promise.race([both, new Promise((r) => setTimeout(r, 5000))]);
          const model = store.get(String(req.desiredState.Name));
          return model
            ? { status: 'SUCCESS', resourceModel: model }
            : { status: 'FAILED', errorCode: 'NotFound' };
        },
      });
      provider.store.set('legacy', { Name: 'legacy', Color: 'red' });
      const s = await serviceOn(t, kind, { providers: new Map([[WIDGET_TYPE, provider]]) });
      assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
      assert.equal((await s.call('POST', `/v1/resources/${T}/legacy/import`)).status, 200);
      arrived = 0;
      const [a, b] = await Promise.all(
        ['one', 'two'].map((stack) =>
          s.call('PUT', `/v1/stacks/${stack}`, {
            template: legacy('red'),
            resourcesToImport: [toImport('Legacy', 'legacy')],
          }),
        ),
      );
      const statuses = [a!.status, b!.status].sort();
      assert.equal(statuses[1], 409, `${JSON.stringify(a!.body)} ${JSON.stringify(b!.body)}`);
      assert.ok(statuses[0]! < 300, JSON.stringify([a!.body, b!.body]));
      const won = a!.status === 409 ? 'two' : 'one';
      const refused = a!.status === 409 ? a! : b!;
      assert.equal(refused.body.errorCode, 'ResourceConflict');
      assert.match(
        refused.body.message,
        new RegExp(
          `Test::Shop::Widget legacy is being imported into stack ${won} by a deployment in progress`,
        ),
      );
      let stack;
      for (let i = 0; i < 100; i++) {
        stack = (await s.call('GET', `/v1/stacks/${won}`)).body;
        if (!String(stack.status).endsWith('IN_PROGRESS')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(stack.status, 'CREATE_COMPLETE', JSON.stringify(stack));
      assert.deepEqual(
        stack.resources.map((r: { identifier: string }) => r.identifier),
        ['legacy'],
      );
      // The refused one began nothing: no stack, or one that never held the resource.
      const other = await s.call('GET', `/v1/stacks/${won === 'one' ? 'two' : 'one'}`);
      assert.ok(other.status === 404 || other.body.resources.length === 0, JSON.stringify(other.body));
    },
  );

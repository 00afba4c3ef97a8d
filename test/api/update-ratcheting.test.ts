/**
 * Validation ratcheting over HTTP, on both stores and with both kinds of provider (the state provider,
 * whose record is the resource, and one that answers from its own memory): after a tightened version
 * is registered, a resource written under the older one can still be updated for unrelated changes,
 * values it leaves as they were may keep violating the new version, and changed or new values must
 * satisfy it. Reads keep serving the stored model.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { memoryProvider } from '../helpers/providers.js';
import type { TestService } from '../helpers/service.js';

const STATE = 'Test::Ratchet::Widget';
const REMOTE = 'Test::Ratchet::Remote';

function widget(typeName: string, tightened: boolean): string {
  return JSON.stringify(
    {
      typeName,
      description: 'A widget whose schema tightens.',
      properties: {
        Name: { type: 'string' },
        Size: { type: 'string', enum: tightened ? ['S', 'M'] : ['S', 'M', 'L'] },
        Label: { type: 'string', ...(tightened ? { pattern: '^[a-z]+$' } : {}) },
        Tags: { type: 'array', items: { type: 'string', maxLength: tightened ? 3 : 10 } },
        Colour: { type: 'string' },
      },
      additionalProperties: false,
      required: ['Name'],
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
    },
    null,
    2,
  );
}

async function patch(svc: TestService, typeName: string, patchDocument: unknown[]) {
  return svc.call('PATCH', `/v1/resources/${encodeURIComponent(typeName)}/w1?wait=10`, { patchDocument });
}

for (const typeName of [STATE, REMOTE]) {
  eachStoreService(
    `${typeName === STATE ? 'state provider' : 'a provider of its own'}: unchanged values may keep violating a tightened version`,
    async (svc) => {
      const T = encodeURIComponent(typeName);
      assert.equal((await svc.call('POST', '/v1/types', widget(typeName, false))).status, 201);
      const created = await svc.call('POST', `/v1/resources/${T}?wait=10`, {
        desiredState: { Name: 'w1', Size: 'L', Label: 'Mixed-Case', Tags: ['long-tag', 'ok'] },
      });
      assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
      const tightened = await svc.call('POST', '/v1/types?allowBreaking=true', widget(typeName, true));
      assert.equal(tightened.status, 201, JSON.stringify(tightened.body));
      assert.deepEqual(tightened.body.types[0].violations.identifiers, ['w1']);

      // An unrelated change: Size, Label and the long tag stay as they were, violating version 2.
      const unrelated = await patch(svc, typeName, [{ op: 'add', path: '/Colour', value: 'blue' }]);
      assert.equal(unrelated.status, 202, JSON.stringify(unrelated.body));
      assert.equal(unrelated.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(unrelated.body));
      const shown = await svc.call('GET', `/v1/types/${T}`);
      assert.equal(shown.body.versions.find((v: { version: string }) => v.version === '2').resourceCount, 1);

      // And again, now that it was last written under version 2.
      const again = await patch(svc, typeName, [{ op: 'replace', path: '/Colour', value: 'red' }]);
      assert.equal(again.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(again.body));

      // A changed value must satisfy version 2 …
      const changed = await patch(svc, typeName, [{ op: 'replace', path: '/Label', value: 'Still-Mixed' }]);
      assert.equal(changed.status, 400);
      assert.deepEqual(
        changed.body.details.map((d: { pointer: string }) => d.pointer),
        ['/Label'],
        'only the changed value is named',
      );
      const item = await patch(svc, typeName, [{ op: 'add', path: '/Tags/-', value: 'toolong' }]);
      assert.equal(item.status, 400);
      assert.deepEqual(
        item.body.details.map((d: { pointer: string }) => d.pointer),
        ['/Tags/2'],
      );
      const size = await patch(svc, typeName, [{ op: 'replace', path: '/Size', value: 'L2' }]);
      assert.equal(size.status, 400);
      // … and a value changed to one version 2 accepts is taken.
      const fixed = await patch(svc, typeName, [{ op: 'replace', path: '/Label', value: 'lower' }]);
      assert.equal(fixed.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(fixed.body));

      // A create-or-replace of the resource is an update too: what it keeps may keep violating.
      const replaced = await svc.call('PUT', `/v1/resources/${T}/w1?wait=10`, {
        desiredState: { Name: 'w1', Size: 'L', Label: 'lower', Tags: ['long-tag', 'ok'], Colour: 'green' },
      });
      assert.equal(replaced.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(replaced.body));
      const replacedBadly = await svc.call('PUT', `/v1/resources/${T}/w1`, {
        desiredState: { Name: 'w1', Size: 'L', Label: 'Upper' },
      });
      assert.equal(replacedBadly.status, 400);
      assert.deepEqual(
        replacedBadly.body.details.map((d: { pointer: string }) => d.pointer),
        ['/Label'],
      );

      const read = await svc.call('GET', `/v1/resources/${T}/w1`);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.equal(read.body.properties.Size, 'L', 'reads serve the stored model');
      assert.deepEqual(read.body.properties.Tags, ['long-tag', 'ok']);
      assert.equal(read.body.properties.Label, 'lower');

      // A new resource gets no such allowance.
      const fresh = await svc.call('POST', `/v1/resources/${T}`, {
        desiredState: { Name: 'w2', Size: 'L' },
      });
      assert.equal(fresh.status, 400);
    },
    () => ({ providers: new Map([[REMOTE, memoryProvider()]]) }),
  );
}

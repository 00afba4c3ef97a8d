/**
 * An instance's record is written by its operations (one at a time, under the engine's lock) and by two
 * writers that hold none: an upgrade asked for (it marks the version to move to) and a stack written
 * for a drift check (it drops what the create made without one). Those two replace the record only
 * while it is the one they read: a write between their read and theirs is never undone. Over real
 * HTTP and the service's own store, on each store.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { eachStoreService } from '../helpers/each-store.js';
import { settle } from '../helpers/service.js';
import { RecipeStore } from '../../src/recipes/records.js';
import { createSealer } from '../../src/secrets/sealer.js';
import { RECIPE, registerSampleTypes, SAMPLE_TYPE } from './fixtures.js';

const SAMPLE = `/v1/resources/${encodeURIComponent(SAMPLE_TYPE)}`;
const secretKey = randomBytes(32).toString('base64');

eachStoreService(
  'a record swap takes only the record as read: a second swap from the same read is refused, and an instance being deleted is not upgraded',
  async (s) => {
    await registerSampleTypes(s);
    assert.equal(
      (await s.call('POST', '/v1/recipes', { typeName: SAMPLE_TYPE, template: RECIPE })).status,
      201,
    );
    const made = await s.call('POST', SAMPLE, { desiredState: { name: 'orders', size: 'S' } });
    assert.equal((await settle(s, made.body.progressEvent.requestToken, 20_000)).operationStatus, 'SUCCESS');
    const records = new RecipeStore(s.store, createSealer(Buffer.from(secretKey, 'base64')));
    const { type } = await s.registry.get(SAMPLE_TYPE);

    const read = await records.getInstance(SAMPLE_TYPE, 'orders');
    assert.ok(read);
    assert.equal(await records.swapInstance(type, { ...read.record, upgradeTo: 7 }, read.writtenBy), true);
    // The same read again: the record has changed since, and the second writer's change is refused.
    assert.equal(
      await records.swapInstance(type, { ...read.record, phase: 'deleting' }, read.writtenBy),
      false,
    );
    const now = await records.getInstance(SAMPLE_TYPE, 'orders');
    assert.equal(now?.record.upgradeTo, 7);
    assert.equal(now?.record.phase, 'ready');
    assert.notEqual(now?.writtenBy, read.writtenBy, 'a swap stamps the record anew');

    // A deletion that could not finish leaves the instance marked: an upgrade asked for then is refused.
    assert.equal(
      await records.swapInstance(type, { ...now!.record, phase: 'deleting' }, now!.writtenBy),
      true,
    );
    const refused = await s.call('POST', `${SAMPLE}/orders/upgrade`, {});
    assert.equal(refused.status, 404, JSON.stringify(refused.body));
    assert.match(refused.body.message, /orders is being deleted/);
    const drift = await s.call('GET', `${SAMPLE}/orders/drift`);
    assert.equal(drift.status, 404, JSON.stringify(drift.body));
    assert.match(drift.body.message, /orders is being deleted/);
  },
  () => ({ secretKey }),
);

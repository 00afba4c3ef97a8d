/**
 * A composed create (a recipe instance of record-backed resources, written whole in one transaction)
 * is traced as one span under the request's, `compose CREATE`, with the one store transaction that
 * writes it under that: no `begin CREATE` or step, for no handler runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RECIPE, registerSampleTypes, SAMPLE_TYPE } from '../recipes/fixtures.js';
import { attribute, names, setUp, tracedCreate } from './traced-server.js';

test('a composed create is one span under its request, holding the one transaction that writes it', async (t) => {
  const setup = await setUp(t, {});
  await registerSampleTypes(setup.client);
  const reg = await setup.client.call('POST', '/v1/recipes', { typeName: SAMPLE_TYPE, template: RECIPE });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  const { spans, childrenOf, root } = await tracedCreate(
    setup,
    `/v1/resources/${encodeURIComponent(SAMPLE_TYPE)}`,
    { name: 'orders', size: 'S' },
  );
  const compose = childrenOf(root).find((s) => s.name === 'compose CREATE');
  assert.ok(compose, `under the request: ${names(childrenOf(root))}`);
  assert.equal(attribute(compose, 'typeplane.type_name'), SAMPLE_TYPE);
  assert.equal(attribute(compose, 'typeplane.identifier'), 'orders');
  assert.ok(
    childrenOf(compose).some((s) => s.name === 'sqlite group commit'),
    `its transaction under it: ${names(childrenOf(compose))}`,
  );
  assert.equal(
    spans.filter((s) => s.name === 'begin CREATE' || s.name === 'step CREATE').length,
    0,
    `no operation begun or stepped: ${names(spans)}`,
  );
});

/**
 * A type name that is not registered answers NotFound with the registered names close to it
 * ("did you mean …?"), in the message and as `suggestions` in a detail; never a name the caller's
 * token may not see.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, api, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
});
after(() => svc.close());

const enc = encodeURIComponent;

function suggestionsOf(body: { details: { suggestions?: string[] }[] }): string[] | undefined {
  return body.details.find((d) => Array.isArray(d.suggestions))?.suggestions;
}

test('a type name in the wrong case or missing a letter suggests the registered one', async () => {
  for (const mistyped of ['Test::Shop::widget', 'Test::Shop::Widgt', 'widgets']) {
    const res = await svc.call('GET', `/v1/types/${enc(mistyped)}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errorCode, 'NotFound');
    assert.match(res.body.message, /did you mean Test::Shop::Widget\?/);
    assert.deepEqual(suggestionsOf(res.body), [WIDGET_TYPE]);
  }
});

test('resource routes suggest too', async () => {
  const res = await svc.call('POST', `/v1/resources/${enc('Test::Shop::Widgets')}`, {
    desiredState: { Name: 'x' },
  });
  assert.equal(res.status, 404);
  assert.deepEqual(suggestionsOf(res.body), [WIDGET_TYPE]);
});

test('a name close to nothing has no suggestion', async () => {
  const res = await svc.call('GET', `/v1/types/${enc('Org::Service::Unrelated')}`);
  assert.equal(res.status, 404);
  assert.doesNotMatch(res.body.message, /did you mean/);
  assert.equal(suggestionsOf(res.body), undefined);
});

test('a scoped token is never told of a type outside its scope', async () => {
  const created = await svc.call('POST', '/v1/tokens', { role: 'reader', types: ['Test::Shop::Widgets'] });
  assert.equal(created.status, 201);
  const reader = api(svc.url, created.body.token);
  const res = await reader.call('GET', `/v1/types/${enc('Test::Shop::Widgets')}`);
  assert.equal(res.status, 404);
  assert.doesNotMatch(JSON.stringify(res.body), /Test::Shop::Widget\b(?!s)/);
  assert.equal(suggestionsOf(res.body), undefined);
});

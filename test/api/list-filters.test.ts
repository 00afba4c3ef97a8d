/**
 * List filters: other query parameters than maxResults and nextToken name top-level scalar properties
 * and must all match (AND); a parameter that cannot be a filter is a 400 naming it, never ignored.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { settle, startTestService, type TestService } from '../helpers/service.js';

const TYPE = 'Test::Filter::Device';
const T = encodeURIComponent(TYPE);
let svc: TestService;

before(async () => {
  svc = await startTestService();
  const schema = {
    typeName: TYPE,
    description: 'A device, for list filters.',
    properties: {
      Name: { type: 'string' },
      Kind: { type: 'string', enum: ['sensor', 'switch'] },
      Enabled: { type: 'boolean' },
      Port: { type: 'integer' },
      Tags: { type: 'array', items: { type: 'string' } },
      Secret: { type: 'string' },
    },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
    writeOnlyProperties: ['/properties/Secret'],
  };
  assert.equal((await svc.call('POST', '/v1/types', schema)).status, 201);
  const devices = [
    { Name: 'a', Kind: 'sensor', Enabled: true, Port: 80 },
    { Name: 'b', Kind: 'switch', Enabled: true, Port: 8080 },
    { Name: 'c', Kind: 'sensor', Enabled: false, Port: 8080 },
    { Name: 'd', Kind: 'sensor', Enabled: true, Port: 8080, Secret: 'hunter22' },
    { Name: 'e' },
  ];
  for (const desiredState of devices) {
    const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState });
    assert.equal((await settle(svc, res.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  }
});
after(() => svc.close());

/** Every identifier a filtered listing returns, following nextToken with `maxResults` per page. */
async function names(query: string, maxResults = 100): Promise<string[]> {
  const out: string[] = [];
  let nextToken: string | null = null;
  do {
    const tokenPart: string = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
    const res = await svc.call('GET', `/v1/resources/${T}?maxResults=${maxResults}&${query}${tokenPart}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.resourceDescriptions.length <= maxResults);
    out.push(...res.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier));
    nextToken = res.body.nextToken;
  } while (nextToken);
  return out;
}

test('one filter keeps the resources whose property equals the value', async () => {
  assert.deepEqual(await names('Kind=sensor'), ['a', 'c', 'd']);
  assert.deepEqual(await names('Port=8080'), ['b', 'c', 'd']);
  assert.deepEqual(await names('Enabled=false'), ['c']);
});

test('several filters must all match (AND), page by page too', async () => {
  assert.deepEqual(await names('Kind=sensor&Enabled=true'), ['a', 'd']);
  assert.deepEqual(await names('Kind=sensor&Port=8080', 1), ['c', 'd']);
  assert.deepEqual(await names('Kind=switch&Enabled=false'), []);
});

test('a value of another type matches nothing (no coercion beyond the property type)', async () => {
  assert.deepEqual(await names('Port=08080'), []);
  assert.deepEqual(await names('Enabled=1'), []);
});

test('a parameter that cannot be a filter is a 400 naming it', async () => {
  for (const [query, why] of [
    ['Knd=sensor', /Knd is not a property/],
    ['Tags=x', /Tags is not a string, number, integer or boolean/],
    ['Secret=hunter22', /Secret is write-only/],
    ['Kind=sensor&Kind=switch', /given more than once/],
  ] as const) {
    const res = await svc.call('GET', `/v1/resources/${T}?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(res.body.errorCode, 'InvalidRequest');
    assert.match(res.body.message, why);
  }
  const unknown = await svc.call('GET', `/v1/resources/${T}?Knd=sensor`);
  assert.match(
    unknown.body.message,
    /Kind, Enabled, Port/,
    'the message names the properties that can be filtered on',
  );
});

test('?version= names the type version the filters are checked against, and is no filter itself', async () => {
  assert.deepEqual(await names('version=1&Kind=sensor'), ['a', 'c', 'd']);
  assert.deepEqual(await names('version=1'), ['a', 'b', 'c', 'd', 'e']);
  const missing = await svc.call('GET', `/v1/resources/${T}?version=9&Kind=sensor`);
  assert.equal(missing.status, 404, JSON.stringify(missing.body));
  assert.match(missing.body.message, /has no version "9"/);
  const bad = await svc.call('GET', `/v1/resources/${T}?version=latest`);
  assert.equal(bad.status, 400);
  assert.match(bad.body.message, /version must be a version number/);
});

/**
 * `$ref` cycles: a schema that comes back to itself without a property or item in between is refused
 * with one located verdict (TP2017) by `validate` and by registration alike; a recursive shape that
 * recurs under `properties` or `items` is accepted by both and works.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validateDocument } from '../../src/schema/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

function schema(definitions: unknown, typeName = 'Test::Cycle::Thing'): string {
  return JSON.stringify(
    {
      typeName,
      description: 'A thing.',
      definitions,
      properties: { Name: { type: 'string' }, Spec: { $ref: '#/definitions/A' } },
      additionalProperties: false,
      required: ['Name'],
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
    },
    null,
    2,
  );
}

const CYCLES: [string, unknown, string][] = [
  ['a definition that is its own $ref', { A: { $ref: '#/definitions/A' } }, '/definitions/A/$ref'],
  [
    'two definitions referring to each other',
    { A: { $ref: '#/definitions/B' }, B: { $ref: '#/definitions/A' } },
    '/definitions/B/$ref',
  ],
  [
    'a cycle through a $ref into a keyword the other checks do not walk (not)',
    { A: { $ref: '#/definitions/B/not' }, B: { type: 'string', not: { $ref: '#/definitions/A' } } },
    '/definitions/B/not/$ref',
  ],
  [
    'a cycle between keywords the other checks do not walk (not, additionalProperties)',
    {
      A: { $ref: '#/definitions/B/not' },
      B: {
        type: 'object',
        not: { $ref: '#/definitions/B/additionalProperties' },
        additionalProperties: { $ref: '#/definitions/A' },
      },
    },
    '/definitions/B/additionalProperties/$ref',
  ],
  ['a cycle through allOf', { A: { allOf: [{ $ref: '#/definitions/A' }] } }, '/definitions/A/allOf/0/$ref'],
  [
    'a cycle through anyOf',
    { A: { anyOf: [{ type: 'string' }, { $ref: '#/definitions/A' }] } },
    '/definitions/A/anyOf/1/$ref',
  ],
];

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

describe('a $ref cycle without a value in between', () => {
  for (const [name, definitions, pointer] of CYCLES) {
    it(`${name}: validate and registration both refuse it with TP2017 at ${pointer}`, async () => {
      const text = schema(definitions);
      const result = validateDocument(text, { file: 'cycle.json' });
      assert.equal(result.valid, false);
      const found = result.diagnostics.filter((d) => d.rule === 'TP2017');
      assert.equal(found.length, 1, JSON.stringify(result.diagnostics));
      assert.equal(found[0]!.pointer, pointer);
      assert.equal(typeof found[0]!.line, 'number');
      assert.match(found[0]!.message, /cycle: .*\/definitions\/A/);

      const res = await svc.call('POST', '/v1/types', text);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.errorCode, 'InvalidRequest');
      assert.doesNotMatch(res.body.message, /call stack/i);
      const detail = res.body.details.find((d: { rule: string }) => d.rule === 'TP2017');
      assert.equal(detail?.pointer, pointer, JSON.stringify(res.body));
      assert.equal(typeof detail.line, 'number');
    });
  }

  it('a self-referring definition that no property uses is left alone (a published AWS schema has one)', () => {
    const text = schema({ A: { type: 'string' }, Unused: { $ref: '#/definitions/Unused' } });
    assert.deepEqual(validateDocument(text).diagnostics, []);
  });
});

describe('a recursive shape under properties or items', () => {
  it('is accepted by validate and by registration, and resources of it are created', async () => {
    const text = schema(
      {
        A: {
          type: 'object',
          properties: {
            Label: { type: 'string' },
            Children: { type: 'array', items: { $ref: '#/definitions/A' } },
          },
          additionalProperties: false,
        },
      },
      'Test::Cycle::Tree',
    );
    assert.deepEqual(validateDocument(text).diagnostics, []);
    assert.equal((await svc.call('POST', '/v1/types', text)).status, 201);
    const spec = { Label: 'root', Children: [{ Label: 'leaf', Children: [] }] };
    const created = await svc.call(
      'POST',
      `/v1/resources/${encodeURIComponent('Test::Cycle::Tree')}?wait=5`,
      {
        desiredState: { Name: 't1', Spec: spec },
      },
    );
    assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
    const bad = await svc.call('POST', `/v1/resources/${encodeURIComponent('Test::Cycle::Tree')}`, {
      desiredState: { Name: 't2', Spec: { Children: [{ Children: [{ Label: 3 }] }] } },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /Children\/0\/Children\/0\/Label/);
  });
});

/**
 * Validation rules in a type's schema (CEL) over real HTTP on each store: a failing rule refuses a
 * create, PATCH or PUT with 400 and its verdicts (name, message or messageExpression, fieldPath's
 * pointer, reason) and writes nothing; transition rules read the stored state as oldSelf; an update
 * that leaves a failing value as it was is not refused (ratcheting); a rule that does not compile or
 * costs too much is refused at registration, located; a value too large for the request's budget is
 * refused before the rule runs; a messageExpression never sees a write-only value; manifests too.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { settle, type Api } from '../helpers/service.js';

const T = 'Test::Rules::Scaler';
const SCALER = {
  typeName: T,
  description: 'A scaler with rules.',
  additionalProperties: false,
  'x-typeplane-validations': [
    {
      rule: 'self.MinReplicas <= self.MaxReplicas',
      message: 'MinReplicas must not exceed MaxReplicas',
      fieldPath: '.MinReplicas',
      reason: 'FieldValueForbidden',
    },
    {
      rule: '!has(self.Password) || self.Password.size() >= 8',
      messageExpression: "'the password of ' + self.Name + ' is too short: ' + string(self.Password)",
    },
  ],
  properties: {
    Name: { type: 'string', maxLength: 40 },
    MinReplicas: { type: 'integer' },
    MaxReplicas: { type: 'integer' },
    Size: {
      type: 'integer',
      'x-kubernetes-validations': [
        {
          rule: 'self >= oldSelf',
          messageExpression: "'Size may grow but never shrink: ' + string(oldSelf) + ' -> ' + string(self)",
        },
      ],
    },
    Tier: { type: 'string', 'x-typeplane-validations': [{ rule: "self in ['dev', 'prod']" }] },
    // Two rules of about 7 million units each at the schema's bounds (Kubernetes' static limit is 10
    // million each): the request's rule budget of 2 million holds them only on smaller values.
    Items: {
      type: 'array',
      maxItems: 1000,
      items: { type: 'string', maxLength: 10 },
      'x-typeplane-validations': [
        { rule: "self.all(i, i.contains('x'))" },
        { rule: 'self.all(a, self.exists_one(b, a == b))', message: 'Items must be unique' },
        { rule: 'self.all(a, self.exists_one(b, b == a))', message: 'Items must be unique' },
      ],
    },
    Password: { type: 'string' },
  },
  required: ['Name', 'MinReplicas', 'MaxReplicas'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  writeOnlyProperties: ['/properties/Password'],
};

async function create(svc: Api, desiredState: Record<string, unknown>) {
  return svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState });
}

eachStoreService(
  'schema rules refuse creates, PATCHes and PUTs with 400 and their verdicts; transitions, ratcheting',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', SCALER)).status, 201);

    const refused = await create(svc, { Name: 'a', MinReplicas: 5, MaxReplicas: 3 });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.errorCode, 'InvalidRequest');
    assert.deepEqual(refused.body.details, [
      {
        source: 'rule',
        name: '/x-typeplane-validations/0',
        action: 'Deny',
        message: 'MinReplicas must not exceed MaxReplicas',
        pointer: '/MinReplicas',
        reason: 'FieldValueForbidden',
      },
    ]);
    assert.equal((await svc.call('GET', `/v1/resources/${T}/a`)).status, 404, 'nothing written');

    const noMessage = await create(svc, { Name: 'a', MinReplicas: 1, MaxReplicas: 3, Tier: 'qa' });
    assert.equal(noMessage.status, 400);
    assert.equal(noMessage.body.details[0].message, "failed rule: self in ['dev', 'prod']");
    assert.equal(noMessage.body.details[0].pointer, '/Tier');
    assert.equal(noMessage.body.details[0].reason, 'FieldValueInvalid');

    // The messageExpression reads the value without its write-only properties: it fails, the default is told.
    const secret = await create(svc, { Name: 'a', MinReplicas: 1, MaxReplicas: 3, Password: 'hunter2' });
    assert.equal(secret.status, 400);
    assert.ok(!JSON.stringify(secret.body).includes('hunter2'), JSON.stringify(secret.body));

    const made = await create(svc, {
      Name: 'a',
      MinReplicas: 1,
      MaxReplicas: 3,
      Size: 10,
      Password: 'long enough',
    });
    assert.equal(made.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(made.body));

    // Transition rule on PATCH: the stored Size is oldSelf.
    const shrink = await svc.call('PATCH', `/v1/resources/${T}/a`, {
      patchDocument: [{ op: 'replace', path: '/Size', value: 4 }],
    });
    assert.equal(shrink.status, 400, JSON.stringify(shrink.body));
    assert.equal(shrink.body.details[0].message, 'Size may grow but never shrink: 10 -> 4');
    assert.equal(shrink.body.details[0].name, '/properties/Size/x-kubernetes-validations/0');
    const grow = await svc.call('PATCH', `/v1/resources/${T}/a?wait=10`, {
      patchDocument: [{ op: 'replace', path: '/Size', value: 12 }],
    });
    assert.equal(grow.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(grow.body));

    // … and on PUT.
    const put = await svc.call('PUT', `/v1/resources/${T}/a`, {
      desiredState: { Name: 'a', MinReplicas: 1, MaxReplicas: 3, Size: 2 },
    });
    assert.equal(put.status, 400);
    assert.match(put.body.details[0].message, /never shrink: 12 -> 2/);
    const read = await svc.call('GET', `/v1/resources/${T}/a`);
    assert.equal(read.body.properties.Size, 12, 'nothing written');
  },
);

eachStoreService(
  'ratcheting: a value an update leaves as it was is not refused by a rule added since',
  async (svc) => {
    const loose = structuredClone(SCALER) as any;
    loose.properties.Tier = { type: 'string' };
    assert.equal((await svc.call('POST', '/v1/types', loose)).status, 201);
    const made = await create(svc, { Name: 'r', MinReplicas: 1, MaxReplicas: 3, Tier: 'qa' });
    assert.equal(made.body.progressEvent.operationStatus, 'SUCCESS');
    // The type's schema now refuses Tier 'qa' (a new version, the default).
    const update = await svc.call('POST', '/v1/types?allowBreaking=true', SCALER);
    assert.ok([200, 201].includes(update.status), JSON.stringify(update.body));
    const other = await svc.call('PATCH', `/v1/resources/${T}/r?wait=10`, {
      patchDocument: [{ op: 'replace', path: '/MaxReplicas', value: 4 }],
    });
    assert.equal(other.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(other.body));
    const touched = await svc.call('PATCH', `/v1/resources/${T}/r`, {
      patchDocument: [{ op: 'replace', path: '/Tier', value: 'test' }],
    });
    assert.equal(touched.status, 400);
    assert.equal(touched.body.details[0].pointer, '/Tier');
  },
);

eachStoreService(
  'a rule that does not compile or costs too much is refused at registration, located',
  async (svc) => {
    const typo = structuredClone(SCALER) as any;
    typo['x-typeplane-validations'][0].rule = 'self.MinReplicas <= self.MaxReplica';
    const bad = await svc.call('POST', '/v1/types', typo);
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    const detail = bad.body.details.find((d: any) => d.rule === 'TP9002');
    assert.ok(detail, JSON.stringify(bad.body));
    assert.equal(detail.pointer, '/x-typeplane-validations/0/rule');
    assert.match(detail.message, /undefined field 'MaxReplica'/);

    // A literal pattern that is no RE2 expression: refused here, not on every value it would be given.
    const pattern = structuredClone(SCALER) as any;
    pattern.properties.Tier['x-typeplane-validations'] = [{ rule: "self.matches('^(dev|prod')" }];
    const badPattern = await svc.call('POST', '/v1/types', pattern);
    assert.equal(badPattern.status, 400, JSON.stringify(badPattern.body));
    const patternDetail = badPattern.body.details.find((d: any) => d.rule === 'TP9002');
    assert.equal(
      patternDetail?.pointer,
      '/properties/Tier/x-typeplane-validations/0/rule',
      JSON.stringify(badPattern.body),
    );
    assert.match(patternDetail.message, /matches\(\) pattern is not valid RE2/);

    const costly = structuredClone(SCALER) as any;
    costly.properties.Items['x-typeplane-validations'] = [
      { rule: 'self.all(a, self.all(b, self.all(c, a + b != c)))' },
    ];
    const refused = await svc.call('POST', '/v1/types', costly);
    assert.equal(refused.status, 400);
    assert.ok(
      refused.body.details.some((d: any) => d.rule === 'TP9003'),
      JSON.stringify(refused.body),
    );
  },
);

eachStoreService('a value too large for the request budget is refused before the rule runs', async (svc) => {
  assert.equal((await svc.call('POST', '/v1/types', SCALER)).status, 201);
  const items = Array.from({ length: 1000 }, (_, i) => `x${i}`);
  const started = performance.now();
  const big = await create(svc, { Name: 'big', MinReplicas: 1, MaxReplicas: 2, Items: items });
  assert.equal(big.status, 400, JSON.stringify(big.body).slice(0, 300));
  assert.match(big.body.details[0].message, /not evaluated: .*could cost \d+ units/);
  assert.match(big.body.details[0].message, /the request's rule budget of 2000000/);
  assert.ok(performance.now() - started < 5000);
  // Half as many: each unique-items rule ~1.75M units, the two together past 2M (within Kubernetes' 10M).
  const half = Array.from({ length: 500 }, (_, i) => `x${i}`);
  const middling = await create(svc, { Name: 'middling', MinReplicas: 1, MaxReplicas: 2, Items: half });
  assert.equal(middling.status, 400, JSON.stringify(middling.body).slice(0, 300));
  assert.match(middling.body.details[0].message, /rule budget of 2000000/);
  const small = await create(svc, { Name: 'small', MinReplicas: 1, MaxReplicas: 2, Items: ['ax', 'bx'] });
  assert.equal(small.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(small.body));
});

eachStoreService('a manifest type takes rules too', async (svc) => {
  const manifest = [
    'namespace: Acme.Rules',
    'types:',
    '  scalers:',
    '    description: Scales.',
    '    apiVersions:',
    "      '2025-01-01':",
    '        schema:',
    '          type: object',
    '          x-kubernetes-validations:',
    '            - rule: self.minReplicas <= self.maxReplicas',
    "              messageExpression: \"'min ' + string(self.minReplicas) + ' > max ' + string(self.maxReplicas)\"",
    '          properties:',
    '            minReplicas: { type: integer }',
    '            maxReplicas: { type: integer }',
  ].join('\n');
  const reg = await svc.call('POST', '/v1/types', manifest, { 'content-type': 'application/yaml' });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  const type = encodeURIComponent('Acme.Rules/scalers');
  const refused = await svc.call('POST', `/v1/resources/${type}`, {
    desiredState: { name: 'm', minReplicas: 3, maxReplicas: 1 },
  });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.equal(refused.body.details[0].message, 'min 3 > max 1');
  const ok = await svc.call('POST', `/v1/resources/${type}`, {
    desiredState: { name: 'm', minReplicas: 1, maxReplicas: 3 },
  });
  assert.ok([201, 202].includes(ok.status), JSON.stringify(ok.body));
  assert.equal((await settle(svc, ok.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
});

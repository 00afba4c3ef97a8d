/**
 * Admission policies over real HTTP on each store: an admin registers them (refused, located, when
 * they do not compile or could never run within the per-call cost limit); each action does what it
 * says — Deny refuses with 403 and the verdicts, writing nothing; Warn lets the change through with
 * `warnings` in the body, `Warning` headers and the operation's events; Audit is told to no one and recorded in the audit trail — and
 * policies bind by type glob and operation, read `params`, `matchConditions`, `messageExpression`,
 * who asks (role, description), and never a write-only value.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { api, WIDGET, WIDGET_TYPE, type Api } from '../helpers/service.js';

const policy = (name: string, extra: Record<string, unknown>) => ({
  name,
  match: { types: ['Test::Shop::*'], operations: ['CREATE', 'UPDATE'] },
  action: 'Deny',
  validations: [{ expression: 'true' }],
  ...extra,
});

async function tokenFor(admin: Api, role: string, more: Record<string, unknown> = {}): Promise<Api> {
  const made = await admin.call('POST', '/v1/tokens', { role, ...more });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return api(admin.url, made.body.token);
}

eachStoreService(
  'policies are an admin’s to register, checked and located when they do not compile',
  async (svc) => {
    const writer = await tokenFor(svc, 'writer');
    const scoped = await tokenFor(svc, 'reader', { types: ['Test::*'] });
    const reader = await tokenFor(svc, 'reader');
    const good = policy('no-red', { validations: [{ expression: "object.Color != 'red'" }] });
    assert.equal((await writer.call('POST', '/v1/policies', good)).status, 403);
    assert.equal((await svc.call('POST', '/v1/policies', good)).status, 201);
    assert.equal((await svc.call('POST', '/v1/policies', good)).status, 409, 'a name taken');
    const listed = await reader.call('GET', '/v1/policies');
    assert.deepEqual(
      listed.body.policies.map((p: any) => p.policy.name),
      ['no-red'],
    );
    assert.equal((await scoped.call('GET', '/v1/policies')).status, 403, 'a scoped token reads no policy');

    const bad = await svc.call('POST', '/v1/policies', {
      name: 'Bad Name',
      match: { types: ['Test::*'], operations: ['CREATE', 'PATCH'] },
      action: 'Block',
      validations: [{ expression: 'object.x ==' }],
    });
    assert.equal(bad.status, 400);
    const pointers = bad.body.details.map((d: any) => d.pointer);
    for (const p of ['/name', '/match/operations/1', '/action'])
      assert.ok(pointers.includes(p), `${p} in ${pointers}`);

    const syntax = await svc.call(
      'POST',
      '/v1/policies',
      policy('syntax', { validations: [{ expression: 'object.x == ' }] }),
    );
    assert.equal(syntax.status, 400);
    assert.equal(syntax.body.details[0].pointer, '/validations/0/expression');
    assert.equal(typeof syntax.body.details[0].column, 'number');
    const unknown = await svc.call(
      'POST',
      '/v1/policies',
      policy('typo', { validations: [{ expression: "request.rol == 'writer'" }] }),
    );
    assert.equal(unknown.status, 400, 'a field request does not have is refused at registration');
    // Nested comprehensions over what only the request body bounds register, as Kubernetes'
    // ValidatingAdmissionPolicy has them: each change's values are what its evaluation is charged.
    const nested = await svc.call(
      'POST',
      '/v1/policies',
      policy('nested', {
        validations: [{ expression: 'object.a.all(x, object.a.all(y, object.a.all(z, x + y + z != "")))' }],
      }),
    );
    assert.equal(nested.status, 201, JSON.stringify(nested.body));
    // Refused: what no change can make cheaper, nested comprehensions over params' own items.
    const costly = await svc.call(
      'POST',
      '/v1/policies',
      policy('costly', {
        params: { ids: Array.from({ length: 200 }, (_, i) => `id-${i}`) },
        validations: [
          { expression: 'params.ids.all(x, params.ids.all(y, params.ids.all(z, x + y + z != "")))' },
        ],
      }),
    );
    assert.equal(costly.status, 400);
    assert.equal(costly.body.details[0].pointer, '/validations/0/expression');
    assert.match(
      costly.body.details[0].message,
      /even on the smallest change .* more than the 1000000 one evaluation may cost, so it could never run: .*params/,
    );
    assert.equal((await svc.call('GET', '/v1/policies/costly')).status, 404, 'nothing stored');
    assert.equal((await svc.call('DELETE', '/v1/policies/no-red')).status, 204);
    assert.equal((await svc.call('DELETE', '/v1/policies/no-red')).status, 404);
  },
);

eachStoreService(
  'Deny refuses with 403 and its verdicts; the policy binds by glob and operation',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const made = await svc.call(
      'POST',
      '/v1/policies',
      policy('no-red', {
        match: { types: ['Test::Shop::W*'], operations: ['CREATE'] },
        params: { banned: ['red', 'pink'] },
        validations: [
          {
            expression: '!has(object.Color) || !(object.Color in params.banned)',
            messageExpression: "'colour ' + object.Color + ' is banned'",
            reason: 'Forbidden',
          },
        ],
      }),
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const refused = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
      desiredState: { Name: 'w1', Color: 'pink' },
    });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.errorCode, 'AccessDenied');
    assert.deepEqual(refused.body.details, [
      {
        source: 'policy',
        name: 'no-red',
        action: 'Deny',
        message: 'colour pink is banned',
        reason: 'Forbidden',
      },
    ]);
    assert.equal(
      (await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/w1`)).status,
      404,
      'nothing was created',
    );
    const blue = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=5`, {
      desiredState: { Name: 'w1', Color: 'blue' },
    });
    assert.equal(blue.status, 202);
    // Bound to CREATE only: an update to red passes.
    const patched = await svc.call('PATCH', `/v1/resources/${WIDGET_TYPE}/w1?wait=5`, {
      patchDocument: [{ op: 'replace', path: '/Color', value: 'red' }],
    });
    assert.equal(patched.body.progressEvent.operationStatus, 'SUCCESS');
    // A glob that does not reach the type: not reviewed.
    await svc.call('PUT', '/v1/policies/no-red', {
      ...made.body.policy,
      match: { types: ['Other::*'], operations: ['CREATE'] },
    });
    const other = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
      desiredState: { Name: 'w2', Color: 'red' },
    });
    assert.equal(other.status, 202);
    // A delete policy reads the old object; matchConditions pick whom it applies to.
    await svc.call(
      'POST',
      '/v1/policies',
      policy('keep-large', {
        match: { types: ['*'], operations: ['DELETE'] },
        matchConditions: [{ name: 'not-admin', expression: "request.role != 'admin'" }],
        validations: [{ expression: "oldObject.Size != 'L'", message: 'large widgets stay' }],
      }),
    );
    await svc.call('PATCH', `/v1/resources/${WIDGET_TYPE}/w1?wait=5`, {
      patchDocument: [{ op: 'replace', path: '/Size', value: 'L' }],
    });
    const writer = await tokenFor(svc, 'writer');
    const kept = await writer.call('DELETE', `/v1/resources/${WIDGET_TYPE}/w1`);
    assert.equal(kept.status, 403);
    assert.equal(kept.body.details[0].message, 'large widgets stay');
    assert.equal(
      (await svc.call('DELETE', `/v1/resources/${WIDGET_TYPE}/w1`)).status,
      202,
      'an admin is not matched',
    );
  },
);

eachStoreService(
  'Warn is told in the body, Warning headers and the operation’s events; Audit only in the trail',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    await svc.call(
      'POST',
      '/v1/policies',
      policy('want-count', {
        action: 'Warn',
        validations: [{ expression: 'has(object.Count)', message: 'say how many ("Count")' }],
      }),
    );
    await svc.call(
      'POST',
      '/v1/policies',
      policy('who-asks', {
        action: 'Audit',
        validations: [
          {
            expression: 'false',
            messageExpression: "request.role + '/' + request.description + '/' + request.operation",
          },
        ],
      }),
    );
    // A policy never sees a write-only value: this one would deny if it did.
    await svc.call(
      'POST',
      '/v1/policies',
      policy('no-secret-seen', {
        validations: [{ expression: '!has(object.Secret)', message: 'saw a secret' }],
      }),
    );
    const writer = await tokenFor(svc, 'writer', { description: 'team blue CI' });
    const made = await writer.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
      desiredState: { Name: 'w1', Secret: 'hunter2' },
    });
    assert.equal(made.status, 202, JSON.stringify(made.body));
    const warning = {
      source: 'policy',
      name: 'want-count',
      action: 'Warn',
      message: 'say how many ("Count")',
    };
    assert.deepEqual(made.body.progressEvent.warnings, [warning]);
    assert.equal(made.headers.get('warning'), '299 - "policy want-count: say how many (\\"Count\\")"');
    assert.ok(!JSON.stringify(made.body).includes('who-asks'), 'an Audit verdict is not told to the caller');
    const again = await writer.call('GET', `/v1/requests/${made.body.progressEvent.requestToken}`);
    assert.deepEqual(again.body.progressEvent.warnings, [warning]);

    let records: any[];
    for (const until = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
      records = (await svc.call('GET', '/v1/audit?verb=create')).body.records;
      if (records.some((r) => r.objectRef.resource === 'resources')) break;
      assert.ok(Date.now() < until, JSON.stringify(records));
    }
    const create = records.find((r) => r.objectRef.resource === 'resources');
    const verdicts = JSON.parse(create.annotations['typeplane.dev/verdicts']);
    assert.deepEqual(verdicts, [
      warning,
      { source: 'policy', name: 'who-asks', action: 'Audit', message: 'writer/team blue CI/CREATE' },
    ]);
    assert.ok(!JSON.stringify(records).includes('hunter2'));
    const policyRecord = records.find((r) => r.objectRef.resource === 'policies');
    assert.ok(policyRecord, 'a policy registered is in the trail');
  },
  () => ({ audit: { store: true } }),
);

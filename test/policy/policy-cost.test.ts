/**
 * What an admission policy's evaluation may cost, over real HTTP on each store, with the policy
 * docs/policy.md shows first (require-cost-center: `object.Tags.exists(…)` over a `dyn` object).
 * It registers, and judges a typical change by what it says. A change whose values would make an
 * expression cost more than the per-call limit — 100,000 tags, the most a 1 MiB body holds — is
 * not evaluated: it is answered at once, as the policy's failurePolicy says (Fail: a 403 saying the
 * policy could not be evaluated; Ignore: the change goes on). Nested comprehensions over `object`
 * register too, and are charged what each change's values make them cost.
 */
import assert from 'node:assert/strict';
import { celCounters } from '../../src/cel/index.js';
import { documentedPolicies } from '../helpers/documented-policies.js';
import { eachStoreService } from '../helpers/each-store.js';
import { api, type Api } from '../helpers/service.js';

const BUCKET_TYPE = 'Acme::Storage::Bucket';
const BUCKET = JSON.stringify({
  typeName: BUCKET_TYPE,
  description: 'A bucket for tests: its tags are not bounded.',
  properties: {
    Name: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,30}$' },
    Tags: {
      type: 'array',
      items: {
        type: 'object',
        properties: { Key: { type: 'string' }, Value: { type: 'string' } },
        additionalProperties: false,
      },
    },
    Items: { type: 'array', items: { type: 'string' } },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
});

const example = documentedPolicies('docs/policy.md').find((p) => p.policy.name === 'require-cost-center');
assert.ok(example, 'docs/policy.md shows require-cost-center');
const REQUIRE_COST_CENTER = example.policy;

async function writerOf(admin: Api): Promise<Api> {
  const made = await admin.call('POST', '/v1/tokens', { role: 'writer' });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return api(admin.url, made.body.token);
}

/** Milliseconds of this process's CPU time since `started` (a `process.cpuUsage()`). */
function cpuMs(started: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
}

/** 100,000 tags, each an empty object: about 300 KB of JSON, within the 1 MiB body. */
const HUGE = { Name: 'huge', Tags: Array.from({ length: 100_000 }, () => ({})) };

eachStoreService(
  'the documented tag check registers, judges a typical change, and answers 100,000 tags at once',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', BUCKET)).status, 201);
    const made = await svc.call('POST', '/v1/policies', REQUIRE_COST_CENTER);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    // Its matchConditions exempt admins: a writer asks.
    const writer = await writerOf(svc);
    const create = (desiredState: unknown) =>
      writer.call('POST', `/v1/resources/${BUCKET_TYPE}`, { desiredState });

    const tagged = await create({ Name: 'logs', Tags: [{ Key: 'costCenter', Value: 'cc-100' }] });
    assert.equal(tagged.status, 202, JSON.stringify(tagged.body));
    const untagged = await create({ Name: 'scratch', Tags: [{ Key: 'team', Value: 'blue' }] });
    assert.equal(untagged.status, 403);
    assert.deepEqual(untagged.body.details, [
      {
        source: 'policy',
        name: 'require-cost-center',
        action: 'Deny',
        message: 'costCenter must be one of cc-100, cc-200',
        reason: 'Forbidden',
      },
    ]);

    const interpreted = celCounters.interpreted;
    // CPU time of this process, which runs the server: other test files running at once slow the
    // clock, not the work.
    let started = process.cpuUsage();
    const refused = await create(HUGE);
    const took = cpuMs(started);
    assert.equal(refused.status, 403, JSON.stringify(refused.body).slice(0, 500));
    const [verdict] = refused.body.details;
    assert.equal(verdict.name, 'require-cost-center');
    assert.equal(verdict.action, 'Deny');
    assert.equal(verdict.reason, 'EvaluationError');
    assert.match(
      verdict.message,
      /could not be evaluated \(validation 0: evaluating it on these values could cost \d+ units, more than the 1000000 one expression may cost; make the values smaller\); its failurePolicy is Fail/,
    );
    assert.equal(celCounters.interpreted, interpreted, 'the tags were never iterated');
    // Parsing, checking against the schema and sizing 100,000 items: well under a second.
    assert.ok(took < 3_000, `answered in ${took.toFixed(0)} ms of CPU time`);

    const ignoring = await svc.call('PUT', '/v1/policies/require-cost-center', {
      ...REQUIRE_COST_CENTER,
      failurePolicy: 'Ignore',
    });
    assert.equal(ignoring.status, 200, JSON.stringify(ignoring.body));
    started = process.cpuUsage();
    const ignored = await create(HUGE);
    assert.equal(ignored.status, 202, JSON.stringify(ignored.body).slice(0, 500));
    const tookIgnored = cpuMs(started);
    assert.ok(tookIgnored < 3_000, `answered in ${tookIgnored.toFixed(0)} ms of CPU time`);
    assert.equal(celCounters.interpreted, interpreted);
  },
);

eachStoreService(
  'nested comprehensions over object register and are charged what each change makes them cost',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', BUCKET)).status, 201);
    const made = await svc.call('POST', '/v1/policies', {
      name: 'distinct-triples',
      match: { types: [BUCKET_TYPE], operations: ['CREATE'] },
      validations: [
        {
          expression:
            "!has(object.Items) || object.Items.all(x, object.Items.all(y, object.Items.all(z, x + y + z != 'abc')))",
          message: 'no three items spell abc',
        },
      ],
      action: 'Deny',
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const create = (Name: string, Items: string[]) =>
      svc.call('POST', `/v1/resources/${BUCKET_TYPE}`, { desiredState: { Name, Items } });
    assert.equal((await create('few', ['a', 'x', 'y'])).status, 202);
    assert.equal(
      (await create('spells', ['a', 'b', 'c'])).body.details[0].message,
      'no three items spell abc',
    );
    // 200 items make 8,000,000 triples: over the per-call limit, so not evaluated (Fail).
    const many = await create(
      'many',
      Array.from({ length: 200 }, (_, i) => `i${i}`),
    );
    assert.equal(many.status, 403);
    assert.equal(many.body.details[0].reason, 'EvaluationError');
    assert.match(many.body.details[0].message, /more than the 1000000 one expression may cost/);
  },
);

/**
 * Every admission policy docs/policy.md and README.md show, read from their YAML and JSON blocks as
 * written: it registers on a real server (on each store) and is in force, and it judges a typical
 * change by what it says — never "could not be evaluated" — on each operation it matches. The
 * examples a platform team copies first cannot rot.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePolicy, evaluatePolicies, readPolicy, type PolicyOperation } from '../../src/policy/index.js';
import { documentedPolicies } from '../helpers/documented-policies.js';
import { eachStoreService } from '../helpers/each-store.js';

const examples = ['docs/policy.md', 'README.md'].flatMap((file) => {
  const found = documentedPolicies(file);
  assert.ok(found.length > 0, `${file} shows no policy`);
  return found;
});

/** A resource as a platform team's types hold them: what the examples read, and more. */
const TYPICAL = {
  Name: 'logs',
  Size: 'M',
  StorageGB: 100,
  PublicAccess: false,
  Tags: [
    { Key: 'team', Value: 'blue' },
    { Key: 'costCenter', Value: 'cc-100' },
  ],
  Labels: { 'team/owner': 'blue', env: 'prod' },
  Description: 'access logs, kept for a year',
};

eachStoreService('every documented policy registers as written, in force', async (svc) => {
  for (const { at, policy } of examples) {
    const made = await svc.call('POST', '/v1/policies', policy);
    assert.equal(made.status, 201, `${at}: ${JSON.stringify(made.body)}`);
  }
  const listed = (await svc.call('GET', '/v1/policies')).body.policies;
  assert.equal(listed.length, examples.length);
  for (const shown of listed) assert.deepEqual(shown.status, { inForce: true }, shown.policy.name);
});

test('every documented policy judges a typical change by what it says, never failing to evaluate', () => {
  for (const { at, policy } of examples) {
    const compiled = compilePolicy(readPolicy(policy));
    const { types, operations } = compiled.policy.match;
    const typeName = types[0]!.replaceAll('*', 'Example').replaceAll('?', 'X');
    for (const operation of operations as PolicyOperation[]) {
      const verdicts = evaluatePolicies([compiled], {
        operation,
        typeName,
        ...(operation !== 'DELETE' ? { object: TYPICAL } : {}),
        ...(operation !== 'CREATE' ? { oldObject: TYPICAL } : {}),
        request: {
          operation,
          typeName,
          identifier: operation === 'CREATE' ? '' : 'logs',
          tokenId: 'tok-1',
          role: 'writer',
          description: 'ci deploys',
          stack: '',
          dryRun: false,
        },
      });
      for (const v of verdicts)
        assert.ok(
          !['EvaluationError', 'NotCompiled'].includes(v.reason ?? ''),
          `${at} ${operation}: ${v.message}`,
        );
    }
  }
});

/**
 * The benchmark type of issue #34's policy figures (bench/policy.ts over HTTP, bench/rules-check.ts
 * and bench/policy-review.ts in process, test/registry/rule-check-work.test.ts and
 * test/policy/policy-review-work.test.ts by counts): ten typical validation rules on its root, a
 * desired state that passes them, and admission policies of the usual kinds that pass it too.
 */

export const RULES = [
  { rule: 'self.MinReplicas <= self.MaxReplicas', message: 'MinReplicas must not exceed MaxReplicas' },
  { rule: 'self.MaxReplicas <= 100' },
  { rule: "self.Tier in ['dev', 'test', 'prod']" },
  {
    rule: "self.Tier != 'prod' || self.MinReplicas >= 2",
    messageExpression: "'prod needs 2 replicas, not ' + string(self.MinReplicas)",
  },
  { rule: "self.Name.startsWith('w')" },
  { rule: 'self.Name.size() <= 40' },
  { rule: '!has(self.Labels) || self.Labels.all(l, l.size() <= 20)' },
  { rule: '!has(self.Labels) || self.Labels.size() <= 8' },
  { rule: "self.Owner.matches('^[a-z]+@example[.]com$')" },
  { rule: 'self.Ratio >= 0.0 && self.Ratio <= 1.0' },
];

export function schema(typeName: string, rules: boolean): Record<string, unknown> {
  return {
    typeName,
    description: 'A benchmark type.',
    additionalProperties: false,
    ...(rules ? { 'x-typeplane-validations': RULES } : {}),
    properties: {
      Name: { type: 'string', maxLength: 40 },
      MinReplicas: { type: 'integer' },
      MaxReplicas: { type: 'integer' },
      Tier: { type: 'string', maxLength: 10 },
      Labels: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 20 } },
      Owner: { type: 'string', maxLength: 64 },
      Ratio: { type: 'number' },
      // For the hook's case (examples/hooks/python's RequireTags reads them).
      Tags: {
        type: 'array',
        maxItems: 8,
        items: {
          type: 'object',
          properties: { Key: { type: 'string' }, Value: { type: 'string' } },
          additionalProperties: false,
        },
      },
    },
    required: ['Name', 'MinReplicas', 'MaxReplicas', 'Tier', 'Owner', 'Ratio'],
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
  };
}

/** A desired state the ten rules pass. */
export function desiredState(name: string): Record<string, unknown> {
  return {
    Name: name,
    MinReplicas: 2,
    MaxReplicas: 5,
    Tier: 'prod',
    Labels: ['a', 'b'],
    Owner: 'ops@example.com',
    Ratio: 0.5,
  };
}

/** One admission policy bound to the guarded type: a typical check of the desired state against params. */
export const POLICY = {
  name: 'bench-owner-domain',
  match: { types: ['Bench::Policy::Guarded'], operations: ['CREATE', 'UPDATE'] },
  params: { domains: ['example.com', 'example.org'], tiers: ['dev', 'test', 'prod'] },
  validations: [
    {
      expression: "object.Owner.split('@')[1] in params.domains && object.Tier in params.tiers",
      messageExpression: "'owner ' + object.Owner + ' is not of an allowed domain'",
    },
  ],
  action: 'Deny',
};

/** Other typical policies on the guarded type, each passing a desired state with a costCenter tag. */
export const TYPICAL_POLICIES: Record<string, Record<string, unknown>> = {
  'tag check (exists)': {
    name: 'bench-cost-center',
    match: { types: ['Bench::Policy::*'], operations: ['CREATE', 'UPDATE'] },
    validations: [
      {
        // Charged by each change's own values: its static estimate, over a 1 MiB body, is 9.4M units.
        expression: "has(object.Tags) && object.Tags.exists(t, t.Key == 'costCenter')",
        message: 'every resource needs a costCenter tag',
      },
    ],
    action: 'Deny',
  },
  'request (string tests)': {
    name: 'bench-no-ci-prod',
    match: { types: ['*'], operations: ['CREATE', 'UPDATE', 'DELETE'] },
    validations: [
      {
        expression: "request.role != 'reader' && !request.description.startsWith('ci-')",
        messageExpression: "'token ' + request.tokenId + ' may not change ' + request.typeName",
      },
    ],
    action: 'Deny',
  },
  matchConditions: {
    name: 'bench-prod-replicas',
    match: { types: ['Bench::Policy::Guarded'], operations: ['CREATE', 'UPDATE'] },
    matchConditions: [
      { name: 'not-a-plan', expression: '!request.dryRun' },
      { name: 'prod', expression: "object.Tier == 'prod'" },
    ],
    params: { minReplicas: 2 },
    validations: [{ expression: 'object.MinReplicas >= params.minReplicas' }],
    action: 'Warn',
  },
  'another type': {
    name: 'bench-other-type',
    match: { types: ['Other::*'], operations: ['CREATE'] },
    validations: [{ expression: "object.Name != ''" }],
    action: 'Deny',
  },
};

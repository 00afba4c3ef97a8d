/**
 * The benchmark type of issue #34's policy figures (bench/policy.ts over HTTP, bench/rules-check.ts
 * in process, test/registry/rule-check-work.test.ts by counts): ten typical validation rules on its
 * root, and a desired state that passes them.
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

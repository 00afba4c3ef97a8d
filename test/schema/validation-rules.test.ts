/**
 * `typeplane validate` checks the validation rules a schema carries (x-typeplane-validations, also
 * read as x-kubernetes-validations), in both dialects: each problem has its rule id and is placed at
 * the line and column inside the rule's text where CEL found it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateDocument } from '../../src/schema/validate.js';
import { schemaWith } from './helpers.js';

function resourceSchema(rules: unknown, properties: Record<string, unknown> = {}): string {
  return JSON.stringify(
    schemaWith({
      properties: {
        Name: { type: 'string' },
        MinReplicas: { type: 'integer' },
        MaxReplicas: { type: 'integer' },
        Tags: { type: 'array', items: { type: 'string' } },
        ...properties,
      } as never,
      'x-typeplane-validations': rules as never,
    }),
    null,
    2,
  );
}

function problems(text: string, file = 'thing.json') {
  return validateDocument(text, { file }).diagnostics.filter((d) => d.rule.startsWith('TP9'));
}

test('a valid rule on the root of a resource schema is accepted and kept in the model', () => {
  const r = validateDocument(
    resourceSchema([{ rule: 'self.MinReplicas <= self.MaxReplicas', message: 'min > max' }]),
    { file: 'thing.json' },
  );
  assert.equal(r.valid, true, JSON.stringify(r.diagnostics));
  assert.deepEqual(r.types[0]!.schema['x-typeplane-validations'], [
    { rule: 'self.MinReplicas <= self.MaxReplicas', message: 'min > max' },
  ]);
});

test('a rule that does not compile is placed at the column inside the rule', () => {
  const text = resourceSchema([{ rule: 'self.MinReplicas <= self.MaxReplica' }]);
  const [d, ...rest] = problems(text);
  assert.equal(rest.length, 0);
  assert.equal(d!.rule, 'TP9002');
  assert.equal(d!.pointer, '/x-typeplane-validations/0/rule');
  assert.match(d!.message, /undefined field 'MaxReplica'/);
  const line = text.split('\n')[d!.line! - 1]!;
  assert.equal(line.slice(d!.column! - 1, d!.column! + 10), '.MaxReplica');
});

test('malformed entries, a bad fieldPath, a non-string messageExpression and a misplaced transition rule each have their rule', () => {
  const text = resourceSchema(
    [
      'not a mapping',
      { rule: 'self.MinReplicas > 0', reason: 'Nope', extra: 1 },
      { rule: 'self.MinReplicas > 0', fieldPath: '.Missing' },
      { rule: 'self.MinReplicas > 0', messageExpression: 'self.MinReplicas' },
      { message: 'no rule' },
      { rule: 'self.MinReplicas > 0', optionalOldSelf: true },
    ],
    {
      Items: {
        type: 'array',
        items: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf' }] },
      },
    },
  );
  const found = problems(text).map((d) => `${d.rule} ${d.pointer}`);
  assert.deepEqual(found.sort(), [
    'TP9001 /x-typeplane-validations/0',
    'TP9001 /x-typeplane-validations/1/extra',
    'TP9001 /x-typeplane-validations/1/reason',
    'TP9001 /x-typeplane-validations/4',
    'TP9001 /x-typeplane-validations/5/optionalOldSelf',
    'TP9004 /x-typeplane-validations/2/fieldPath',
    'TP9005 /x-typeplane-validations/3/messageExpression',
    'TP9006 /properties/Items/items/x-kubernetes-validations/0/rule',
  ]);
});

test('a rule whose worst case over the schema bounds costs too much is refused; with maxItems/maxLength it passes', () => {
  const rule = [{ rule: 'self.Tags.all(t, self.Tags.exists(u, u.contains(t)))' }];
  const [d] = problems(resourceSchema(rule));
  assert.equal(d?.rule, 'TP9003');
  assert.match(d!.message, /could cost \d+ units .* more than 10000000; bound the strings, lists and maps/);
  const bounded = resourceSchema(rule, {
    Tags: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 64 } },
  });
  assert.deepEqual(problems(bounded), []);
});

test('rules in a definition reached by $ref are checked against the definition', () => {
  const text = JSON.stringify(
    schemaWith({
      definitions: {
        Range: {
          type: 'object',
          properties: { Low: { type: 'integer' }, High: { type: 'integer' } },
          additionalProperties: false,
          'x-typeplane-validations': [{ rule: 'self.Low <= self.Hgh' }],
        },
      },
      properties: { Name: { type: 'string' }, Range: { $ref: '#/definitions/Range' } },
    }),
  );
  const [d, ...rest] = problems(text);
  assert.equal(rest.length, 0);
  assert.equal(d!.pointer, '/definitions/Range/x-typeplane-validations/0/rule');
});

test('a manifest takes the keyword on its root and on any property; a problem in a block scalar is placed on its line', () => {
  const text = [
    'namespace: Acme.Test',
    'types:',
    '  scalers:',
    '    description: Scales.',
    '    apiVersions:',
    "      '2025-01-01':",
    '        schema:',
    '          type: object',
    '          x-typeplane-validations:',
    '            - rule: self.minReplicas <= self.maxReplicas',
    '            - rule: |',
    '                self.minReplicas > 0 &&',
    '                self.maxReplica > 1',
    '          properties:',
    '            minReplicas: { type: integer }',
    '            maxReplicas:',
    '              type: integer',
    '              x-kubernetes-validations:',
    "                - { rule: 'self >= oldSelf', message: may not shrink }",
  ].join('\n');
  const ds = problems(text, 'm.yaml');
  assert.deepEqual(
    ds.map((d) => [d.rule, d.pointer, d.line, d.column]),
    [['TP9002', '/types/scalers/apiVersions/2025-01-01/schema/x-typeplane-validations/1/rule', 13, 21]],
  );
  const fixed = validateDocument(text.replace('maxReplica >', 'maxReplicas >'), { file: 'm.yaml' });
  assert.equal(fixed.valid, true, JSON.stringify(fixed.diagnostics));
  assert.ok(fixed.types[0]!.schema['x-typeplane-validations']);
});

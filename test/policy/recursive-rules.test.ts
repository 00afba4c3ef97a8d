/**
 * Rules in a definition that refers to itself (a tree node whose children are nodes) apply at every
 * depth of the value, over real HTTP: a create whose fourth level breaks a node's rule (and one whose
 * third level breaks a rule on a node's property) is refused, pointing at the deep value; the same
 * tree without the break is made; an update is ratcheted level by level; a deep tree too costly to
 * judge is refused naming the rule budget, not let through.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceOn } from '../helpers/each-store.js';

const T = 'Test::Rules::Tree';
const TREE = {
  typeName: T,
  description: 'A tree of nodes whose rules hold at every depth.',
  additionalProperties: false,
  definitions: {
    Node: {
      type: 'object',
      additionalProperties: false,
      'x-typeplane-validations': [
        { rule: 'self.Weight <= 10', message: 'a node weighs at most 10', fieldPath: '.Weight' },
      ],
      properties: {
        Label: {
          type: 'string',
          maxLength: 20,
          'x-kubernetes-validations': [{ rule: "self.startsWith('n')", message: 'labels start with n' }],
        },
        Weight: { type: 'integer' },
        Children: { type: 'array', maxItems: 4, items: { $ref: '#/definitions/Node' } },
      },
    },
  },
  properties: {
    Name: { type: 'string' },
    Root: { $ref: '#/definitions/Node' },
  },
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
};

/** A chain `depth` nodes deep (the root at depth 1); `last` overrides the deepest node's fields. */
function chain(depth: number, last: Record<string, unknown> = {}): Record<string, unknown> {
  let node: Record<string, unknown> = { Label: `n${depth}`, Weight: 1, ...last };
  for (let d = depth - 1; d >= 1; d--) node = { Label: `n${d}`, Weight: 1, Children: [node] };
  return node;
}

const deepPointer = (depth: number, tail: string) => `/Root${'/Children/0'.repeat(depth - 1)}${tail}`;

test('rules of a self-referencing definition hold at every depth of the value', async (t) => {
  const svc = await serviceOn(t, 'sqlite');
  const made = await svc.call('POST', '/v1/types', TREE);
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const create = (name: string, root: unknown) =>
    svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: name, Root: root } });

  const heavy = await create('t1', chain(4, { Weight: 11 }));
  assert.equal(heavy.status, 400, JSON.stringify(heavy.body));
  assert.deepEqual(
    heavy.body.details.map((d: any) => [d.name, d.pointer, d.message]),
    [['/definitions/Node/x-typeplane-validations/0', deepPointer(4, '/Weight'), 'a node weighs at most 10']],
  );

  const label = await create('t2', chain(3, { Label: 'x3' }));
  assert.equal(label.status, 400, JSON.stringify(label.body));
  assert.deepEqual(
    label.body.details.map((d: any) => [d.pointer, d.message]),
    [[deepPointer(3, '/Label'), 'labels start with n']],
  );

  // A wide tree: each of the four children of the root's child breaks at depth 3.
  const wide = chain(2);
  (wide.Children as any[])[0].Children = [0, 1, 2, 3].map((i) => ({ Label: `c${i}`, Weight: 1 }));
  const many = await create('t3', wide);
  assert.equal(many.status, 400);
  assert.deepEqual(
    many.body.details.map((d: any) => d.pointer),
    [0, 1, 2, 3].map((i) => `/Root/Children/0/Children/${i}/Label`),
  );

  assert.equal((await create('t4', chain(6))).status, 202, 'the tree that keeps the rules is made');
  const patch = (path: string, value: unknown) =>
    svc.call('PATCH', `/v1/resources/${T}/t4?wait=5`, { patchDocument: [{ op: 'replace', path, value }] });
  const deepWeight = await patch(`${deepPointer(6, '/Weight')}`, 12);
  assert.equal(deepWeight.status, 400);
  assert.deepEqual(
    deepWeight.body.details.map((d: any) => d.pointer),
    [deepPointer(6, '/Weight')],
  );
  assert.equal((await patch(deepPointer(5, '/Weight'), 9)).status, 202);
});

test('a deep tree too costly to judge is refused naming the rule budget', async (t) => {
  const svc = await serviceOn(t, 'sqlite');
  // No rule on the node itself, one on its list of children: each level converts the list it holds
  // (the deeper levels with it) for that rule, and so pays for it.
  const unbounded = structuredClone(TREE) as any;
  const node = unbounded.definitions.Node;
  delete node['x-typeplane-validations'];
  delete node.properties.Children.maxItems;
  node.properties.Children['x-typeplane-validations'] = [{ rule: 'self.size() <= 40000' }];
  assert.equal((await svc.call('POST', '/v1/types', unbounded)).status, 201);
  // 45 levels over 30,000 leaves.
  const root = chain(45);
  let deepest: any = root;
  while (deepest.Children) deepest = deepest.Children[0];
  deepest.Children = Array.from({ length: 30_000 }, () => ({ Weight: 1 }));
  const refused = await svc.call('POST', `/v1/resources/${T}?wait=5`, {
    desiredState: { Name: 'big', Root: root },
  });
  assert.equal(refused.status, 400, JSON.stringify(refused.body).slice(0, 500));
  assert.equal(refused.body.details.length, 1, 'judging stops once the budget is spent');
  assert.match(refused.body.details[0].message, /nor any after it: .*rule budget of 2000000/);
  // The same tree with its deepest level cut down is judged at every level and made.
  deepest.Children = deepest.Children.slice(0, 100);
  const made = await svc.call('POST', `/v1/resources/${T}?wait=5`, {
    desiredState: { Name: 'smaller', Root: root },
  });
  assert.equal(made.status, 202, JSON.stringify(made.body).slice(0, 500));
});

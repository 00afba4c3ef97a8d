import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  mergeWriteOnly,
  patchReadsWriteOnly,
  splitWriteOnly,
  touchesWriteOnly,
} from '../../src/model/index.js';
import type { ResourceType } from '../../src/schema/index.js';

const type = {
  typeName: 'Test::Vault::Login',
  writeOnlyProperties: [
    '/properties/Password',
    '/properties/Users/*/Pin',
    '/properties/Keys/*',
    '/properties/Creds/Token',
    '/properties/Vars/*/value',
  ],
} as unknown as ResourceType;

const model = () => ({
  Name: 'a',
  Password: 'p',
  Users: [{ User: 'u1', Pin: '1' }, { User: 'u2' }, { User: 'u3', Pin: '3' }],
  Keys: ['k1', 'k2'],
  Creds: { Token: 't', Region: 'eu' },
  Vars: { A: { value: 'va', plain: 1 }, B: { plain: 2 } },
});

test('split takes out every write-only value, at any depth, and merge puts them back', () => {
  const original = model();
  const { model: rest, values } = splitWriteOnly(type, original);
  assert.deepEqual(rest, {
    Name: 'a',
    Users: [{ User: 'u1' }, { User: 'u2' }, { User: 'u3' }],
    Keys: [],
    Creds: { Region: 'eu' },
    Vars: { A: { plain: 1 }, B: { plain: 2 } },
  });
  assert.ok(!JSON.stringify(rest).match(/"(p|1|3|k1|k2|t|va)"/));
  assert.deepEqual(original, model(), 'the model given is left as it was');
  assert.deepEqual(mergeWriteOnly(JSON.parse(JSON.stringify(rest)), values), model());
});

test('a model without write-only values is returned as it is, at no cost', () => {
  const plain = { Name: 'a', Users: [{ User: 'u1' }] };
  const split = splitWriteOnly(type, plain);
  assert.equal(split.model, plain);
  assert.deepEqual(split.values, []);
});

test('merging only what is missing keeps what is there and makes no holes', () => {
  const target = { Name: 'a', Password: 'new', Users: [{ User: 'u1' }] } as Record<string, unknown>;
  mergeWriteOnly(
    target,
    [
      [['Password'], 'old'],
      [['Users', 0, 'Pin'], '1'],
      [['Users', 2, 'Pin'], '3'],
      [['Creds', 'Token'], 't'],
    ],
    true,
  );
  assert.deepEqual(target, { Name: 'a', Password: 'new', Users: [{ User: 'u1', Pin: '1' }] });
});

test('patch paths that designate, hold or lie inside write-only values are recognised', () => {
  for (const path of [
    '/Password',
    '/Users',
    '/Users/0/Pin',
    '/Keys/1',
    '/Creds',
    '/Creds/Token',
    '/Vars/A',
    '',
    '/Password/x',
  ])
    assert.ok(touchesWriteOnly(type, path), path);
  for (const path of ['/Name', '/Users/0/User', '/Creds/Region', '/Other'])
    assert.ok(!touchesWriteOnly(type, path), path);
});

test('a patch may write write-only values but not test, copy or move them', () => {
  assert.deepEqual(
    patchReadsWriteOnly(type, [
      { op: 'replace', path: '/Password', value: 'x' },
      { op: 'copy', from: '/Name', path: '/Password' },
      { op: 'test', path: '/Name', value: 'a' },
    ]),
    [],
  );
  const problems = patchReadsWriteOnly(type, [
    { op: 'test', path: '/Password', value: 'guess' },
    { op: 'copy', from: '/Creds', path: '/Other' },
    { op: 'move', from: '/Users/1/Pin', path: '/Name' },
  ]);
  assert.deepEqual(
    problems.map((p) => [p.index, p.pointer]),
    [
      [0, '/0/path'],
      [1, '/1/from'],
      [2, '/2/from'],
    ],
  );
  assert.deepEqual(patchReadsWriteOnly(type, 'not a patch'), []);
});

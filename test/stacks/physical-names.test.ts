/**
 * Names a stack gives, as CloudFormation does, through a real server: a resource whose type is
 * identified by one writable, optional string and whose template leaves it out is named
 * `<stack>-<logicalId>-<13 characters>` within the property's pattern and maxLength; the plan says
 * it is known after apply; updates keep the name; a replacement gets a new one, made before the old
 * one is deleted. The published DynamoDB sample, which relies on this, deploys unchanged.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestService } from '../helpers/service.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';

const NAMED = JSON.stringify({
  typeName: 'Test::Shop::Shelf',
  description: 'A shelf: named by the caller, or by the stack when the template does not.',
  properties: {
    ShelfName: { type: 'string', pattern: '^[a-z0-9-]+$', maxLength: 40 },
    Zone: { type: 'string' },
    Color: { type: 'string' },
  },
  additionalProperties: false,
  primaryIdentifier: ['/properties/ShelfName'],
  createOnlyProperties: ['/properties/ShelfName', '/properties/Zone'],
});

const shelf = (zone: string, color: string) =>
  `Resources:\n  MainShelfForTheLongestLogicalIdAllowed:\n    Type: Test::Shop::Shelf\n    Properties: { Zone: ${zone}, Color: ${color} }\n`;

test('a stack names what the template leaves unnamed, keeps the name on update and renames on replacement', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', NAMED)).status, 201);

  const plan = await s.call('POST', '/v1/stacks/store/plans', { template: shelf('a', 'red') });
  assert.equal(plan.body.changes[0].properties.ShelfName, '(known after apply)');
  const created = await s.call('PUT', '/v1/stacks/store?wait=20', { template: shelf('a', 'red') });
  assert.equal(created.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(created.body));
  const first = created.body.stack.resources[0].identifier as string;
  // Lowercased to fit the pattern, the stack and logical id cut to fit maxLength 40, the suffix whole.
  assert.match(first, /^store-mainshelfforthelonge-[a-z0-9]{13}$/);
  assert.equal(first.length, 40);

  const updated = await s.call('PUT', '/v1/stacks/store?wait=20', { template: shelf('a', 'blue') });
  assert.equal(updated.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(updated.body));
  assert.equal(updated.body.stack.resources[0].identifier, first, 'an update keeps the name');
  const same = await s.call('POST', '/v1/stacks/store/plans', { template: shelf('a', 'blue') });
  assert.equal(same.body.changes[0].action, 'NoChange');

  const replaced = await s.call('PUT', '/v1/stacks/store?wait=20', { template: shelf('b', 'blue') });
  assert.equal(replaced.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(replaced.body));
  const second = replaced.body.stack.resources[0].identifier as string;
  assert.match(second, /^store-mainshelfforthelonge-[a-z0-9]{13}$/);
  assert.notEqual(second, first, 'a replacement is a new resource with a new name');
  const events = (await s.call('GET', '/v1/stacks/store/events')).body.events.map(
    (e: { identifier?: string; status: string }) => `${e.identifier} ${e.status}`,
  );
  assert.ok(
    events.indexOf(`${second} CREATE_COMPLETE`) < events.indexOf(`${first} DELETE_COMPLETE`),
    `the new one is made before the old one goes: ${events.join(', ')}`,
  );
  const shelves = await s.call('GET', '/v1/resources/Test::Shop::Shelf');
  assert.deepEqual(
    shelves.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier),
    [second],
  );
});

test(
  'the published DynamoDB sample, whose table has no name, deploys and is named by the stack',
  { skip: corpusSkip() },
  async (t) => {
    const s = await startTestService();
    t.after(() => s.close());
    const schema = readFileSync(join(AWS_CORPUS, 'AWS_DynamoDB_Table.json'), 'utf8');
    assert.equal((await s.call('POST', '/v1/types', schema)).status, 201);
    const template = readFileSync(
      fileURLToPath(new URL('../fixtures/cloudformation-templates/DynamoDB_Table.yaml', import.meta.url)),
      'utf8',
    );
    const put = await s.call('PUT', '/v1/stacks/books?wait=20', {
      template,
      parameters: { HashKeyElementName: 'isbn' },
    });
    assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
    const [output] = put.body.stack.outputs;
    assert.equal(output.name, 'TableName');
    assert.match(output.value, /^books-myDynamoDBTable-[A-Z0-9]{13}$/);
    const table = await s.call('GET', `/v1/resources/AWS::DynamoDB::Table/${output.value}`);
    assert.deepEqual(table.body.properties.KeySchema, [{ AttributeName: 'isbn', KeyType: 'HASH' }]);
    const resized = await s.call('PUT', '/v1/stacks/books?wait=20', {
      template,
      parameters: { HashKeyElementName: 'isbn', ReadCapacityUnits: '20' },
    });
    assert.equal(resized.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(resized.body));
    assert.equal(resized.body.stack.outputs[0].value, output.value, 'updated in place, same name');
  },
);

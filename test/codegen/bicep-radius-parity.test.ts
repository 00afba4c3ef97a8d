/**
 * What `generate bicep` makes of a Radius manifest matches what Radius's own generator made of it
 * (test/fixtures/radius-bicep: Radius.Security/secrets and its published types, with attribution):
 * the same resource names, body members, flags, kinds, literals and sensitivity — compared semantically,
 * not byte for byte. Radius merges its base resource members (connections, codeReference) into every
 * type; those are not in the manifest, so they are left out of the comparison.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  readIndexJson,
  readTypesJson,
  TypeBaseKind,
  type ObjectType,
  type ResourceType,
} from '@azure/bicep-types';
import { generateBicep } from '../../src/codegen/index.js';
import { validateDocument } from '../../src/schema/index.js';
import { readBack, shape } from './bicep-helpers.js';

const fixtures = fileURLToPath(new URL('../fixtures/radius-bicep/', import.meta.url));
const read = (name: string) => readFileSync(fixtures + name, 'utf8');
/** Members Radius adds from its own base resource, not written in the manifest. */
const RADIUS_BASE_ONLY = ['connections', 'codeReference'];

const theirs = (() => {
  const types = readTypesJson(read('types.json'));
  const index = readIndexJson(read('index.json'));
  return { types, index };
})();
const ours = (() => {
  const result = validateDocument(read('secrets.yaml'), { file: 'secrets.yaml' });
  assert.equal(result.valid, true, JSON.stringify(result.diagnostics));
  const [extension, ...others] = generateBicep(result.types);
  assert.equal(others.length, 0);
  return readBack(extension!);
})();

function body(side: { types: typeof theirs.types }, key: string, ref: { index: number }) {
  const resource = side.types[ref.index] as ResourceType;
  assert.equal(resource.type, TypeBaseKind.ResourceType);
  assert.equal(resource.name, key);
  return side.types[resource.body.index] as ObjectType;
}

function withoutBase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutBase);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !RADIUS_BASE_ONLY.includes(k))
      .map(([k, v]) => [k, withoutBase(v)]),
  );
}

test('the index names the same resources and the same extension', () => {
  assert.deepEqual(Object.keys(ours.index.resources), Object.keys(theirs.index.resources));
  assert.deepEqual(ours.index.settings?.name, theirs.index.settings?.name);
  assert.equal(ours.index.settings?.name, 'radiusradiussecurity');
});

test('the resource body has the same members with the same flags and kinds, properties included', () => {
  for (const [key, theirRef] of Object.entries(theirs.index.resources)) {
    const theirBody = body(theirs, key, theirRef);
    const ourBody = body(ours, key, ours.index.resources[key]!);
    const describe = (side: typeof theirs, b: ObjectType) =>
      withoutBase(
        Object.fromEntries(
          Object.entries(b.properties)
            .sort(([x], [y]) => x.localeCompare(y))
            .map(([name, p]) => [name, { flags: p.flags, type: shape(side.types, p.type) }]),
        ),
      );
    assert.deepEqual(describe(ours, ourBody), describe(theirs, theirBody));
  }
});

test('descriptions of the manifest properties are the same', () => {
  for (const [key, theirRef] of Object.entries(theirs.index.resources)) {
    const theirProps = theirs.types[
      body(theirs, key, theirRef).properties.properties!.type.index
    ] as ObjectType;
    const ourProps = ours.types[
      body(ours, key, ours.index.resources[key]!).properties.properties!.type.index
    ] as ObjectType;
    for (const [name, property] of Object.entries(ourProps.properties))
      assert.equal(property.description, theirProps.properties[name]?.description, name);
  }
});

test('the secret value is a sensitive string, as Radius writes x-radius-sensitive', () => {
  const key = 'Radius.Security/secrets@2025-08-01-preview';
  const props = ours.types[
    body(ours, key, ours.index.resources[key]!).properties.properties!.type.index
  ] as ObjectType;
  const data = ours.types[props.properties.data!.type.index] as ObjectType;
  const entry = ours.types[data.additionalProperties!.index] as ObjectType;
  assert.deepEqual(shape(ours.types, entry.properties.value!.type), { kind: 'string', sensitive: true });
});

/**
 * `typeplane generate bicep`: Bicep extension types. Every output is read back with
 * `@azure/bicep-types` (every `$ref` resolves, every index key is its ResourceType's name); the
 * manifest envelope follows Radius's generator, resource schemas follow bicep-types-aws; constraints
 * and descriptions are kept; what Bicep cannot express is emitted as the nearest type and warned
 * about by `typeplane validate`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ObjectTypePropertyFlags as F, TypeBaseKind, type ObjectType } from '@azure/bicep-types';
import { generateBicep } from '../../src/codegen/index.js';
import { loadTypes, validateDocument, type ResourceType } from '../../src/schema/index.js';
import { readBack, shape } from './bicep-helpers.js';
import { CLI } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const corpus = fileURLToPath(new URL('../../../shared/corpus/', import.meta.url));

function types(text: string, file = 'x.yaml'): ResourceType[] {
  const result = validateDocument(text, { file });
  assert.equal(result.valid, true, JSON.stringify(result.diagnostics));
  return result.types;
}

function only(text: string, file?: string) {
  const extensions = generateBicep(types(text, file));
  assert.equal(extensions.length, 1);
  const back = readBack(extensions[0]!);
  const [key, body] = [...back.bodies][0]!;
  const member = (object: ObjectType, name: string) => {
    const p = object.properties[name];
    assert.ok(p, `no member ${name} in ${object.name}`);
    return { ...p, resolved: back.types[p.type.index]! };
  };
  return { extension: extensions[0]!, ...back, key, body, member };
}

const manifest = `namespace: Acme.Storage
types:
  volumes:
    description: A volume.
    apiVersions:
      '2025-01-01-preview':
        schema:
          type: object
          properties:
            size:
              type: string
              enum: [S, M, L]
              description: How big.
            label:
              type: string
              minLength: 3
              maxLength: 20
              pattern: '^[a-z]+$'
            replicas:
              type: integer
              minimum: 1
              maximum: 5
            password:
              type: string
              x-radius-sensitive: true
            status:
              type: object
              readOnly: true
              properties:
                phase: { type: string }
            tags:
              type: array
              minItems: 1
              maxItems: 4
              items: { type: string }
          required: [size]
`;

test("a manifest type gets Radius's envelope: name, location, properties, apiVersion, type, id", () => {
  const { key, body, member, index } = only(manifest);
  assert.equal(key, 'Acme.Storage/volumes@2025-01-01-preview');
  assert.equal(index.settings?.name, 'radiusacmestorage');
  assert.equal(member(body, 'name').flags, F.Required | F.Identifier);
  assert.equal(member(body, 'location').flags, F.None);
  assert.equal(member(body, 'properties').flags, F.Required);
  assert.equal(member(body, 'id').flags, F.ReadOnly);
  for (const [name, value] of [
    ['apiVersion', '2025-01-01-preview'],
    ['type', 'Acme.Storage/volumes'],
  ] as const) {
    const m = member(body, name);
    assert.equal(m.flags, F.ReadOnly | F.DeployTimeConstant);
    assert.deepEqual(m.resolved, { type: TypeBaseKind.StringLiteralType, value });
  }
});

test("the properties' members are also on the body, read-only", () => {
  const { body, member } = only(manifest);
  const properties = member(body, 'properties').resolved as ObjectType;
  assert.deepEqual(Object.keys(properties.properties).sort(), [
    'label',
    'password',
    'replicas',
    'size',
    'status',
    'tags',
  ]);
  for (const name of Object.keys(properties.properties)) {
    assert.equal(member(body, name).flags, F.ReadOnly, name);
    assert.equal(member(body, name).type.index, properties.properties[name]!.type.index);
  }
});

test('enums are unions of literals; sensitive values sensitive; read-only and required flags kept', () => {
  const { body, member, types: all } = only(manifest);
  const properties = member(body, 'properties').resolved as ObjectType;
  const size = member(properties, 'size');
  assert.equal(size.flags, F.Required);
  assert.equal(size.description, 'How big.');
  assert.deepEqual(shape(all, size.type), { union: [{ literal: 'L' }, { literal: 'M' }, { literal: 'S' }] });
  assert.deepEqual(shape(all, member(properties, 'password').type), { kind: 'string', sensitive: true });
  assert.equal(member(properties, 'status').flags, F.ReadOnly);
});

test('constraints Radius drops are kept: string lengths and pattern, integer bounds, array lengths', () => {
  const { body, member } = only(manifest);
  const properties = member(body, 'properties').resolved as ObjectType;
  assert.deepEqual(member(properties, 'label').resolved, {
    type: TypeBaseKind.StringType,
    minLength: 3,
    maxLength: 20,
    pattern: '^[a-z]+$',
  });
  assert.deepEqual(member(properties, 'replicas').resolved, {
    type: TypeBaseKind.IntegerType,
    minValue: 1,
    maxValue: 5,
  });
  const tags = member(properties, 'tags').resolved;
  assert.equal(tags.type, TypeBaseKind.ArrayType);
  assert.equal((tags as { minLength?: number }).minLength, 1);
  assert.equal((tags as { maxLength?: number }).maxLength, 4);
});

test('manifests of one namespace merge into one extension; output does not depend on input order', () => {
  const second = manifest.replace('volumes:', 'snapshots:').replace('A volume.', 'A snapshot.');
  const a = [...types(manifest, 'a.yaml'), ...types(second, 'b.yaml')];
  const [one, ...rest] = generateBicep(a);
  assert.equal(rest.length, 0);
  const back = readBack(one!);
  assert.deepEqual(Object.keys(back.index.resources).sort(), [
    'Acme.Storage/snapshots@2025-01-01-preview',
    'Acme.Storage/volumes@2025-01-01-preview',
  ]);
  assert.deepEqual(generateBicep([...a].reverse()), generateBicep(a));
});

const resourceSchema = JSON.stringify({
  typeName: 'Acme::Net::Gateway',
  description: 'A gateway.',
  additionalProperties: false,
  definitions: {
    Route: {
      type: 'object',
      additionalProperties: false,
      properties: { Cidr: { type: 'string' }, Next: { $ref: '#/definitions/Route' } },
    },
  },
  properties: {
    Id: { type: 'string' },
    Secret: { type: 'string' },
    Weight: { type: 'number', minimum: 0.5, maximum: 10 },
    Mode: { type: 'integer', enum: [1, 2, 3] },
    Labels: {
      type: 'object',
      additionalProperties: false,
      patternProperties: { '^[a-z]+$': { type: 'string' } },
    },
    Target: { oneOf: [{ type: 'string' }, { $ref: '#/definitions/Route' }] },
    Routes: { type: 'array', items: { $ref: '#/definitions/Route' } },
    Endpoint: {
      type: 'object',
      additionalProperties: false,
      properties: { Host: { type: 'string' }, Port: { type: 'integer' } },
      oneOf: [{ required: ['Host'] }, { required: ['Host', 'Port'] }],
    },
  },
  required: ['Weight'],
  readOnlyProperties: ['/properties/Id', '/properties/Routes/*/Cidr'],
  writeOnlyProperties: ['/properties/Secret'],
  primaryIdentifier: ['/properties/Id'],
});

test('a resource schema becomes Org.Service/Resource@default with alias, name and properties', () => {
  const { key, body, member, index } = only(resourceSchema, 'gw.json');
  assert.equal(key, 'Acme.Net/Gateway@default');
  assert.equal(index.settings?.name, 'acmenet');
  assert.equal(member(body, 'alias').flags, F.Required | F.Identifier);
  assert.equal(member(body, 'name').flags, F.None);
  assert.equal(member(body, 'properties').flags, F.Required | F.Identifier, 'Required: a member is required');
  const properties = member(body, 'properties').resolved as ObjectType;
  assert.equal(member(properties, 'Id').flags, F.ReadOnly | F.Identifier);
  assert.equal(member(properties, 'Secret').flags, F.WriteOnly);
  const route = member(properties, 'Routes').resolved;
  assert.equal(route.type, TypeBaseKind.ArrayType);
});

test('what Bicep cannot express is emitted as the nearest type, never a crash', () => {
  const { body, member, types: all } = only(resourceSchema, 'gw.json');
  const properties = member(body, 'properties').resolved as ObjectType;
  // number → int, bounds rounded inward to whole numbers
  assert.deepEqual(member(properties, 'Weight').resolved, {
    type: TypeBaseKind.IntegerType,
    minValue: 1,
    maxValue: 10,
  });
  assert.equal(member(properties, 'Weight').flags, F.Required);
  // numeric enum → int
  assert.deepEqual(shape(all, member(properties, 'Mode').type), { kind: 'int' });
  // patternProperties → a map of the values' type
  assert.deepEqual(shape(all, member(properties, 'Labels').type), { object: {}, map: { kind: 'string' } });
  // oneOf of types → a union; recursion through a definition resolves to the same object type
  const target = member(properties, 'Target').resolved;
  assert.equal(target.type, TypeBaseKind.UnionType);
  const routeObject = all.find((t) => t.type === TypeBaseKind.ObjectType && t.name === 'Route') as ObjectType;
  assert.ok(routeObject);
  assert.equal(all[routeObject.properties.Next!.type.index], routeObject, 'recursive reference');
  // nested read-only through array items and a definition
  assert.equal(routeObject.properties.Cidr!.flags, F.ReadOnly);
  // constraint-only alternatives: required where every alternative requires it
  const endpoint = member(properties, 'Endpoint').resolved as ObjectType;
  assert.equal(endpoint.properties.Host!.flags, F.Required);
  assert.equal(endpoint.properties.Port!.flags, F.None);
});

test('typeplane validate warns at each property Bicep cannot express, saying what is emitted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-bicep-'));
  writeFileSync(join(dir, 'gw.json'), JSON.stringify(JSON.parse(resourceSchema), null, 2));
  const run = spawnSync(process.execPath, [...CLI, 'validate', 'gw.json'], {
    cwd: dir,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const lines = run.stdout.split('\n');
  const find = (rule: string) =>
    lines.find((l) => l.includes(rule)) ?? assert.fail(`no ${rule} in ${run.stdout}`);
  assert.match(
    find('TP5001'),
    /^gw\.json:\d+:\d+ +warning +TP5001 +property 'Weight' is a number.*Bicep type is int/,
  );
  assert.match(find('TP5002'), /property 'Mode' lists number values.*Bicep type is int/);
  assert.match(find('TP5003'), /property 'Labels' constrains member names with patternProperties/);
  assert.match(run.stdout, /0 errors, 3 warnings/);
});

test("the Radius schema design's sample becomes the extension the design describes", () => {
  const sample = readFileSync(
    join(root, 'test/fixtures/radius/radius-design-postgresDatabases.yaml'),
    'utf8',
  );
  const { key, body, member, index, types: all } = only(sample);
  assert.equal(key, 'MyCompany.Resources/postgresDatabases@2025-01-01-preview');
  assert.equal(index.settings?.name, 'radiusmycompanyresources');
  const properties = member(body, 'properties').resolved as ObjectType;
  // size: 'L' completes and an unknown size is refused, as the design's Bicep example shows.
  assert.equal(member(properties, 'size').flags, F.Required);
  assert.deepEqual(shape(all, member(properties, 'size').type), {
    union: [{ literal: 'L' }, { literal: 'M' }, { literal: 'S' }, { literal: 'XL' }],
  });
  assert.equal(member(properties, 'status').flags, F.ReadOnly);
  const status = member(properties, 'status').resolved as ObjectType;
  const binding = member(status, 'binding').resolved as ObjectType;
  assert.deepEqual(Object.keys(binding.properties).sort(), ['hostname', 'secret', 'username']);
  // The string that names a secret says which keys it holds (for fromSecret).
  assert.equal(binding.properties.secret!.description, 'Names a secret whose keys are `password`.');
  // The radapp.io recipe status is the built-in one.
  const recipe = member(status, 'recipe').resolved as ObjectType;
  assert.equal(recipe.name, 'RecipeStatus');
  assert.ok(['templateKind', 'templatePath', 'templateVersion'].every((k) => k in recipe.properties));
});

test('every bundled example and every corpus manifest generates and reads back', async () => {
  const paths = [join(root, 'examples'), join(corpus, 'radius-manifests')].filter(existsSync);
  const loaded = await loadTypes(paths);
  assert.equal(loaded.valid, true);
  const extensions = generateBicep(loaded.types);
  let resources = 0;
  for (const extension of extensions) resources += readBack(extension).bodies.size;
  assert.equal(resources, loaded.types.length);
});

test(
  'a sample of AWS resource schemas generates and reads back',
  { skip: !existsSync(corpus) && 'no corpus' },
  async () => {
    const dir = join(corpus, 'aws-resource-schemas');
    const files = readdirSync(dir)
      .sort()
      .filter((_, i) => i % 20 === 0)
      .map((f) => join(dir, f));
    const loaded = await loadTypes(files);
    assert.equal(loaded.valid, true);
    assert.ok(loaded.types.length >= 70);
    const extensions = generateBicep(loaded.types);
    const keys = extensions.flatMap((e) => [...readBack(e).bodies.keys()]).sort();
    assert.deepEqual(
      keys,
      loaded.types
        .map((t) => `${t.typeName.split('::').slice(0, 2).join('.')}/${t.typeName.split('::')[2]}@default`)
        .sort(),
    );
  },
);

test('generate bicep writes the files, one folder per namespace when there are several', () => {
  const out = mkdtempSync(join(tmpdir(), 'typeplane-bicep-out-'));
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [...CLI, 'generate', 'bicep', ...args], {
      cwd: root,
      encoding: 'utf8',
    });
  const one = cli(['examples/queues.yaml', '--out', join(out, 'one')]);
  assert.equal(one.status, 0, one.stderr);
  assert.deepEqual(readdirSync(join(out, 'one')).sort(), [
    'index.json',
    'index.md',
    'types.json',
    'types.md',
  ]);
  assert.match(
    readFileSync(join(out, 'one', 'index.json'), 'utf8'),
    /"Typeplane\.Messaging\/queues@2025-01-01-preview"/,
  );
  const many = cli(['examples', '--out', join(out, 'many')]);
  assert.equal(many.status, 0, many.stderr);
  assert.ok(readdirSync(join(out, 'many')).includes('typeplane.messaging'));
  const bad = join(out, 'bad.yaml');
  writeFileSync(bad, 'namespace: acme\ntypes: {}\n');
  const refused = cli([bad, '--out', join(out, 'none')]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /TP3001.*nothing generated/s);
  assert.equal(existsSync(join(out, 'none')), false);
});

/**
 * Manifests written by others (radius-project/resource-types-contrib, in ../shared/corpus) and the
 * manifests shipped in examples/ are valid, and each becomes types whose model compiles as draft-07.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { SECRET_SCHEMA_ANNOTATION } from '../../src/schema/manifest/to-model.js';
import { validateDocument } from '../../src/schema/validate.js';
import { RADIUS_CORPUS as CORPUS, corpusSkip } from '../helpers/requirements.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

const yamlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();

/** The manifests among the examples (the folder also holds resource schemas). */
const exampleManifests = () =>
  yamlFiles(EXAMPLES).filter((f) => /^types:/m.test(readFileSync(EXAMPLES + f, 'utf8')));

function expectValidManifest(dir: string, file: string): void {
  const result = validateDocument(readFileSync(dir + file), { file });
  assert.equal(result.dialect, 'manifest', `${file} is read as a manifest`);
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  assert.deepEqual(errors, [], `${file} has no errors`);
  assert.equal(result.valid, true);
  assert.ok(result.types.length > 0, `${file} defines types`);
  for (const type of result.types) {
    assert.equal(type.dialect, 'manifest');
    assert.match(type.typeName, /^[A-Za-z0-9.]+\/[a-z][A-Za-z0-9]*$/);
    const ajv = addFormats(new Ajv({ strict: true, allowUnionTypes: true }));
    // The shape of the secret a string names (the manifest's `schema`): an annotation.
    ajv.addKeyword(SECRET_SCHEMA_ANNOTATION);
    assert.doesNotThrow(
      () => ajv.compile(type.schema),
      `the model of ${type.typeName}@${type.apiVersion} is a valid schema`,
    );
  }
}

describe('radius manifest corpus', () => {
  const skip = corpusSkip();
  const present = !skip;

  test('the corpus holds manifests', { skip }, () => {
    assert.ok(yamlFiles(CORPUS).length > 0);
  });

  for (const file of present ? yamlFiles(CORPUS) : []) {
    test(`${file} is a valid manifest`, () => expectValidManifest(CORPUS, file));
  }

  test(
    'secret and output properties of the corpus become write-only and read-only pointers',
    { skip },
    () => {
      const pointers = (file: string) => {
        const [type] = validateDocument(readFileSync(CORPUS + file), { file }).types;
        return { readOnly: type!.readOnlyProperties, writeOnly: type!.writeOnlyProperties };
      };
      assert.deepEqual(pointers('postgreSqlDatabases.yaml'), {
        readOnly: ['/properties/host', '/properties/port'],
        writeOnly: ['/properties/password'],
      });
      assert.deepEqual(pointers('secrets.yaml'), { readOnly: [], writeOnly: ['/properties/data/*/value'] });
    },
  );
});

describe('example manifests', () => {
  test('examples/ holds the manifest examples', () => {
    assert.deepEqual(
      exampleManifests().filter((f) => f === 'postgresDatabases.yaml' || f === 'queues.yaml'),
      ['postgresDatabases.yaml', 'queues.yaml'],
    );
  });

  for (const file of exampleManifests()) {
    test(`examples/${file} is a valid manifest`, () => expectValidManifest(EXAMPLES, file));
  }

  test('examples/postgresDatabases.yaml is the design-note type', () => {
    const [type, ...rest] = validateDocument(readFileSync(EXAMPLES + 'postgresDatabases.yaml'), {
      file: 'postgresDatabases.yaml',
    }).types;
    assert.equal(rest.length, 0);
    assert.equal(type!.typeName, 'Typeplane.Data/postgresDatabases');
    assert.equal(type!.apiVersion, '2025-01-01-preview');
    assert.deepEqual(Object.keys(type!.schema.properties as object), ['name', 'size', 'password', 'status']);
    assert.deepEqual(type!.readOnlyProperties, ['/properties/status']);
    assert.deepEqual(type!.writeOnlyProperties, ['/properties/password']);
  });
});

/**
 * The meta-schema's validators are written ahead of time (so no `typeplane validate` run compiles
 * them): they must be exactly what ajv generates from the meta-schema today, and the whole one answer
 * as ajv's own compile does, errors and failing subschemas included.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import {
  META_SCHEMA_AJV_OPTIONS,
  metaSchemaValidator,
  resourceSchemaMetaSchema,
} from '../../src/schema/resource-schema/index.js';
import {
  GENERATED_FILE,
  OUTLINE_FILE,
  metaSchemaValidatorSource,
  outlineValidatorSource,
} from '../../scripts/generate-meta-schema-validator.js';
import { minimalSchema, schemaWith } from './helpers.js';

describe('the precompiled meta-schema validator', () => {
  it('is what the generator writes from the meta-schema today (run it after changing meta-schema.ts)', () => {
    assert.equal(
      readFileSync(GENERATED_FILE, 'utf8'),
      metaSchemaValidatorSource(),
      'run: node --import tsx scripts/generate-meta-schema-validator.ts',
    );
    assert.equal(
      readFileSync(OUTLINE_FILE, 'utf8'),
      outlineValidatorSource(),
      'run: node --import tsx scripts/generate-meta-schema-validator.ts',
    );
  });

  it('answers as a fresh compile does, with the same failing subschema objects', () => {
    const fresh = new Ajv(META_SCHEMA_AJV_OPTIONS).compile(resourceSchemaMetaSchema);
    const precompiled = metaSchemaValidator();
    const documents: unknown[] = [
      minimalSchema(),
      schemaWith({ typeName: 'bad', handlers: { create: {}, erase: { permissions: [] } } }),
      schemaWith({
        properties: { A: { type: 'strin', items: [{}], if: {}, properties: {}, patternProperties: {} } },
        primaryIdentifier: ['Name', 'Name'],
        readOnlyProperties: 3,
        extra: true,
      }),
      42,
    ];
    for (const document of documents) {
      assert.equal(precompiled(document), fresh(document));
      const errors = precompiled.errors ?? [];
      assert.deepEqual(errors, fresh.errors ?? []);
      // The same objects, not copies: where an error failed is found from their identity.
      errors.forEach((e, i) => assert.equal(e.parentSchema, fresh.errors![i]!.parentSchema));
    }
  });
});

/**
 * The meta-schema's yes is asked for in two parts (structure.ts): its outline, by ajv, and each
 * property schema, by property-node.ts. A yes skips the whole validator, so the parts must never
 * accept what the meta-schema refuses; they are held to answer exactly as it does, on the published
 * corpus and on generated property schemas.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { metaSchemaValidator } from '../../src/schema/resource-schema/index.js';
import { PROPERTY_KEYWORDS, resourceSchemaMetaSchema } from '../../src/schema/resource-schema/meta-schema.js';
import { checkStructure } from '../../src/schema/resource-schema/structure.js';
import { propertyNodeAccepts } from '../../src/schema/resource-schema/property-node.js';
import { schemaWith, type Json } from './helpers.js';

const corpus = new URL('../../../shared/corpus/aws-resource-schemas/', import.meta.url);
const whole = metaSchemaValidator();

/** The whole validator's answer for `node` as a property schema, in a property and in a definition. */
function wholeAccepts(node: Json): boolean {
  const inProperty = whole(schemaWith({ properties: { Name: { type: 'string' }, P: node } }));
  const inDefinition = whole(schemaWith({ definitions: { D: node } }));
  assert.equal(inDefinition, inProperty, 'a property schema is one wherever it stands');
  return inProperty;
}

describe("the meta-schema's yes in two parts", () => {
  it('accepts every published schema the whole validator accepts, and checkStructure finds nothing in them', () => {
    const names = readdirSync(corpus).filter((n) => n.endsWith('.json'));
    assert.ok(names.length > 1000);
    for (const name of names) {
      const document = JSON.parse(readFileSync(new URL(name, corpus), 'utf8')) as Record<string, Json>;
      assert.equal(whole(document), true, name);
      for (const members of [document.properties, document.definitions] as Record<string, Json>[])
        for (const [member, node] of Object.entries(members ?? {}))
          assert.equal(propertyNodeAccepts(node), true, `${name}: ${member}`);
      assert.deepEqual(checkStructure(document), [], name);
    }
  });

  it('refuses what the meta-schema refuses in a property schema, each for its own reason', () => {
    const refused: Json[] = [
      { type: 'strin' },
      { type: ['string', 'string'] },
      { type: [] },
      { enum: ['a'] },
      { const: 1 },
      { type: 'object', properties: {}, patternProperties: {} },
      { type: 'object', properties: { 'not-a-name': { type: 'string' } } },
      { type: 'object', properties: { A: { type: 'string', if: {} } } },
      { type: 'object', additionalProperties: true },
      { type: 'number', multipleOf: 0 },
      { type: 'string', maxLength: 1.5 },
      { type: 'string', minLength: -1 },
      { type: 'array', items: [{ type: 'string' }] },
      { type: 'object', required: ['A', 'A'] },
      { type: 'object', dependencies: { A: 'B' } },
      { anyOf: [] },
      { oneOf: [{ type: 'strin' }] },
      { type: 'array', arrayType: 'Ordered' },
      { type: 'string', relationshipRef: { typeName: 'A::B::C', propertyPath: '/properties/Id', x: 1 } },
      { type: 'string', relationshipRef: { typeName: 'A::B', propertyPath: '/properties/Id' } },
      { type: 'string', readOnly: 'yes' },
      'string',
      null,
      [],
    ];
    for (const node of refused) {
      assert.equal(wholeAccepts(node), false, JSON.stringify(node));
      assert.equal(propertyNodeAccepts(node), false, JSON.stringify(node));
      assert.notDeepEqual(checkStructure(schemaWith({ definitions: { D: node } })), [], JSON.stringify(node));
    }
  });

  it('finds a refused property schema wherever the meta-schema refers to one: settings, top-level branches, nested', () => {
    const bad = { type: 'strin' };
    const settings = (extra: { [key: string]: Json }) => ({
      properties: { S: { type: 'string' } },
      additionalProperties: false,
      ...extra,
    });
    const refused = [
      schemaWith({ typeConfiguration: settings({ properties: { S: bad } }) }),
      schemaWith({ typeConfiguration: settings({ oneOf: [bad] }) }),
      schemaWith({ allOf: [bad] }),
      schemaWith({ anyOf: [{ type: 'object', properties: { A: { type: 'array', items: bad } } }] }),
      schemaWith({ definitions: { D: { type: 'object', patternProperties: { '^x': { contains: bad } } } } }),
    ];
    for (const document of refused) {
      assert.equal(whole(document), false, JSON.stringify(document));
      assert.notDeepEqual(checkStructure(document), [], JSON.stringify(document));
    }
    assert.deepEqual(
      checkStructure(schemaWith({ typeConfiguration: settings({ oneOf: [{ required: ['S'] }] }) })),
      [],
    );
  });

  it('checks property schemas in every place the outline refers to one (a new place needs structure.ts too)', () => {
    const places: string[] = [];
    const visit = (node: unknown, at: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const ref = (node as { $ref?: unknown }).$ref;
      if (ref === '#/definitions/property' || ref === '#/definitions/schemaArray')
        places.push(`${at} ${ref}`);
      for (const [key, child] of Object.entries(node)) visit(child, `${at}/${key}`);
    };
    const { property: _, ...definitions } = resourceSchemaMetaSchema.definitions;
    visit({ ...resourceSchemaMetaSchema, definitions }, '#');
    // Each is one that propertySchemasAccepted (structure.ts) reads.
    assert.deepEqual(places.sort(), [
      // The branches' lists: each item is checked (propertyNodesAccept).
      '#/definitions/schemaArray/items #/definitions/property',
      '#/properties/allOf #/definitions/schemaArray',
      '#/properties/anyOf #/definitions/schemaArray',
      '#/properties/definitions/additionalProperties #/definitions/property',
      '#/properties/oneOf #/definitions/schemaArray',
      '#/properties/properties/additionalProperties #/definitions/property',
      '#/properties/typeConfiguration/properties/allOf #/definitions/schemaArray',
      '#/properties/typeConfiguration/properties/anyOf #/definitions/schemaArray',
      '#/properties/typeConfiguration/properties/oneOf #/definitions/schemaArray',
      '#/properties/typeConfiguration/properties/properties/additionalProperties #/definitions/property',
    ]);
  });

  it('answers as the whole validator on generated property schemas (keywords with right and wrong values)', () => {
    const scalar = fc.oneof(
      fc.constantFrom(
        'string',
        'object',
        'array',
        'integer',
        'number',
        'boolean',
        'null',
        'strin',
        'Standard',
        'AttributeList',
        'Name',
        'A::B::C',
        '/properties/Id',
        'bad name',
      ),
      fc.integer({ min: -3, max: 3 }),
      fc.constantFrom(0.5, -0.5, 1e300),
      fc.boolean(),
      fc.constant(null),
    );
    const { node } = fc.letrec<{ node: Json; value: Json }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalar,
        fc.array(fc.oneof(scalar, tie('node')), { maxLength: 3 }),
        fc.dictionary(
          fc.constantFrom('Name', 'Id', 'bad name', 'typeName', 'propertyPath', 'x'),
          fc.oneof(scalar, tie('node')),
          { maxKeys: 3, noNullPrototype: true },
        ),
        tie('node'),
      ),
      node: fc.dictionary(
        fc.constantFrom(...PROPERTY_KEYWORDS, 'not', 'if', 'definitions', 'unknown'),
        tie('value'),
        { maxKeys: 4, noNullPrototype: true },
      ),
    }));
    let acceptedCount = 0;
    fc.assert(
      fc.property(node, (generated) => {
        // As a document's parse gives it.
        const n = JSON.parse(JSON.stringify(generated)) as Json;
        const accepted = wholeAccepts(n);
        assert.equal(propertyNodeAccepts(n), accepted, JSON.stringify(n));
        if (accepted) acceptedCount++;
      }),
      { numRuns: 3000 },
    );
    // Both answers are exercised: not only refusals.
    assert.ok(acceptedCount > 300, `${acceptedCount} of 3,000 generated schemas accepted`);
  });
});

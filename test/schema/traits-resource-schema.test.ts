/**
 * Modelling traits in resource schemas: the top-level `traits` key (`noReplace`, `references` with
 * `ids`), `relationshipRef` alongside it, the rules that check them (TP2045, TP2046) and what they
 * normalise to in `ResourceType.traits`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertClean, assertDiagnostics, assertOnly, pretty, validate, type Json } from './helpers.js';

/** A valid schema with three properties (one a list of objects), then `traits`, then `required`. */
function withTraits(traits: Json | undefined, extra: { [key: string]: Json } = {}): { [key: string]: Json } {
  return {
    typeName: 'Org::Apps::App',
    description: 'An application.',
    properties: {
      Name: { type: 'string' },
      DatabaseName: { type: 'string' },
      Replicas: {
        type: 'array',
        items: { type: 'object', properties: { Db: { type: 'string' } }, additionalProperties: false },
      },
    },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
    ...extra,
    ...(traits === undefined ? {} : { traits }),
    required: ['Name'],
  };
}

/** Line 1-based of the first line of `text` containing `needle` (to keep expected positions honest). */
function lineOf(text: string, needle: string, from = 1): number {
  const lines = text.split('\n');
  const i = lines.findIndex((l, n) => n >= from - 1 && l.includes(needle));
  assert.ok(i >= 0, `${needle} is in the document`);
  return i + 1;
}

describe('resource schema traits: the model', () => {
  test('without traits: noReplace is false and there are no references', () => {
    const result = validate(pretty(withTraits(undefined)));
    assertClean(result);
    assert.deepEqual(result.types[0]!.traits, { noReplace: false, references: [] });
  });

  test('an empty traits object is valid and means the defaults', () => {
    const result = validate(pretty(withTraits({})));
    assertClean(result);
    assert.deepEqual(result.types[0]!.traits, { noReplace: false, references: [] });
  });

  test('noReplace true and false', () => {
    assert.equal(validate(pretty(withTraits({ noReplace: true }))).types[0]!.traits.noReplace, true);
    assert.equal(validate(pretty(withTraits({ noReplace: false }))).types[0]!.traits.noReplace, false);
  });

  test('ids keys are normalised to pointers, whether written as a name or a pointer', () => {
    const result = validate(
      pretty(
        withTraits({
          references: [
            {
              typeName: 'Org::Data::Db',
              ids: { Name: '/properties/DatabaseName', '/properties/Region': '/properties/Name' },
            },
          ],
        }),
      ),
    );
    assertClean(result);
    assert.deepEqual(result.types[0]!.traits.references, [
      {
        typeName: 'Org::Data::Db',
        ids: [
          { target: '/properties/Name', member: '/properties/DatabaseName' },
          { target: '/properties/Region', member: '/properties/Name' },
        ],
      },
    ]);
  });

  test('without ids the mapping is implicit: ids is empty', () => {
    const result = validate(pretty(withTraits({ references: [{ typeName: 'Org::Data::Db' }] })));
    assertClean(result);
    assert.deepEqual(result.types[0]!.traits.references, [{ typeName: 'Org::Data::Db', ids: [] }]);
  });

  test('a manifest type may be referenced, and members may use * for every item of a list', () => {
    const result = validate(
      pretty(
        withTraits({
          references: [
            { typeName: 'Typeplane.Data/postgresDatabases', ids: { name: '/properties/Replicas/*/Db' } },
          ],
        }),
      ),
    );
    assertClean(result);
    assert.deepEqual(result.types[0]!.traits.references, [
      {
        typeName: 'Typeplane.Data/postgresDatabases',
        ids: [{ target: '/properties/name', member: '/properties/Replicas/*/Db' }],
      },
    ]);
  });

  test('relationshipRefs keep working: each is a one-id reference, after the declared ones', () => {
    const doc = withTraits(
      { references: [{ typeName: 'Org::Data::Db', ids: { Name: '/properties/DatabaseName' } }] },
      {
        definitions: {
          Replica: {
            type: 'object',
            properties: {
              Vpc: {
                type: 'string',
                relationshipRef: { typeName: 'AWS::EC2::VPC', propertyPath: '/properties/VpcId' },
              },
            },
            additionalProperties: false,
          },
        },
      },
    );
    (doc.properties as { [key: string]: Json }).Network = {
      type: 'array',
      items: { $ref: '#/definitions/Replica' },
    };
    (doc.properties as { [key: string]: Json }).Bucket = {
      type: 'string',
      relationshipRef: { typeName: 'AWS::S3::Bucket', propertyPath: '/properties/BucketName' },
    };
    const result = validate(pretty(doc));
    assertClean(result);
    assert.deepEqual(result.types[0]!.traits.references, [
      {
        typeName: 'Org::Data::Db',
        ids: [{ target: '/properties/Name', member: '/properties/DatabaseName' }],
      },
      {
        typeName: 'AWS::EC2::VPC',
        ids: [{ target: '/properties/VpcId', member: '/properties/Network/*/Vpc' }],
        relationshipRef: true,
      },
      {
        typeName: 'AWS::S3::Bucket',
        ids: [{ target: '/properties/BucketName', member: '/properties/Bucket' }],
        relationshipRef: true,
      },
    ]);
    // The model schema keeps relationshipRef (documentation) but not traits.
    assert.equal(result.types[0]!.schema.traits, undefined);
  });
});

describe('TP2045: traits of the wrong shape', () => {
  test('noReplace must be a boolean', () => {
    const text = pretty(withTraits({ noReplace: 'yes' }));
    const d = assertOnly(validate(text), {
      rule: 'TP2045',
      pointer: '/traits/noReplace',
      line: lineOf(text, '"noReplace"'),
      column: 18,
    });
    assert.match(d.message, /'noReplace' must be a boolean/);
  });

  test('traits must be an object', () => {
    const text = pretty(withTraits(['noReplace']));
    assertOnly(validate(text), {
      rule: 'TP2045',
      pointer: '/traits',
      line: lineOf(text, '"traits"'),
      column: 13,
    });
  });

  test('an unknown key in traits is located at its name', () => {
    const text = pretty(withTraits({ noreplace: true }));
    const d = assertOnly(validate(text), {
      rule: 'TP2045',
      pointer: '/traits/noreplace',
      line: lineOf(text, '"noreplace"'),
      column: 5,
    });
    assert.match(d.message, /unknown key 'noreplace'/);
  });

  test('references must be a list', () => {
    const text = pretty(withTraits({ references: { typeName: 'Org::Data::Db' } }));
    assertOnly(validate(text), {
      rule: 'TP2045',
      pointer: '/traits/references',
      line: lineOf(text, '"references"'),
      column: 19,
    });
  });

  test('a reference needs a typeName', () => {
    const text = pretty(withTraits({ references: [{ ids: { Name: '/properties/DatabaseName' } }] }));
    const d = assertOnly(validate(text), {
      rule: 'TP2045',
      pointer: '/traits/references/0',
      line: lineOf(text, '"references"') + 1,
      column: 7,
    });
    assert.match(d.message, /must have 'typeName'/);
  });

  test('a typeName that is not a type name', () => {
    const text = pretty(withTraits({ references: [{ typeName: 'Database' }] }));
    const d = assertOnly(validate(text), {
      rule: 'TP2045',
      pointer: '/traits/references/0/typeName',
      line: lineOf(text, '"typeName": "Database"'),
      column: 21,
    });
    assert.match(d.message, /'Org::Service::Resource' or 'Namespace.Area\/typeName'/);
  });

  test('an unknown key in a reference', () => {
    const text = pretty(withTraits({ references: [{ typeName: 'Org::Data::Db', identifiers: {} }] }));
    assertOnly(validate(text), {
      rule: 'TP2045',
      pointer: '/traits/references/0/identifiers',
      line: lineOf(text, '"identifiers"'),
      column: 9,
    });
  });

  test('ids may not be empty (omit it for the implicit mapping)', () => {
    const text = pretty(withTraits({ references: [{ typeName: 'Org::Data::Db', ids: {} }] }));
    const d = assertOnly(validate(text), {
      rule: 'TP2045',
      pointer: '/traits/references/0/ids',
      line: lineOf(text, '"ids"'),
      column: 16,
    });
    assert.match(d.message, /omit it/);
  });

  test('an ids key must be a property name or a /properties pointer: located at the key', () => {
    const text = pretty(
      withTraits({
        references: [{ typeName: 'Org::Data::Db', ids: { 'properties/Name': '/properties/Name' } }],
      }),
    );
    const d = assertOnly(validate(text), {
      rule: 'TP2045',
      pointer: '/traits/references/0/ids/properties~1Name',
      line: lineOf(text, '"properties/Name"'),
      column: 11,
    });
    assert.match(d.message, /ids key 'properties\/Name'/);
    const definitions = pretty(
      withTraits({
        references: [{ typeName: 'Org::Data::Db', ids: { '/definitions/X': '/properties/Name' } }],
      }),
    );
    assertOnly(validate(definitions), {
      rule: 'TP2045',
      pointer: '/traits/references/0/ids/~1definitions~1X',
      line: lineOf(definitions, '"/definitions/X"'),
      column: 11,
    });
  });

  test('an ids value must be a property pointer', () => {
    const text = pretty(
      withTraits({ references: [{ typeName: 'Org::Data::Db', ids: { Name: 'DatabaseName' } }] }),
    );
    const d = assertOnly(validate(text), {
      rule: 'TP2045',
      pointer: '/traits/references/0/ids/Name',
      line: lineOf(text, '"Name": "DatabaseName"'),
      column: 19,
    });
    assert.match(d.message, /reference member 'DatabaseName' must be a property pointer/);
  });
});

describe('TP2046: reference members resolve in this schema', () => {
  test('a member that is not a declared property is located at its value', () => {
    const text = pretty(
      withTraits({ references: [{ typeName: 'Org::Data::Db', ids: { Name: '/properties/Nope' } }] }),
    );
    const d = assertOnly(validate(text), {
      rule: 'TP2046',
      pointer: '/traits/references/0/ids/Name',
      line: lineOf(text, '"/properties/Nope"'),
      column: 19,
    });
    assert.match(d.message, /'\/properties\/Nope' does not name a declared property/);
  });

  test('a member under a list must go through its items (*)', () => {
    const text = pretty(
      withTraits({
        references: [
          { typeName: 'Org::Data::Db', ids: { '/properties/Name': '/properties/Replicas/Db' } },
          { typeName: 'Org::Data::Db', ids: { '/properties/Name': '/properties/Replicas/*/Db' } },
        ],
      }),
    );
    assertOnly(validate(text), {
      rule: 'TP2046',
      pointer: '/traits/references/0/ids/~1properties~1Name',
      line: lineOf(text, '"/properties/Replicas/Db"'),
      column: 31,
    });
  });

  test('each unresolved member of several references is reported', () => {
    const text = pretty(
      withTraits({
        references: [
          { typeName: 'Org::Data::Db', ids: { Name: '/properties/A', Region: '/properties/Name' } },
          { typeName: 'Org::Data::Cache', ids: { Name: '/properties/B' } },
        ],
      }),
    );
    assertDiagnostics(validate(text), [
      {
        rule: 'TP2046',
        pointer: '/traits/references/0/ids/Name',
        line: lineOf(text, '"/properties/A"'),
        column: 19,
      },
      {
        rule: 'TP2046',
        pointer: '/traits/references/1/ids/Name',
        line: lineOf(text, '"/properties/B"'),
        column: 19,
      },
    ]);
  });
});

/**
 * The restricted property-schema language: $ref targets (TP2015, TP2016), refused keywords
 * (TP2020-TP2025, TP2027), names (TP2026), regular expressions (TP2028) and the CloudFormation
 * annotations insertionOrder, arrayType and relationshipRef (TP2033).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertClean, assertDiagnostics, assertOnly, validate } from './helpers.js';

/**
 * A valid schema with one more property, `Spec`, whose schema text starts on line 6 at column 13
 * (after `    "Spec": `). Continuation lines of `spec` are taken as written.
 */
function withSpec(spec: string, extra = ''): string {
  return `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" },
    "Spec": ${spec}
  },${extra}
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"],
  "required": ["Name"]
}
`;
}

describe('TP2015 $ref to a missing definition', () => {
  it('reports the $ref value', () => {
    const d = assertOnly(validate(withSpec('{ "$ref": "#/definitions/Spec" }')), {
      rule: 'TP2015',
      pointer: '/properties/Spec/$ref',
      line: 6,
      column: 23,
    });
    assert.match(d.message, /#\/definitions\/Spec/);
  });

  it('resolves a $ref to a declared definition', () => {
    const text = withSpec(
      '{ "$ref": "#/definitions/Spec" }',
      `
  "definitions": {
    "Spec": { "type": "string" }
  },`,
    );
    assertClean(validate(text));
  });

  it('reports a $ref deep inside a definition', () => {
    const text = withSpec(
      '{ "$ref": "#/definitions/Spec" }',
      `
  "definitions": {
    "Spec": {
      "type": "array",
      "items": { "$ref": "#/definitions/Item" }
    }
  },`,
    );
    assertOnly(validate(text), {
      rule: 'TP2015',
      pointer: '/definitions/Spec/items/$ref',
      line: 11,
      column: 26,
    });
  });

  it('reports an unknown built-in schema', () => {
    assertOnly(validate(withSpec('{ "$ref": "typeplane:Nope" }')), {
      rule: 'TP2015',
      pointer: '/properties/Spec/$ref',
      line: 6,
      column: 23,
    });
  });
});

describe('TP2016 non-local $ref', () => {
  for (const ref of [
    'https://example.com/schemas/spec.json',
    'other.json#/definitions/Spec',
    'schema.json',
  ]) {
    it(`reports ${ref}`, () => {
      assertOnly(validate(withSpec(`{ "$ref": "${ref}" }`)), {
        rule: 'TP2016',
        pointer: '/properties/Spec/$ref',
        line: 6,
        column: 23,
      });
    });
  }

  it('accepts built-in typeplane: refs and inlines them into the model definitions', () => {
    const text = withSpec(`{
      "type": "array",
      "items": { "$ref": "typeplane:Tag" }
    },
    "Tags": { "$ref": "typeplane:Tags" }`);
    const result = validate(text);
    assertClean(result);
    const schema = result.types[0]!.schema as {
      properties: Record<string, { $ref?: string; items?: { $ref: string } }>;
      definitions: Record<string, { properties?: object; items?: { $ref: string } }>;
    };
    assert.equal(schema.properties.Spec!.items!.$ref, '#/definitions/typeplane:Tag');
    assert.equal(schema.properties.Tags!.$ref, '#/definitions/typeplane:Tags');
    assert.deepEqual(Object.keys(schema.definitions).sort(), ['typeplane:Tag', 'typeplane:Tags']);
    assert.deepEqual(Object.keys(schema.definitions['typeplane:Tag']!.properties!), ['Key', 'Value']);
    assert.equal(schema.definitions['typeplane:Tags']!.items!.$ref, '#/definitions/typeplane:Tag');
  });
});

describe('TP2020 $id/$schema in a property', () => {
  for (const key of ['$id', '$schema']) {
    it(`reports ${key} at its name`, () => {
      const text = withSpec(`{
      "type": "string",
      "${key}": "https://example.com/spec"
    }`);
      assertOnly(validate(text), { rule: 'TP2020', pointer: `/properties/Spec/${key}`, line: 8, column: 7 });
    });
  }
});

describe('TP2021 if/then/else/not', () => {
  it('reports each of if, then and else', () => {
    const text = withSpec(`{
      "type": "object",
      "additionalProperties": false,
      "if": { "required": ["A"] },
      "then": { "required": ["B"] },
      "else": { "required": ["C"] }
    }`);
    assertDiagnostics(validate(text), [
      { rule: 'TP2021', pointer: '/properties/Spec/if', line: 9, column: 7 },
      { rule: 'TP2021', pointer: '/properties/Spec/then', line: 10, column: 7 },
      { rule: 'TP2021', pointer: '/properties/Spec/else', line: 11, column: 7 },
    ]);
  });

  it('reports not', () => {
    const text = withSpec(`{
      "type": "string",
      "not": { "enum": ["none"] }
    }`);
    assertOnly(validate(text), { rule: 'TP2021', pointer: '/properties/Spec/not', line: 8, column: 7 });
  });
});

describe('TP2022 propertyNames', () => {
  it('reports propertyNames', () => {
    const text = withSpec(`{
      "type": "object",
      "additionalProperties": false,
      "propertyNames": { "pattern": "^[a-z]+$" }
    }`);
    assertOnly(validate(text), {
      rule: 'TP2022',
      pointer: '/properties/Spec/propertyNames',
      line: 9,
      column: 7,
    });
  });
});

describe('TP2023 additionalProperties inside a property', () => {
  it('reports true, at the value', () => {
    const text = withSpec(`{
      "type": "object",
      "additionalProperties": true
    }`);
    assertOnly(validate(text), {
      rule: 'TP2023',
      pointer: '/properties/Spec/additionalProperties',
      line: 8,
      column: 31,
    });
  });

  it('reports a schema object', () => {
    const text = withSpec(`{
      "type": "object",
      "additionalProperties": { "type": "string" }
    }`);
    assertOnly(validate(text), {
      rule: 'TP2023',
      pointer: '/properties/Spec/additionalProperties',
      line: 8,
      column: 31,
    });
  });

  it('reports it in a definition too', () => {
    const text = withSpec(
      '{ "$ref": "#/definitions/Spec" }',
      `
  "definitions": {
    "Spec": { "type": "object", "additionalProperties": {} }
  },`,
    );
    assertOnly(validate(text), {
      rule: 'TP2023',
      pointer: '/definitions/Spec/additionalProperties',
      line: 9,
      column: 57,
    });
  });
});

describe('TP2024 properties with patternProperties', () => {
  it('reports the schema that has both', () => {
    const text = withSpec(`{
      "type": "object",
      "additionalProperties": false,
      "properties": { "A": { "type": "string" } },
      "patternProperties": { "^x-": { "type": "string" } }
    }`);
    assertOnly(validate(text), { rule: 'TP2024', pointer: '/properties/Spec', line: 6, column: 13 });
  });
});

describe('TP2025 tuples', () => {
  it('reports items as an array', () => {
    const text = withSpec(`{
      "type": "array",
      "items": [{ "type": "string" }, { "type": "integer" }]
    }`);
    assertOnly(validate(text), { rule: 'TP2025', pointer: '/properties/Spec/items', line: 8, column: 16 });
  });

  it('reports additionalItems', () => {
    const text = withSpec(`{
      "type": "array",
      "items": { "type": "string" },
      "additionalItems": false
    }`);
    assertOnly(validate(text), {
      rule: 'TP2025',
      pointer: '/properties/Spec/additionalItems',
      line: 9,
      column: 7,
    });
  });

  it('does not take a property named items for the keyword', () => {
    const text = withSpec(`{
      "type": "object",
      "additionalProperties": false,
      "properties": { "items": [] }
    }`);
    assertOnly(validate(text), {
      rule: 'TP1010',
      pointer: '/properties/Spec/properties/items',
      line: 9,
      column: 32,
    });
  });
});

describe('TP2026 property and definition names', () => {
  it('reports a property name with a dash, at the name', () => {
    const text = withSpec('{ "type": "string" },\n    "Bad-Name": { "type": "string" }');
    assertOnly(validate(text), { rule: 'TP2026', pointer: '/properties/Bad-Name', line: 7, column: 5 });
  });

  it('reports a nested property name', () => {
    const text = withSpec(`{
      "type": "object",
      "additionalProperties": false,
      "properties": { "has space": { "type": "string" } }
    }`);
    assertOnly(validate(text), {
      rule: 'TP2026',
      pointer: '/properties/Spec/properties/has space',
      line: 9,
      column: 23,
    });
  });

  it('reports a definition name with an underscore, and one over 64 characters', () => {
    const long = 'A'.repeat(65);
    const text = withSpec(
      '{ "type": "string" }',
      `
  "definitions": {
    "Bad_Name": { "type": "string" },
    "${long}": { "type": "string" }
  },`,
    );
    assertDiagnostics(validate(text), [
      { rule: 'TP2026', pointer: '/definitions/Bad_Name', line: 9, column: 5 },
      { rule: 'TP2026', pointer: `/definitions/${long}`, line: 10, column: 5 },
    ]);
  });
});

describe('TP2027 unknown keyword', () => {
  it('reports a misspelt keyword at its name', () => {
    const text = withSpec(`{
      "type": "string",
      "maxLenght": 10
    }`);
    const d = assertOnly(validate(text), {
      rule: 'TP2027',
      pointer: '/properties/Spec/maxLenght',
      line: 8,
      column: 7,
    });
    assert.match(d.message, /'maxLenght'/);
  });

  it('reports definitions nested in a property', () => {
    const text = withSpec(`{
      "type": "string",
      "definitions": {}
    }`);
    assertOnly(validate(text), {
      rule: 'TP2027',
      pointer: '/properties/Spec/definitions',
      line: 8,
      column: 7,
    });
  });
});

describe('TP2028 regular expressions', () => {
  it('reports an invalid pattern, at the value', () => {
    const text = withSpec(`{
      "type": "string",
      "pattern": "[a-"
    }`);
    assertOnly(validate(text), { rule: 'TP2028', pointer: '/properties/Spec/pattern', line: 8, column: 18 });
  });

  it('reports an invalid patternProperties key, at the key', () => {
    const text = withSpec(`{
      "type": "object",
      "additionalProperties": false,
      "patternProperties": {
        "^(a": { "type": "string" }
      }
    }`);
    assertOnly(validate(text), {
      rule: 'TP2028',
      pointer: '/properties/Spec/patternProperties/^(a',
      line: 10,
      column: 9,
    });
  });

  it('rejects a lookahead, which RE2 does not support', () => {
    const text = withSpec(`{
      "type": "string",
      "pattern": "^(?=a)a+$"
    }`);
    const d = assertOnly(validate(text), {
      rule: 'TP2028',
      pointer: '/properties/Spec/pattern',
      line: 8,
      column: 18,
    });
    assert.match(d.message, /RE2/);
  });

  it('says that a lookbehind is lookaround, which RE2 lacks', () => {
    const text = withSpec(`{
      "type": "string",
      "pattern": "(?<!x)y"
    }`);
    const d = assertOnly(validate(text), {
      rule: 'TP2028',
      pointer: '/properties/Spec/pattern',
      line: 8,
      column: 18,
    });
    assert.match(d.message, /lookaround is not supported: RE2 has no lookahead or lookbehind/);
    assert.doesNotMatch(d.message, /named capture/);
  });

  for (const pattern of [
    '(a)\\\\1',
    '(?<=a)b',
    '\\\\u0041',
    '\\\\cA',
    '[^]',
    '(a{100}){100}',
    '\\\\p{Script=Greek}',
  ]) {
    it(`rejects ${pattern}, which ECMAScript accepts and RE2 does not`, () => {
      const text = withSpec(`{
      "type": "string",
      "pattern": "${pattern}"
    }`);
      assertOnly(validate(text), {
        rule: 'TP2028',
        pointer: '/properties/Spec/pattern',
        line: 8,
        column: 18,
      });
    });
  }

  for (const pattern of [
    '(?s).*',
    '(?i)^abc$',
    '\\\\Aabc\\\\z',
    '^\\\\pL+$',
    '[[:alpha:]]+',
    '^arn:aws[a-z-]*:s3:::[a-z0-9.-]{3,63}$',
  ]) {
    it(`accepts ${pattern}, which RE2 accepts`, () => {
      const text = withSpec(`{
      "type": "string",
      "pattern": "${pattern}"
    }`);
      assertClean(validate(text));
    });
  }
});

describe('TP2033 insertionOrder, arrayType, relationshipRef', () => {
  it('reports a non-boolean insertionOrder', () => {
    const text = withSpec(`{
      "type": "array",
      "items": { "type": "string" },
      "insertionOrder": "yes"
    }`);
    assertOnly(validate(text), {
      rule: 'TP2033',
      pointer: '/properties/Spec/insertionOrder',
      line: 9,
      column: 25,
    });
  });

  it('reports an unknown arrayType', () => {
    const text = withSpec(`{
      "type": "array",
      "items": { "type": "string" },
      "arrayType": "List"
    }`);
    assertOnly(validate(text), {
      rule: 'TP2033',
      pointer: '/properties/Spec/arrayType',
      line: 9,
      column: 20,
    });
  });

  it('reports a relationshipRef without propertyPath', () => {
    const text = withSpec(`{
      "type": "string",
      "relationshipRef": { "typeName": "AWS::S3::Bucket" }
    }`);
    assertOnly(validate(text), {
      rule: 'TP2033',
      pointer: '/properties/Spec/relationshipRef',
      line: 8,
      column: 26,
    });
  });

  it('reports a malformed relationshipRef typeName, propertyPath and extra key', () => {
    const text = withSpec(`{
      "type": "string",
      "relationshipRef": {
        "typeName": "Bucket",
        "propertyPath": "BucketName",
        "kind": "strong"
      }
    }`);
    assertDiagnostics(validate(text), [
      { rule: 'TP2033', pointer: '/properties/Spec/relationshipRef/typeName', line: 9, column: 21 },
      { rule: 'TP2033', pointer: '/properties/Spec/relationshipRef/propertyPath', line: 10, column: 25 },
      { rule: 'TP2033', pointer: '/properties/Spec/relationshipRef/kind', line: 11, column: 9 },
    ]);
  });

  it('accepts all three when well formed', () => {
    const text = withSpec(`{
      "type": "array",
      "insertionOrder": false,
      "arrayType": "AttributeList",
      "items": {
        "type": "string",
        "relationshipRef": { "typeName": "AWS::S3::Bucket", "propertyPath": "/properties/BucketName" }
      }
    }`);
    assertClean(validate(text));
  });
});

describe('other property-schema shapes', () => {
  it('reports a property schema that is not an object, once', () => {
    assertOnly(validate(withSpec('"string"')), {
      rule: 'TP1010',
      pointer: '/properties/Spec',
      line: 6,
      column: 13,
    });
    assertOnly(validate(withSpec('true')), {
      rule: 'TP1010',
      pointer: '/properties/Spec',
      line: 6,
      column: 13,
    });
  });

  it('reports an unknown type name', () => {
    const d = assertOnly(validate(withSpec('{ "type": "strnig" }')), {
      rule: 'TP1010',
      pointer: '/properties/Spec/type',
      line: 6,
      column: 23,
    });
    assert.match(d.message, /'strnig' is not a JSON type/);
  });
});

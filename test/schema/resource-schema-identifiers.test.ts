/**
 * Property pointers: their form (TP2005), whether identifiers resolve (TP2010) and other lists do
 * (TP2011), overlaps between lists (TP2012-TP2014) and the shape of identifier lists (TP2034).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertClean,
  assertDiagnostics,
  assertOnly,
  assertValid,
  pretty,
  schemaWith,
  validate,
  type Json,
} from './helpers.js';

const valid = `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" },
    "Arn": { "type": "string" }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"],
  "required": ["Name"]
}
`;

/** `valid` with one more top-level key before `createOnlyProperties` (on line 10). */
const withKey = (json: string): string =>
  valid.replace('  "createOnlyProperties"', `  ${json},\n  "createOnlyProperties"`);

describe('TP2005 malformed property pointer', () => {
  it('reports an identifier that is not a pointer, and nothing else about it', () => {
    const text = valid.replace('["/properties/Name"],\n  "createOnly', '["Name"],\n  "createOnly');
    const d = assertOnly(validate(text), {
      rule: 'TP2005',
      pointer: '/primaryIdentifier/0',
      line: 9,
      column: 25,
    });
    assert.match(d.message, /'Name'/);
  });

  it('reports a malformed entry in a property list', () => {
    assertOnly(validate(withKey('"readOnlyProperties": ["/properties/Arn", "properties/Arn"]')), {
      rule: 'TP2005',
      pointer: '/readOnlyProperties/1',
      line: 10,
      column: 45,
    });
  });

  it('reports pointers with an empty segment or outside properties', () => {
    assertOnly(validate(withKey('"additionalIdentifiers": [["/properties//Arn"]]')), {
      rule: 'TP2005',
      pointer: '/additionalIdentifiers/0/0',
      line: 10,
      column: 30,
    });
    assertOnly(validate(withKey('"additionalIdentifiers": [["/definitions/Arn"]]')), {
      rule: 'TP2005',
      pointer: '/additionalIdentifiers/0/0',
      line: 10,
      column: 30,
    });
  });

  it('reports a malformed tagging.tagProperty', () => {
    assertOnly(validate(withKey('"tagging": { "taggable": true, "tagProperty": "Tags" }')), {
      rule: 'TP2005',
      pointer: '/tagging/tagProperty',
      line: 10,
      column: 49,
    });
  });
});

describe('TP2010 identifier does not resolve', () => {
  it('reports a primaryIdentifier naming no property', () => {
    const text = valid.replace(
      '"primaryIdentifier": ["/properties/Name"]',
      '"primaryIdentifier": ["/properties/Id"]',
    );
    const d = assertOnly(validate(text), {
      rule: 'TP2010',
      pointer: '/primaryIdentifier/0',
      line: 9,
      column: 25,
    });
    assert.match(d.message, /'\/properties\/Id'/);
  });

  it('reports an additionalIdentifiers pointer naming no property', () => {
    assertOnly(
      validate(
        withKey('"additionalIdentifiers": [["/properties/Arn"], ["/properties/Name", "/properties/Id"]]'),
      ),
      {
        rule: 'TP2010',
        pointer: '/additionalIdentifiers/1/1',
        line: 10,
        column: 71,
      },
    );
  });

  const model: { [key: string]: Json } = {
    definitions: {
      Config: {
        type: 'object',
        additionalProperties: false,
        properties: {
          Id: { type: 'string' },
          Network: { type: 'object', additionalProperties: false, properties: { VpcId: { type: 'string' } } },
        },
      },
      Rule: { type: 'object', additionalProperties: false, properties: { RuleId: { type: 'string' } } },
    },
    properties: {
      Name: { type: 'string' },
      Config: { $ref: '#/definitions/Config' },
      Rules: { type: 'array', items: { $ref: '#/definitions/Rule' } },
      Matrix: {
        type: 'array',
        items: {
          type: 'array',
          items: { type: 'object', additionalProperties: false, properties: { Cell: { type: 'string' } } },
        },
      },
      Target: {
        type: 'object',
        oneOf: [
          { type: 'object', additionalProperties: false, properties: { BucketName: { type: 'string' } } },
          { type: 'object', additionalProperties: false, properties: { QueueUrl: { type: 'string' } } },
        ],
      },
      Source: { anyOf: [{ $ref: '#/definitions/Rule' }, { type: 'string' }] },
      Tags: { $ref: 'typeplane:Tags' },
      Labels: {
        type: 'object',
        additionalProperties: false,
        patternProperties: { '^[a-z]+$': { type: 'string' } },
      },
    },
  };

  const resolving = [
    ['through $ref into definitions', '/properties/Config/Id'],
    ['into nested objects through $ref', '/properties/Config/Network/VpcId'],
    ['through arrays with /*/', '/properties/Rules/*/RuleId'],
    ['through nested arrays', '/properties/Matrix/*/*/Cell'],
    ['into a oneOf branch', '/properties/Target/BucketName'],
    ['into another oneOf branch', '/properties/Target/QueueUrl'],
    ['into an anyOf branch through $ref', '/properties/Source/RuleId'],
    ['through a built-in typeplane: schema', '/properties/Tags/*/Key'],
    ['to a whole array', '/properties/Rules'],
    ['into patternProperties by a matching name', '/properties/Labels/team'],
  ] as const;

  for (const [how, pointer] of resolving) {
    it(`resolves ${how}: ${pointer}`, () => {
      const doc = schemaWith({ ...model, additionalIdentifiers: [[pointer]], readOnlyProperties: [pointer] });
      assertClean(validate(pretty(doc)));
    });
  }

  const dangling = [
    ['a missing nested property', '/properties/Config/Nope'],
    ['an array member without /*/', '/properties/Rules/RuleId'],
    ['/*/ on something that is not an array', '/properties/Config/*/Id'],
    ['a name in no branch', '/properties/Target/Topic'],
    ['a name patternProperties does not match', '/properties/Labels/Team'],
    ['through a scalar', '/properties/Name/Length'],
  ] as const;

  for (const [what, pointer] of dangling) {
    it(`reports ${what}: ${pointer}`, () => {
      const doc = schemaWith({ ...model, additionalIdentifiers: [[pointer]] });
      const text = pretty(doc);
      const line = text.split('\n').findIndex((l) => l.includes(`"${pointer}"`)) + 1;
      assertOnly(validate(text), { rule: 'TP2010', pointer: '/additionalIdentifiers/0/0', line, column: 7 });
    });
  }
});

describe('TP2011 dangling pointer in a property list', () => {
  for (const list of [
    'readOnlyProperties',
    'writeOnlyProperties',
    'createOnlyProperties',
    'conditionalCreateOnlyProperties',
    'deprecatedProperties',
  ]) {
    it(`warns about ${list}, and the document stays valid`, () => {
      const text =
        list === 'createOnlyProperties'
          ? valid.replace(
              '"createOnlyProperties": ["/properties/Name"]',
              '"createOnlyProperties": ["/properties/Name", "/properties/Nope"]',
            )
          : withKey(`"${list}": ["/properties/Nope"]`);
      // `  "<list>": [` puts the first entry at the list name's length + 8.
      const column = list === 'createOnlyProperties' ? 48 : list.length + 8;
      const line = 10;
      const d = assertOnly(validate(text), {
        rule: 'TP2011',
        severity: 'warning',
        pointer: list === 'createOnlyProperties' ? `/${list}/1` : `/${list}/0`,
        line,
        column,
      });
      assert.match(d.message, /'\/properties\/Nope'/);
      const result = validate(text);
      assert.equal(result.valid, true);
      assert.equal(result.types.length, 1);
    });
  }

  it('accepts entries that point into definitions', () => {
    const doc = schemaWith({
      definitions: {
        Thing: { type: 'object', additionalProperties: false, properties: { Id: { type: 'string' } } },
      },
      readOnlyProperties: ['/definitions/Thing/properties/Id'],
    });
    assertClean(validate(pretty(doc)));
  });
});

describe('overlapping property lists', () => {
  it('TP2012: create-only and conditionally create-only is an error', () => {
    const d = assertOnly(validate(withKey('"conditionalCreateOnlyProperties": ["/properties/Name"]')), {
      rule: 'TP2012',
      pointer: '/conditionalCreateOnlyProperties/0',
      line: 10,
      column: 39,
    });
    assert.equal(d.severity, 'error');
  });

  it('TP2013: read-only and conditionally create-only is an error', () => {
    const text = withKey(
      '"readOnlyProperties": ["/properties/Arn"],\n  "conditionalCreateOnlyProperties": ["/properties/Arn"]',
    );
    assertOnly(validate(text), {
      rule: 'TP2013',
      pointer: '/conditionalCreateOnlyProperties/0',
      line: 11,
      column: 39,
    });
  });

  it('TP2014: read-only and write-only is a warning', () => {
    const text = withKey(
      '"readOnlyProperties": ["/properties/Arn"],\n  "writeOnlyProperties": ["/properties/Arn"]',
    );
    const result = validate(text);
    assertOnly(result, {
      rule: 'TP2014',
      severity: 'warning',
      pointer: '/writeOnlyProperties/0',
      line: 11,
      column: 27,
    });
    assertValid(result);
  });

  it('reports every overlapping entry (and the write-only identifier)', () => {
    const text = withKey(
      '"readOnlyProperties": ["/properties/Arn", "/properties/Name"],\n  "writeOnlyProperties": ["/properties/Name", "/properties/Arn"]',
    );
    assertDiagnostics(validate(text), [
      { rule: 'TP2014', pointer: '/writeOnlyProperties/0', line: 11, column: 27 },
      { rule: 'TP2014', pointer: '/writeOnlyProperties/1', line: 11, column: 47 },
      { rule: 'TP2018', pointer: '/primaryIdentifier/0', line: 9, column: 25 },
    ]);
  });
});

describe('TP2034 malformed identifier list', () => {
  it('reports an empty primaryIdentifier', () => {
    const text = valid.replace('"primaryIdentifier": ["/properties/Name"]', '"primaryIdentifier": []');
    assertOnly(validate(text), { rule: 'TP2034', pointer: '/primaryIdentifier', line: 9, column: 24 });
  });

  it('reports a primaryIdentifier that is not a list', () => {
    const text = valid.replace(
      '"primaryIdentifier": ["/properties/Name"]',
      '"primaryIdentifier": "/properties/Name"',
    );
    assertOnly(validate(text), { rule: 'TP2034', pointer: '/primaryIdentifier', line: 9, column: 24 });
  });

  it('reports a pointer listed twice', () => {
    const text = valid.replace(
      '"primaryIdentifier": ["/properties/Name"]',
      '"primaryIdentifier": ["/properties/Name", "/properties/Name"]',
    );
    assertOnly(validate(text), { rule: 'TP2034', pointer: '/primaryIdentifier', line: 9, column: 24 });
  });

  it('reports an empty additionalIdentifiers, or an empty list in it', () => {
    assertOnly(validate(withKey('"additionalIdentifiers": []')), {
      rule: 'TP2034',
      pointer: '/additionalIdentifiers',
      line: 10,
      column: 28,
    });
    assertOnly(validate(withKey('"additionalIdentifiers": [[]]')), {
      rule: 'TP2034',
      pointer: '/additionalIdentifiers/0',
      line: 10,
      column: 29,
    });
  });
});

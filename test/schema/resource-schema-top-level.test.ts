/**
 * The resource schema document as a whole: its typeName, required and unknown top-level keys,
 * top-level additionalProperties, and that every problem is reported in one pass.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertClean, assertDiagnostics, assertOnly, pretty, schemaWith, validate } from './helpers.js';

const valid = `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"],
  "required": ["Name"]
}
`;

describe('a minimal resource schema', () => {
  it('is valid with no diagnostic', () => {
    const result = validate(valid);
    assertClean(result);
    assert.equal(result.dialect, 'resource-schema');
    assert.equal(result.file, 'x.json');
  });

  it('is valid in YAML too', () => {
    const text = `typeName: Org::Service::Thing
description: A thing.
properties:
  Name:
    type: string
additionalProperties: false
primaryIdentifier:
  - /properties/Name
createOnlyProperties:
  - /properties/Name
required:
  - Name
`;
    assertClean(validate(text, { file: 'x.yaml' }));
  });
});

describe('TP2001 typeName', () => {
  it('reports a typeName of two parts', () => {
    const text = valid.replace('"Org::Service::Thing"', '"Org::Thing"');
    const d = assertOnly(validate(text), { rule: 'TP2001', pointer: '/typeName', line: 2, column: 15 });
    assert.match(d.message, /Org::Service::Resource/);
  });

  it('reports every malformed form at the value', () => {
    for (const bad of [
      '"Org::Service::Thing::Extra"',
      '"O::Service::Thing"',
      '"Org::Serv-ice::Thing"',
      '"Org:Service:Thing"',
      '""',
      '5',
      'null',
    ]) {
      assertOnly(validate(valid.replace('"Org::Service::Thing"', bad)), {
        rule: 'TP2001',
        pointer: '/typeName',
        line: 2,
        column: 15,
      });
    }
  });

  it('reports it in a YAML resource schema', () => {
    const text = `typeName: Org::Thing
description: A thing.
properties:
  Name:
    type: string
additionalProperties: false
primaryIdentifier:
  - /properties/Name
createOnlyProperties:
  - /properties/Name
`;
    assertOnly(validate(text, { file: 'x.yaml' }), {
      rule: 'TP2001',
      pointer: '/typeName',
      line: 1,
      column: 11,
      file: 'x.yaml',
    });
  });
});

describe('TP2002 required key missing', () => {
  it('reports a missing description at the document', () => {
    const text = `{
  "typeName": "Org::Service::Thing",
  "properties": {
    "Name": { "type": "string" }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"]
}
`;
    const d = assertOnly(validate(text), { rule: 'TP2002', pointer: '', line: 1, column: 1 });
    assert.match(d.message, /'description'/);
  });

  for (const key of ['description', 'properties', 'primaryIdentifier', 'additionalProperties']) {
    it(`reports a missing ${key}, and nothing else`, () => {
      const d = assertOnly(validate(pretty(schemaWith({ [key]: undefined }))), {
        rule: 'TP2002',
        pointer: '',
        line: 1,
        column: 1,
      });
      assert.match(d.message, new RegExp(`'${key}'`));
    });
  }

  it('reports each missing key once', () => {
    assertDiagnostics(validate('{\n  "typeName": "Org::Service::Thing"\n}\n'), [
      { rule: 'TP2002', pointer: '', line: 1, column: 1 },
      { rule: 'TP2002', pointer: '', line: 1, column: 1 },
      { rule: 'TP2002', pointer: '', line: 1, column: 1 },
      { rule: 'TP2002', pointer: '', line: 1, column: 1 },
    ]);
  });
});

describe('TP2003 unknown top-level key', () => {
  it('reports the key, located at its name', () => {
    const text = `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"],
  "handler": {}
}
`;
    const d = assertOnly(validate(text), { rule: 'TP2003', pointer: '/handler', line: 10, column: 3 });
    assert.match(d.message, /'handler'/);
  });

  it('reports it in YAML at the key', () => {
    const text = `typeName: Org::Service::Thing
description: A thing.
properties:
  Name:
    type: string
additionalProperties: false
primaryIdentifier:
  - /properties/Name
createOnlyProperties:
  - /properties/Name
sourceURL: https://example.com
`;
    assertOnly(validate(text, { file: 'x.yaml' }), {
      rule: 'TP2003',
      pointer: '/sourceURL',
      line: 11,
      column: 1,
      file: 'x.yaml',
    });
  });

  it('escapes the key in the pointer', () => {
    const text = valid.replace('"createOnlyProperties"', '"a/b~c": 1,\n  "createOnlyProperties"');
    assertOnly(validate(text), { rule: 'TP2003', pointer: '/a~1b~0c', line: 9, column: 3 });
  });
});

describe('TP2004 top-level additionalProperties', () => {
  it('reports true', () => {
    const text = valid.replace('"additionalProperties": false', '"additionalProperties": true');
    assertOnly(validate(text), { rule: 'TP2004', pointer: '/additionalProperties', line: 7, column: 27 });
  });

  it('reports a schema', () => {
    const text = valid.replace(
      '"additionalProperties": false',
      '"additionalProperties": { "type": "string" }',
    );
    assertOnly(validate(text), { rule: 'TP2004', pointer: '/additionalProperties', line: 7, column: 27 });
  });
});

describe('one pass', () => {
  it('collects all problems: five different errors, all reported and located', () => {
    const text = `{
  "typeName": "Org::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" },
    "Size": { "$ref": "#/definitions/Size" }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Id"],
  "createOnlyProperties": ["/properties/Name"],
  "handlers": {
    "create": { "permissions": [], "timeoutInMinutes": 1 }
  },
  "sourceURL": "https://example.com"
}
`;
    const result = validate(text);
    assertDiagnostics(result, [
      { rule: 'TP2001', pointer: '/typeName', line: 2, column: 15 },
      { rule: 'TP2015', pointer: '/properties/Size/$ref', line: 6, column: 23 },
      { rule: 'TP2010', pointer: '/primaryIdentifier/0', line: 9, column: 25 },
      { rule: 'TP2031', pointer: '/handlers/create/timeoutInMinutes', line: 12, column: 56 },
      { rule: 'TP2003', pointer: '/sourceURL', line: 14, column: 3 },
    ]);
    assert.equal(result.valid, false);
    assert.deepEqual(result.types, []);
  });
});

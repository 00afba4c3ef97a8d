/**
 * Warnings (TP2040-TP2044): reported and located, but the document stays valid and is normalised.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertClean,
  assertDiagnostics,
  assertOnly,
  assertValid,
  validate,
  type Expected,
} from './helpers.js';

/** Exactly one warning, and the document is still valid with its type. */
function assertWarning(text: string, expected: Expected): void {
  const result = validate(text);
  const d = assertOnly(result, expected);
  assert.equal(d.severity, 'warning');
  assertValid(result);
}

describe('TP2040 nested object allows additional properties', () => {
  it('warns about a property object without additionalProperties: false', () => {
    const text = `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" },
    "Spec": {
      "type": "object",
      "properties": { "Size": { "type": "integer" } }
    }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"],
  "required": ["Name"]
}
`;
    assertWarning(text, { rule: 'TP2040', pointer: '/properties/Spec', line: 6, column: 13 });
  });

  it('warns about objects nested in definitions, array items and branches', () => {
    const text = `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "definitions": {
    "Rule": { "type": "object", "properties": { "Id": { "type": "string" } } }
  },
  "properties": {
    "Name": { "type": "string" },
    "Rules": {
      "type": "array",
      "items": { "type": "object", "properties": { "Id": { "type": "string" } } }
    },
    "Target": {
      "oneOf": [
        { "type": "object", "properties": { "Arn": { "type": "string" } } },
        { "type": "string" }
      ]
    }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"],
  "required": ["Name"]
}
`;
    const result = validate(text);
    assertDiagnostics(result, [
      { rule: 'TP2040', pointer: '/definitions/Rule', line: 5, column: 13 },
      { rule: 'TP2040', pointer: '/properties/Rules/items', line: 11, column: 16 },
      { rule: 'TP2040', pointer: '/properties/Target/oneOf/0', line: 15, column: 9 },
    ]);
    assertValid(result);
  });
});

describe('TP2041 wildcard permission', () => {
  it('warns about * and service-wide wildcards, at each entry', () => {
    const text = `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"],
  "handlers": {
    "create": { "permissions": ["svc:CreateThing", "s3:*"] },
    "delete": { "permissions": ["*"] }
  },
  "required": ["Name"]
}
`;
    const result = validate(text);
    assertDiagnostics(result, [
      { rule: 'TP2041', pointer: '/handlers/create/permissions/1', line: 11, column: 52 },
      { rule: 'TP2041', pointer: '/handlers/delete/permissions/0', line: 12, column: 33 },
    ]);
    assertValid(result);
  });
});

describe('TP2042 identifier neither read-only nor create-only', () => {
  const text = `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "required": ["Name"]
}
`;

  it('warns at the identifier entry', () => {
    assertWarning(text, { rule: 'TP2042', pointer: '/primaryIdentifier/0', line: 8, column: 25 });
  });

  it('is satisfied by readOnlyProperties as well as createOnlyProperties', () => {
    assertClean(
      validate(
        text.replace(
          '"primaryIdentifier": ["/properties/Name"]',
          '"primaryIdentifier": ["/properties/Name"],\n  "readOnlyProperties": ["/properties/Name"]',
        ),
      ),
    );
  });
});

describe('TP2043 unknown format', () => {
  it('warns at the format value', () => {
    const text = `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" },
    "Created": { "type": "string", "format": "timestamp" }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"],
  "required": ["Name"]
}
`;
    assertWarning(text, { rule: 'TP2043', pointer: '/properties/Created/format', line: 6, column: 46 });
    assertClean(validate(text.replace('"timestamp"', '"date-time"')));
  });
});

describe('TP2044 tagging.tagProperty does not resolve', () => {
  it('warns at tagProperty', () => {
    const text = `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"],
  "tagging": { "taggable": true, "tagProperty": "/properties/Tags" },
  "required": ["Name"]
}
`;
    assertWarning(text, { rule: 'TP2044', pointer: '/tagging/tagProperty', line: 10, column: 49 });
  });
});

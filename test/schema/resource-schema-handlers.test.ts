/**
 * Handlers (TP2030), their timeouts (TP2031) and tagging (TP2032).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertClean, assertDiagnostics, assertOnly, validate } from './helpers.js';

/** A valid schema ending with `"<key>": <value>`, the value starting on line 11 at column 7 + key length. */
function withLast(key: string, value: string): string {
  return `{
  "typeName": "Org::Service::Thing",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" },
    "Tags": { "$ref": "typeplane:Tags" }
  },
  "additionalProperties": false,
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"],
  "${key}": ${value},
  "required": ["Name"]
}
`;
}

const withHandlers = (value: string): string => withLast('handlers', value);

describe('TP2030 handler definitions', () => {
  it('reports a handler without permissions', () => {
    const text = withHandlers(`{
    "create": { "timeoutInMinutes": 30 }
  }`);
    const d = assertOnly(validate(text), {
      rule: 'TP2030',
      pointer: '/handlers/create',
      line: 12,
      column: 15,
    });
    assert.match(d.message, /'permissions'/);
  });

  it('reports an unknown handler name, at the name', () => {
    const text = withHandlers(`{
    "create": { "permissions": ["svc:Create"] },
    "upsert": { "permissions": ["svc:Put"] }
  }`);
    const d = assertOnly(validate(text), {
      rule: 'TP2030',
      pointer: '/handlers/upsert',
      line: 13,
      column: 5,
    });
    assert.match(d.message, /create, read, update, delete and list/);
  });

  it('reports an unknown key in a handler', () => {
    const text = withHandlers(`{
    "read": { "permissions": [], "retries": 3 }
  }`);
    assertOnly(validate(text), { rule: 'TP2030', pointer: '/handlers/read/retries', line: 12, column: 34 });
  });

  it('reports permissions that are not a list of strings', () => {
    const text = withHandlers(`{
    "read": { "permissions": "svc:Get" },
    "list": { "permissions": ["svc:List", 7] }
  }`);
    assertDiagnostics(validate(text), [
      { rule: 'TP2030', pointer: '/handlers/read/permissions', line: 12, column: 30 },
      { rule: 'TP2030', pointer: '/handlers/list/permissions/1', line: 13, column: 43 },
    ]);
  });

  it('reports handlers that are not an object', () => {
    assertOnly(validate(withHandlers('["create"]')), {
      rule: 'TP2030',
      pointer: '/handlers',
      line: 11,
      column: 15,
    });
  });

  it('accepts all five handlers with empty permissions', () => {
    const text = withHandlers(`{
    "create": { "permissions": [] },
    "read": { "permissions": [] },
    "update": { "permissions": [] },
    "delete": { "permissions": [] },
    "list": { "permissions": [] }
  }`);
    assertClean(validate(text));
  });
});

describe('TP2031 timeoutInMinutes', () => {
  for (const timeout of ['1', '2161', '0', '-5', '2.5', '"30"']) {
    it(`rejects ${timeout}`, () => {
      const text = withHandlers(`{
    "create": { "permissions": [], "timeoutInMinutes": ${timeout} }
  }`);
      const d = assertOnly(validate(text), {
        rule: 'TP2031',
        pointer: '/handlers/create/timeoutInMinutes',
        line: 12,
        column: 56,
      });
      assert.match(d.message, /2 to 2160/);
    });
  }

  it('accepts 2 and 2160', () => {
    const text = withHandlers(`{
    "create": { "permissions": [], "timeoutInMinutes": 2 },
    "delete": { "permissions": [], "timeoutInMinutes": 2160 }
  }`);
    const result = validate(text);
    assertClean(result);
    assert.equal(result.types[0]!.handlers.create!.timeoutInMinutes, 2);
    assert.equal(result.types[0]!.handlers.delete!.timeoutInMinutes, 2160);
  });
});

describe('TP2032 tagging', () => {
  it('reports tagging that is not an object', () => {
    assertOnly(validate(withLast('tagging', 'true')), {
      rule: 'TP2032',
      pointer: '/tagging',
      line: 11,
      column: 14,
    });
  });

  it('reports a non-boolean flag', () => {
    assertOnly(validate(withLast('tagging', '{ "taggable": "yes" }')), {
      rule: 'TP2032',
      pointer: '/tagging/taggable',
      line: 11,
      column: 28,
    });
  });

  it('reports an unknown tagging key, at the name', () => {
    const text = withLast(
      'tagging',
      `{
    "taggable": true,
    "tagKey": "/properties/Tags"
  }`,
    );
    assertOnly(validate(text), { rule: 'TP2032', pointer: '/tagging/tagKey', line: 13, column: 5 });
  });

  it('reports permissions that are not a list', () => {
    assertOnly(validate(withLast('tagging', '{ "taggable": true, "permissions": "svc:Tag" }')), {
      rule: 'TP2032',
      pointer: '/tagging/permissions',
      line: 11,
      column: 49,
    });
  });

  it('accepts a complete tagging block', () => {
    const text = withLast(
      'tagging',
      `{
    "taggable": true,
    "tagOnCreate": true,
    "tagUpdatable": false,
    "cloudFormationSystemTags": false,
    "tagProperty": "/properties/Tags",
    "permissions": ["svc:TagResource", "svc:UntagResource"]
  }`,
    );
    assertClean(validate(text));
  });
});

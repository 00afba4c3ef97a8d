/**
 * Documents that cannot be read as a resource schema at all: empty, binary, too large, malformed
 * JSON or YAML, nested too deeply, or neither dialect. Each gives a located diagnostic, never an
 * exception, however hostile the input.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LIMITS } from '../../src/schema/source.js';
import {
  assertClean,
  assertDiagnostics,
  assertOnly,
  minimalSchema,
  pretty,
  schemaWith,
  validate,
} from './helpers.js';

const yaml = { file: 'x.yaml' };

describe('TP1002 empty document', () => {
  it('reports an empty file', () => {
    assertOnly(validate(''), { rule: 'TP1002', pointer: '', line: 1, column: 1 });
  });

  it('reports a file of only whitespace', () => {
    assertOnly(validate('  \n\t\n'), { rule: 'TP1002', pointer: '', line: 1, column: 1 });
  });

  it('reports a YAML file of only comments', () => {
    assertOnly(validate('# nothing here\n# yet\n', yaml), {
      rule: 'TP1002',
      pointer: '',
      line: 1,
      column: 1,
    });
  });
});

describe('TP1003 binary document', () => {
  it('reports NUL bytes in bytes input', () => {
    assertOnly(validate(new Uint8Array([0x7b, 0x00, 0x7d])), {
      rule: 'TP1003',
      pointer: '',
      line: 1,
      column: 1,
    });
  });

  it('reports invalid UTF-8', () => {
    assertOnly(validate(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), {
      rule: 'TP1003',
      pointer: '',
      line: 1,
      column: 1,
    });
  });

  it('reports a NUL byte far into otherwise valid UTF-8', () => {
    const bytes = new TextEncoder().encode(`{"typeName": "${'x'.repeat(20_000)}\u0000"}`);
    assertOnly(validate(bytes), { rule: 'TP1003', pointer: '', line: 1, column: 1 });
  });

  it('reports a NUL character in text input', () => {
    assertOnly(validate('{"typeName": "a\u0000b"}'), { rule: 'TP1003', pointer: '', line: 1, column: 1 });
  });

  it('accepts UTF-8 bytes with a byte-order mark, and locates after it', () => {
    const text = pretty(schemaWith({ typeName: 'Org::Thing' }));
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    assertOnly(validate(bytes), { rule: 'TP2001', pointer: '/typeName', line: 2, column: 15 });
  });
});

describe('TP1004 document too large', () => {
  it('refuses text over 10 MB before parsing it', () => {
    const text = `{"typeName": "${'a'.repeat(LIMITS.maxBytes)}"}`;
    const started = performance.now();
    assertOnly(validate(text), { rule: 'TP1004', pointer: '', line: 1, column: 1 });
    assert.ok(performance.now() - started < 1000, 'refused without parsing');
  });

  it('refuses bytes over 10 MB', () => {
    const bytes = new Uint8Array(LIMITS.maxBytes + 1).fill(0x20);
    assertOnly(validate(bytes), { rule: 'TP1004', pointer: '', line: 1, column: 1 });
  });

  it('counts bytes, not characters', () => {
    // 3.5 M three-byte characters: under the limit in characters, over it in UTF-8 bytes.
    const text = `"${'€'.repeat(3_500_000)}"`;
    assert.ok(text.length < LIMITS.maxBytes);
    assertOnly(validate(text), { rule: 'TP1004', pointer: '', line: 1, column: 1 });
  });

  it('accepts a document of exactly the limit', () => {
    const body = JSON.stringify(minimalSchema());
    const result = validate(body + ' '.repeat(LIMITS.maxBytes - body.length));
    assertClean(result);
  });
});

describe('TP1005 JSON syntax', () => {
  it('collects several errors, each located', () => {
    const text = `{
  "typeName": "Org::Service::Thing"
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string", }
  },
  "additionalProperties": false,
}
`;
    // A trailing comma is reported at the comma, the character to remove.
    assertDiagnostics(validate(text), [
      { rule: 'TP1005', pointer: '', line: 3, column: 3 },
      { rule: 'TP1005', pointer: '', line: 5, column: 31 },
      { rule: 'TP1005', pointer: '', line: 7, column: 32 },
    ]);
  });

  it('names a trailing comma as such', () => {
    const d = assertOnly(validate('{\n  "typeName": "Org::Service::Thing",\n  "tags": [1, 2, ]\n}\n'), {
      rule: 'TP1005',
      pointer: '',
      line: 3,
      column: 16,
    });
    assert.match(d.message, /trailing comma; remove the ',' before '\]'/);
  });

  it('says what is wrong', () => {
    const result = validate('{\n  "typeName": "Org::Service::Thing"\n  "description": "x"\n}\n');
    const d = assertOnly(result, { rule: 'TP1005', pointer: '', line: 3, column: 3 });
    assert.match(d.message, /',' is expected/);
  });

  it('refuses comments', () => {
    const d = assertOnly(validate('{\n  // a comment\n  "typeName": "Org::Service::Thing"\n}\n'), {
      rule: 'TP1005',
      pointer: '',
      line: 2,
      column: 3,
    });
    assert.match(d.message, /comments are not allowed/);
  });

  it('reports an unterminated string', () => {
    assertOnly(validate('{\n  "typeName": "Org::Service::Thing\n}\n'), {
      rule: 'TP1005',
      pointer: '',
      line: 2,
      column: 15,
    });
  });

  it('reports YAML in a .json file as JSON errors', () => {
    const result = validate('typeName: Org::Service::Thing\n');
    assert.ok(result.diagnostics.length > 0);
    assert.ok(result.diagnostics.every((d) => d.rule === 'TP1005'));
    assert.deepEqual([result.diagnostics[0]!.line, result.diagnostics[0]!.column], [1, 1]);
  });

  it('caps the number of errors reported', () => {
    const text = '[' + Array.from({ length: 200 }, () => '@').join(',') + ']';
    const result = validate(text);
    assert.equal(result.diagnostics.length, LIMITS.maxSyntaxErrors);
    assert.ok(result.diagnostics.every((d) => d.rule === 'TP1005' && d.line === 1));
  });
});

describe('TP1006 YAML syntax', () => {
  it('reports a syntax error where it is', () => {
    const text = 'typeName: Org::Service::Thing\nproperties: [a, b\ndescription: x\n';
    const result = validate(text, yaml);
    assert.ok(result.diagnostics.length >= 1);
    assert.ok(
      result.diagnostics.every((d) => d.rule === 'TP1006' && d.severity === 'error' && d.file === 'x.yaml'),
    );
    assert.deepEqual([result.diagnostics[0]!.line, result.diagnostics[0]!.column], [3, 1]);
  });

  it('reports a duplicate key at the second occurrence', () => {
    const text = 'typeName: Org::Service::Thing\ndescription: A thing.\ntypeName: Org::Service::Other\n';
    const d = assertOnly(validate(text, yaml), { rule: 'TP1006', pointer: '', line: 3, column: 1 });
    assert.match(d.message, /duplicate key 'typeName'/);
  });

  it('reports duplicate keys in nested mappings too', () => {
    const text = [
      'typeName: Org::Service::Thing',
      'properties:',
      '  Name:',
      '    type: string',
      '    type: integer',
      '',
    ].join('\n');
    assertOnly(validate(text, yaml), { rule: 'TP1006', pointer: '', line: 5, column: 5 });
  });

  it('finds duplicates in a large mapping in linear time', () => {
    // Three tokens a key (key, `:`, value): as many keys as the token limit allows.
    const keys = Array.from({ length: 3_300 }, (_, i) => `k${i}: v`);
    const text = [...keys, 'k7: again', ''].join('\n');
    const started = performance.now();
    assertOnly(validate(text, yaml), { rule: 'TP1006', pointer: '', line: 3_301, column: 1 });
    assert.ok(performance.now() - started < 3000, 'no quadratic duplicate check');
  });

  it('refuses more than one document in a file', () => {
    assertOnly(validate('typeName: Org::Service::Thing\n---\ntypeName: Org::Service::Other\n', yaml), {
      rule: 'TP1006',
      pointer: '',
      line: 2,
      column: 1,
    });
  });

  it('refuses an alias bomb', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    // Refused before expansion, at the first alias that takes the count over the limit.
    assertOnly(validate(lines.join('\n') + '\n', yaml), { rule: 'TP1004', pointer: '', line: 6, column: 12 });
  });

  it('refuses a large anchored list aliased many times, counting its expansion in linear time', () => {
    const text =
      `a: &x\n${'  - 1\n'.repeat(4_000)}` + Array.from({ length: 99 }, (_, i) => `b${i}: *x\n`).join('');
    const started = performance.now();
    const result = validate(text, yaml);
    assertOnly(result, { rule: 'TP1004', pointer: '', line: 4_025, column: 6 });
    assert.match(result.diagnostics[0]!.message, /more than 100000 values, aliases expanded/);
    assert.ok(performance.now() - started < 5000, 'no expansion');
  });

  it('refuses a YAML text of more keys, values and indicators than the limit before the parser runs', () => {
    const items = LIMITS.maxYamlTokens / 2;
    const text = `a:\n${'  - 1\n'.repeat(items)}`;
    const started = performance.now();
    const result = validate(text, yaml);
    // `a` and `:` are the first two tokens: the last item's `-` is the first past the limit.
    assertOnly(result, { rule: 'TP1004', pointer: '', line: items + 1, column: 3 });
    assert.match(
      result.diagnostics[0]!.message,
      /more than 10000 keys, values and indicators; split it, or give it as JSON/,
    );
    assert.ok(performance.now() - started < 1000, 'refused from the tokens');
    // The same as JSON is fine.
    const json = JSON.stringify({ a: Array(items).fill(1) });
    assert.notEqual(validate(json, { file: 'x.json' }).diagnostics[0]?.rule, 'TP1004');
  });

  it('refuses floods of tokens that make no scalar (empty items, commas, markers, anchors, tags, blank and comment lines) before the parser runs', () => {
    const floods: [string, string, RegExp][] = [
      ['empty items', `a:\n${'-\n'.repeat(1_000_000)}`, /keys, values and indicators/],
      ['empty keys', `a:\n${'? \n'.repeat(600_000)}`, /keys, values and indicators/],
      ['commas', `a: [${','.repeat(2_000_000)}]\n`, /keys, values and indicators/],
      ['empty flow maps', `a: [${'{},'.repeat(600_000)}]\n`, /keys, values and indicators/],
      ['document starts', `a: 1\n${'---\n'.repeat(500_000)}`, /keys, values and indicators/],
      ['document ends', `a: 1\n${'...\n'.repeat(500_000)}`, /keys, values and indicators/],
      ['anchors', `a: ${'&x '.repeat(600_000)}1\n`, /keys, values and indicators/],
      ['tags', `a: ${'!t '.repeat(600_000)}1\n`, /keys, values and indicators/],
      ['blank lines', `a: 1\n${'\n'.repeat(2_000_000)}`, /more than 20000 lines/],
      ['comment lines', `a: 1\n${'#\n'.repeat(1_000_000)}`, /more than 20000 lines/],
    ];
    for (const [what, text, message] of floods) {
      const started = performance.now();
      const result = validate(text, yaml);
      const ms = performance.now() - started;
      assert.equal(result.diagnostics[0]?.rule, 'TP1004', `${what}: ${result.diagnostics[0]?.message}`);
      assert.match(result.diagnostics[0]!.message, message, what);
      // Each took 5 to 10 s and up to 2.6 GB (a comma flood ran out of memory) when only scalars
      // were counted.
      assert.ok(ms < 1000, `${what} refused in ${Math.round(ms)} ms`);
    }
  });

  it('answers a text at the token limit whose every token is a fault at the cost of a valid one', () => {
    const n = LIMITS.maxYamlTokens - 10;
    for (const [what, text] of [
      ['commas', `a: [${','.repeat(n)}]\n`],
      ['anchors', `a: ${'&x '.repeat(n)}1\n`],
      ['tags', `a: ${'!t '.repeat(n)}1\n`],
    ] as const) {
      validate(text, yaml);
      const started = performance.now();
      const result = validate(text, yaml);
      const ms = performance.now() - started;
      assert.equal(result.diagnostics[0]?.rule, 'TP1006', what);
      assert.ok(result.diagnostics.length <= LIMITS.maxSyntaxErrors, what);
      // ~40 ms here; an Error with its stack for each fault made it ~150 ms.
      assert.ok(ms < 500, `${what}: ${Math.round(ms)} ms`);
    }
  });

  it('refuses more anchors and aliases than the limit, without resolving each alias by a scan', () => {
    const text =
      'a: &a0 [1]\n' + Array.from({ length: 1500 }, (_, i) => `b${i + 1}: &a${i + 1} [*a${i}]\n`).join('');
    const result = validate(text, yaml);
    assertOnly(result, { rule: 'TP1004', pointer: '', line: 501, column: 14 });
    assert.match(result.diagnostics[0]!.message, /more than 1000 anchors and aliases/);
  });
});

describe('TP1007 nesting too deep', () => {
  const deepJson = '['.repeat(100_000);

  it('refuses 100,000 unclosed JSON arrays without a crash', () => {
    assertOnly(validate(deepJson), { rule: 'TP1007', pointer: '', line: 1, column: LIMITS.maxDepth + 1 });
  });

  it('refuses 100,000 closed JSON arrays', () => {
    assertOnly(validate(deepJson + ']'.repeat(100_000)), {
      rule: 'TP1007',
      pointer: '',
      line: 1,
      column: LIMITS.maxDepth + 1,
    });
  });

  it('refuses a short JSON text one level too deep, and accepts one at the limit', () => {
    // Short texts (at most as many characters as the values limit) are checked for depth alone.
    const deep = (levels: number) =>
      `{"typeName": "A::B::C", "x": ${'{"a":'.repeat(levels - 2)}[]${'}'.repeat(levels - 2)}}`;
    for (const [what, text] of [
      ['arrays', '['.repeat(LIMITS.maxDepth + 1) + ']'.repeat(LIMITS.maxDepth + 1)],
      ['objects', deep(LIMITS.maxDepth + 1)],
    ] as const) {
      assert.ok(text.length <= LIMITS.maxValues, what);
      assert.equal(validate(text).diagnostics[0]?.rule, 'TP1007', what);
    }
    for (const text of ['['.repeat(LIMITS.maxDepth) + ']'.repeat(LIMITS.maxDepth), deep(LIMITS.maxDepth)])
      assert.ok(!validate(text).diagnostics.some((d) => d.rule === 'TP1007'), text);
  });

  it('refuses deep JSON objects, located at the first level too many', () => {
    const text = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    assertOnly(validate(text), { rule: 'TP1007', pointer: '', line: 1, column: 5 * LIMITS.maxDepth + 1 });
  });

  it('refuses deep JSON that also has syntax errors, or hides brackets from a naive scan', () => {
    assertOnly(validate('{"a": [1,,2], "b": ' + deepJson), {
      rule: 'TP1007',
      pointer: '',
      line: 1,
      column: 20 + LIMITS.maxDepth - 1,
    });
    assertOnly(validate('"\n' + deepJson), {
      rule: 'TP1007',
      pointer: '',
      line: 2,
      column: LIMITS.maxDepth + 1,
    });
    assertOnly(validate('/* " */' + deepJson), {
      rule: 'TP1007',
      pointer: '',
      line: 1,
      column: 8 + LIMITS.maxDepth,
    });
  });

  it(`accepts exactly ${LIMITS.maxDepth} levels`, () => {
    const text = '['.repeat(LIMITS.maxDepth) + ']'.repeat(LIMITS.maxDepth);
    assertOnly(validate(text), { rule: 'TP1008', pointer: '', line: 1, column: 1 });
    assertOnly(validate('['.repeat(LIMITS.maxDepth + 1) + ']'.repeat(LIMITS.maxDepth + 1)), {
      rule: 'TP1007',
      pointer: '',
      line: 1,
      column: LIMITS.maxDepth + 1,
    });
  });

  it('refuses deep YAML flow collections, closed or not', () => {
    assertOnly(validate('['.repeat(100_000), yaml), {
      rule: 'TP1007',
      pointer: '',
      line: 1,
      column: LIMITS.maxDepth + 1,
    });
    assertOnly(validate('['.repeat(100_000) + ']'.repeat(100_000), yaml), {
      rule: 'TP1007',
      pointer: '',
      line: 1,
      column: LIMITS.maxDepth + 1,
    });
    // Flow nesting is bounded from the tokens alone, so this points at the bracket where the flow
    // levels by themselves pass the limit (the enclosing block mapping is one more level).
    assertOnly(validate('typeName: ' + '{a: '.repeat(100_000), yaml), {
      rule: 'TP1007',
      pointer: '',
      line: 1,
      column: 11 + 4 * LIMITS.maxDepth,
    });
  });

  it('counts block and flow levels together', () => {
    // 40 block levels, then 30 flow levels: 70 in all. Line 40 is 78 spaces, `k39: `, then the
    // brackets from column 84; the 25th (column 108) opens level 65.
    const block = Array.from({ length: 40 }, (_, i) => `${' '.repeat(2 * i)}k${i}:`).join('\n');
    const text = block + ' ' + '['.repeat(30) + ']'.repeat(30) + '\n';
    assertOnly(validate(text, yaml), { rule: 'TP1007', pointer: '', line: 40, column: 108 });
  });

  it('refuses deep YAML block nesting, located at the first level too many', () => {
    const text = Array.from({ length: 200 }, (_, i) => `${' '.repeat(2 * i)}k${i}:`).join('\n') + ' 1\n';
    assertOnly(validate(text, yaml), {
      rule: 'TP1007',
      pointer: '',
      line: LIMITS.maxDepth + 1,
      column: 2 * LIMITS.maxDepth + 1,
    });
  });

  it('refuses millions of compact block sequences quickly', () => {
    const text = '- '.repeat(4_000_000) + 'x\n';
    const started = performance.now();
    assertOnly(validate(text, yaml), {
      rule: 'TP1007',
      pointer: '',
      line: 1,
      column: 2 * LIMITS.maxDepth + 1,
    });
    assert.ok(performance.now() - started < 2000, 'refused from the tokens, before building a tree');
  });

  it(`accepts exactly ${LIMITS.maxDepth} YAML levels`, () => {
    const text =
      Array.from({ length: LIMITS.maxDepth }, (_, i) => `${' '.repeat(2 * i)}k${i}:`).join('\n') + ' 1\n';
    assertOnly(validate(text, yaml), { rule: 'TP1008', pointer: '', line: 1, column: 1 });
  });

  it('refuses a YAML alias that contains itself', () => {
    const text = [
      'typeName: Org::Service::Thing',
      'description: A thing.',
      'additionalProperties: false',
      'primaryIdentifier: [/properties/A]',
      'properties: &p',
      '  A: {type: object, properties: *p}',
      '',
    ].join('\n');
    assertOnly(validate(text, yaml), { rule: 'TP1007', pointer: '', line: 6, column: 33 });
  });
});

describe('TP1008 neither dialect', () => {
  it('reports an object with neither typeName nor types', () => {
    assertOnly(validate('{\n  "name": "thing"\n}\n'), { rule: 'TP1008', pointer: '', line: 1, column: 1 });
  });

  it('reports an array document', () => {
    const d = assertOnly(validate('[\n  {"typeName": "Org::Service::Thing"}\n]\n'), {
      rule: 'TP1008',
      pointer: '',
      line: 1,
      column: 1,
    });
    assert.match(d.message, /must be an object/);
  });

  it('reports scalars and null', () => {
    for (const text of ['42', '"typeName"', 'null', 'true']) {
      assertOnly(validate(text), { rule: 'TP1008', pointer: '', line: 1, column: 1 });
    }
    assertOnly(validate('just a string\n', yaml), { rule: 'TP1008', pointer: '', line: 1, column: 1 });
    assertOnly(validate('- typeName: Org::Service::Thing\n', yaml), {
      rule: 'TP1008',
      pointer: '',
      line: 1,
      column: 1,
    });
  });
});

describe('hostile input', () => {
  const pieces = [
    '[',
    ']',
    '{',
    '}',
    ':',
    ',',
    '-',
    '?',
    ' ',
    '\n',
    '"',
    "'",
    '#',
    '&a',
    '*a',
    '|',
    '>',
    '!',
    'a',
    '1',
    '---',
    '\t',
    '\\',
    '/*',
    'typeName',
    '<<',
  ];

  it('never throws, and every diagnostic is located', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 60 }),
        fc.constantFrom('x.json', 'x.yaml'),
        (parts, file) => {
          const result = validate(parts.join(''), { file });
          for (const d of result.diagnostics) {
            assert.equal(d.file, file);
            assert.ok(d.line !== undefined && d.column !== undefined, `${d.rule} is located`);
          }
          assert.equal(result.valid, !result.diagnostics.some((d) => d.severity === 'error'));
        },
      ),
      { numRuns: 2000, seed: 7 },
    );
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.constantFrom('x.json', 'x.yaml'), (bytes, file) => {
        validate(bytes, { file });
      }),
      { numRuns: 1000, seed: 11 },
    );
  });
});

/**
 * Where a diagnostic in a JSON document points: the value (or member name) a JSON pointer names, read
 * from the text on demand. The answers are those of a full syntax tree (jsonc-parser's), for any
 * layout, escaped names, repeated names (the last wins, as in the parsed value) and pointers that
 * lead nowhere (the nearest ancestor).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseTree, type Node as JsonNode } from 'jsonc-parser';
import { parseSource, type Position } from '../../src/schema/index.js';

/** The position a full jsonc-parser tree gives for `tokens`, as 1-based line and column. */
function treePosition(text: string, tokens: string[], target: 'value' | 'key'): Position {
  let node = parseTree(text, [], { disallowComments: true })!;
  let keyOffset: number | undefined;
  for (const token of tokens) {
    let next: { value: JsonNode; key?: number } | undefined;
    if (node.type === 'object') {
      for (const member of node.children ?? []) {
        const [key, value] = member.children!;
        if (key!.value === token) next = { value: value!, key: key!.offset };
      }
    } else if (node.type === 'array' && /^(0|[1-9]\d*)$/.test(token)) {
      const value = node.children?.[Number(token)];
      if (value) next = { value };
    }
    if (!next) {
      keyOffset = undefined;
      break;
    }
    node = next.value;
    keyOffset = next.key;
  }
  const offset = target === 'key' && keyOffset !== undefined ? keyOffset : node.offset;
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

const pointer = (tokens: string[]) =>
  tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** Every path in `value`, and beside each a step that leads nowhere and an index step. */
function paths(value: unknown, at: string[] = [], out: string[][] = []): string[][] {
  out.push(at, [...at, 'absent'], [...at, '0']);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, String(i)], out));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out);
  return out;
}

function locate(text: string, tokens: string[], target: 'value' | 'key'): Position | undefined {
  const { document } = parseSource(text, { format: 'json' });
  assert.ok(document, 'the text parses');
  return document.locate(pointer(tokens), target);
}

describe('positions in JSON documents', () => {
  it('agree with a full syntax tree for any value and layout', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.constantFrom(undefined, 0, 1, 2, '\t', ' \r\n '),
        (value, indent) => {
          const text =
            typeof indent === 'string' && indent.includes('\r')
              ? JSON.stringify(value, null, 1).replace(/\n/g, indent)
              : JSON.stringify(value, null, indent);
          for (const tokens of paths(JSON.parse(text)))
            for (const target of ['value', 'key'] as const)
              assert.deepEqual(
                locate(text, tokens, target),
                treePosition(text, tokens, target),
                pointer(tokens),
              );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answer many pointers from one document, in any order, with repeated and escaped names', () => {
    // Texts written member by member, so a name may repeat (also spelled with an escape: \u0061 is a).
    const space = fc.constantFrom('', ' ', '\n  ', '\t', '\r\n');
    const name = fc.constantFrom('a', 'b', '\\u0061', 'q\\"}', '~/');
    const { value: text } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('1', '-2.5e3', 'true', 'null', '""', '"]}\\\\"', '"x\\"{"'),
        tie('array'),
        tie('object'),
      ),
      array: fc
        .tuple(space, fc.array(fc.tuple(tie('value'), space), { maxLength: 4 }))
        .map(([w, items]) => `[${w}${items.map(([v, after]) => v + after).join(',')}]`),
      object: fc
        .tuple(space, fc.array(fc.tuple(name, space, space, tie('value'), space), { maxLength: 4 }))
        .map(
          ([w, members]) =>
            `{${w}${members.map(([k, s1, s2, v, s3]) => `"${k}"${s1}:${s2}${v}${s3}`).join(',')}}`,
        ),
    }));
    fc.assert(
      fc.property(space, text, space, fc.integer(), (before, body, after, seed) => {
        const source = before + body + after;
        const { document } = parseSource(source, { format: 'json' });
        assert.ok(document, source);
        const all = paths(JSON.parse(source));
        // A pseudo-random order: later pointers go on from where earlier ones stopped reading.
        const order = all.map((p, i) => [(i * 7919 + seed) % 1009, p] as const).sort((x, y) => x[0] - y[0]);
        for (const [, tokens] of order)
          for (const target of ['value', 'key'] as const)
            assert.deepEqual(
              document.locate(pointer(tokens), target),
              treePosition(source, tokens, target),
              `${pointer(tokens)} (${target}) in ${source}`,
            );
      }),
      { numRuns: 400 },
    );
  });

  it('finds escaped member names by their value, and the last of repeated ones', () => {
    const text = '{\n  "a\\u0062": 1,\n  "q\\"}": {"x": [1, "]", {"y": null}]},\n  "ab": 2\n}';
    assert.deepEqual(locate(text, ['ab'], 'key'), { line: 4, column: 3 });
    assert.deepEqual(locate(text, ['ab'], 'value'), { line: 4, column: 9 });
    assert.deepEqual(locate(text, ['q"}', 'x', '2', 'y'], 'value'), { line: 3, column: 32 });
    for (const tokens of [['ab'], ['q"}', 'x', '2', 'y'], ['q"}', 'x', '1']])
      for (const target of ['value', 'key'] as const)
        assert.deepEqual(locate(text, tokens, target), treePosition(text, tokens, target));
  });

  it('points at the nearest ancestor when the pointer leads nowhere', () => {
    const text = '{\n  "a": {\n    "b": [10, 20]\n  }\n}';
    assert.deepEqual(locate(text, ['a', 'b', '5'], 'value'), { line: 3, column: 10 });
    assert.deepEqual(locate(text, ['a', 'b', '5'], 'key'), { line: 3, column: 10 });
    assert.deepEqual(locate(text, ['a', 'b', '1'], 'key'), { line: 3, column: 15 });
    assert.deepEqual(locate(text, ['a', 'c'], 'key'), { line: 2, column: 8 });
  });
});

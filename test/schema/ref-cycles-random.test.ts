/**
 * `$ref` cycles in any arrangement of definitions: TP2017 is reported exactly when a definition the
 * model uses comes back to itself through `$ref`s and `allOf`/`anyOf`/`oneOf` branches alone (no
 * property or item in between), as a direct search over the definitions finds.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { validateDocument } from '../../src/schema/index.js';

const NAMES = ['A', 'B', 'C', 'D'] as const;
type Name = (typeof NAMES)[number];
const ref = (name: Name) => ({ $ref: `#/definitions/${name}` });

/** A definition: a `$ref`, a composition of `$ref`s, or a `$ref` one level down (under properties or items). */
const definition = fc.oneof(
  fc.constantFrom(...NAMES).map(ref),
  fc
    .record({
      key: fc.constantFrom('allOf', 'anyOf', 'oneOf'),
      names: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }),
    })
    .map(({ key, names }) => ({ [key]: [{ type: 'string' }, ...names.map(ref)] })),
  fc
    .constantFrom(...NAMES)
    .map((name) => ({ type: 'object', properties: { X: ref(name) }, additionalProperties: false })),
  fc.constantFrom(...NAMES).map((name) => ({ type: 'array', items: ref(name) })),
  fc.constant({ type: 'string' }),
);

/** The names a definition reaches at the same place in the value, and one level down. */
function steps(def: Record<string, unknown>): { same: Name[]; down: Name[] } {
  const name = (r: unknown) =>
    String((r as { $ref: string }).$ref)
      .split('/')
      .pop() as Name;
  if (def.$ref) return { same: [name(def)], down: [] };
  for (const key of ['allOf', 'anyOf', 'oneOf'])
    if (Array.isArray(def[key])) return { same: (def[key] as unknown[]).slice(1).map(name), down: [] };
  if (def.properties) return { same: [], down: [name((def.properties as { X: unknown }).X)] };
  if (def.items) return { same: [], down: [name(def.items)] };
  return { same: [], down: [] };
}

it('TP2017 is reported exactly when a used definition comes back to itself at the same place', () => {
  fc.assert(
    fc.property(fc.tuple(definition, definition, definition, definition), (defs) => {
      const definitions = Object.fromEntries(NAMES.map((n, i) => [n, defs[i]!]));
      const stepsOf = (n: Name) => steps(definitions[n] as Record<string, unknown>);
      // Used: reached from the model's property by any step.
      const used = new Set<Name>(['A']);
      for (const pending: Name[] = ['A']; pending.length > 0;) {
        const { same, down } = stepsOf(pending.pop()!);
        for (const n of [...same, ...down]) if (!used.has(n) && used.add(n)) pending.push(n);
      }
      // A used definition on a cycle of same-place steps.
      const returns = (start: Name) => {
        const seen = new Set<Name>();
        const pending = [...stepsOf(start).same];
        while (pending.length > 0) {
          const n = pending.pop()!;
          if (n === start) return true;
          if (!seen.has(n) && seen.add(n)) pending.push(...stepsOf(n).same);
        }
        return false;
      };
      const expected = [...used].some(returns);
      const text = JSON.stringify({
        typeName: 'Test::Cycle::Thing',
        description: 'A thing.',
        definitions,
        properties: { Name: { type: 'string' }, Spec: ref('A') },
        additionalProperties: false,
        primaryIdentifier: ['/properties/Name'],
        createOnlyProperties: ['/properties/Name'],
      });
      const found = validateDocument(text).diagnostics.filter((d) => d.rule === 'TP2017');
      assert.equal(found.length > 0, expected, JSON.stringify(definitions));
    }),
    { numRuns: 500 },
  );
});

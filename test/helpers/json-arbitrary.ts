/**
 * @module A fast-check arbitrary of small JSON-like trees, for property tests over values a template
 * or a request may hold.
 */
import fc from 'fast-check';

/** Trees of `leaf` values: arrays and objects (members named by `key`), at most 4 wide, kept small. */
export function jsonTree(leaf: fc.Arbitrary<unknown>, key: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  return fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(key, tie('node'), { maxKeys: 4 }),
    ),
  })).node;
}

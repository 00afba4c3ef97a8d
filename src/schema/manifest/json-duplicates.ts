/**
 * @module Duplicate keys in a JSON manifest. `JSON.parse` keeps the last one silently; Radius reads
 * manifests strictly and refuses them, as Typeplane does for YAML (see source.ts).
 */
import { diagnostic, pointerOf } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import { jsonc } from '../packages.js';
import { LIMITS } from '../source.js';

/**
 * A TP1005 finding at each key that repeats an earlier key of the same object, up to as many as
 * syntax errors are reported. `text` is JSON that `JSON.parse` accepted within the depth limit, so
 * jsonc-parser's visitor reads it in one pass, with no tree built. Keys are compared as parsed, so
 * `"a"` and `"\u0061"` are the same key.
 */
export function duplicateKeyFindings(text: string): Finding[] {
  const findings: Finding[] = [];
  // The keys seen so far in each object being read, innermost last.
  const objects: Set<string>[] = [];
  jsonc().visit(
    text,
    {
      onObjectBegin: () => {
        objects.push(new Set());
      },
      onObjectEnd: () => {
        objects.pop();
      },
      onObjectProperty: (key, _offset, _length, _line, _character, pathSupplier) => {
        const keys = objects.at(-1);
        if (!keys) return;
        if (keys.has(key) && findings.length < LIMITS.maxSyntaxErrors) {
          const clipped = key.length > 80 ? `${key.slice(0, 79)}…` : key;
          findings.push({
            ...diagnostic(
              'TP1005',
              pointerOf([...pathSupplier().map(String), key]),
              `duplicate key '${clipped}'; a key may appear once in a mapping`,
            ),
            target: 'key',
          });
        }
        keys.add(key);
      },
    },
    { disallowComments: true },
  );
  return findings;
}

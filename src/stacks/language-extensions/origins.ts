/**
 * @module Where an expanded template's values were written: each key a loop made (`/Resources/TopicA`)
 * is mapped to the key in the loop's body it came from (`/Resources/Fn::ForEach::Topics/2/Topic${Name}`),
 * so a diagnostic about the expanded template is located in the template as written.
 */
import type { SourceDocument } from '../../schema/index.js';

export class Origins {
  private readonly written = new Map<string, string>();

  /** The value at `expanded` (and all below it) was written at `original`. */
  add(expanded: string, original: string): void {
    if (expanded !== original) this.written.set(expanded, original);
  }

  /** Where the value at `pointer` of the expanded template was written: the longest mapped prefix, rewritten. */
  original(pointer: string): string {
    if (this.written.size === 0) return pointer;
    for (let end = pointer.length; end >= 0; end = pointer.lastIndexOf('/', end - 1)) {
      const mapped = this.written.get(pointer.slice(0, end));
      if (mapped !== undefined) return mapped + pointer.slice(end);
      if (end === 0) break;
    }
    return pointer;
  }

  /** `document` with `value` in its place: its pointers located where they were written. */
  document(document: SourceDocument, value: unknown): SourceDocument {
    return {
      ...document,
      value,
      locate: (pointer, target) => document.locate(this.original(pointer), target),
    };
  }
}

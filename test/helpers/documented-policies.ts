/**
 * The admission policies a document shows: its fenced YAML and JSON blocks with a top-level
 * `validations` (a schema's `x-typeplane-validations` is not one), parsed as written, so tests
 * register what the docs say and the docs cannot drift from what the server accepts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface DocumentedPolicy {
  /** Where it is: the file and the line its block starts on. */
  at: string;
  policy: Record<string, unknown>;
}

/** Every policy in `file` (relative to the repository's root), in order. */
export function documentedPolicies(file: string): DocumentedPolicy[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const found: DocumentedPolicy[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ya?ml|json)\s*$/.test(lines[i]!)) continue;
    const end = lines.indexOf('```', i + 1);
    assert.ok(end > i, `${file}:${i + 1}: a block that does not end`);
    const text = lines.slice(i + 1, end).join('\n');
    const at = `${file}:${i + 1}`;
    i = end;
    if (!/^validations:|^\s*"validations"\s*:/m.test(text)) continue;
    const policy: unknown = parse(text);
    assert.ok(typeof policy === 'object' && policy !== null && 'match' in policy, `${at}: not a policy`);
    found.push({ at, policy: policy as Record<string, unknown> });
  }
  return found;
}

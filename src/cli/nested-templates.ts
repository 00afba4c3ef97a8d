/**
 * @module A stack template read with the nested templates it names: each nested stack's TemplateURL
 * that is a local path (not an http(s):// or s3:// URL) is read relative to the template naming it,
 * and sent with the parent in `templates` (TemplateURL → text), as `aws cloudformation package`
 * uploads them; the server packages them. Bounded as the server bounds them.
 */
import { dirname, resolve } from 'node:path';
import { MAX_NESTED_TEMPLATES, MAX_NESTING_DEPTH, nestedUrls } from '../stacks/nested/index.js';
import { FILES, readLocal } from './local-files.js';
import { UsageError } from './usage.js';

const REMOTE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The template at `file`, and the local nested templates it names (through theirs too). */
export function templateWithNested(file: string): { template: string; templates?: Record<string, string> } {
  const template = readLocal(file, FILES.template);
  const templates: Record<string, string> = {};
  const read = new Map<string, string>();
  const visit = (text: string, from: string, depth: number): void => {
    for (const url of nestedUrls(text)) {
      if (REMOTE.test(url)) continue;
      const path = resolve(dirname(from), url);
      const known = read.get(url);
      if (known !== undefined) {
        if (known !== path)
          throw new UsageError(
            `TemplateURL ${url} names two files, ${known} and ${path}: the templates sent with a stack are known by their TemplateURL; give them paths that differ`,
          );
        continue;
      }
      if (depth + 1 > MAX_NESTING_DEPTH)
        throw new UsageError(
          `${from} nests ${url} ${depth + 1} levels deep; stacks nest at most ${MAX_NESTING_DEPTH}`,
        );
      if (read.size >= MAX_NESTED_TEMPLATES)
        throw new UsageError(
          `${file} names more than ${MAX_NESTED_TEMPLATES} nested templates, the most a stack takes`,
        );
      read.set(url, path);
      templates[url] = readLocal(path, FILES.template);
      visit(templates[url], path, depth + 1);
    }
  };
  visit(template, file, 0);
  return read.size > 0 ? { template, templates } : { template };
}

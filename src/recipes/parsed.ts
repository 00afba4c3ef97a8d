/**
 * @module A recipe's template, read once per text: every handler call of every instance reads one of
 * a few recipe versions, which never change, and reading YAML (positions kept for diagnostics) was
 * the largest single cost of an instance's create (three reads of it per instance).
 */
import { loadTemplate } from '../stacks/index.js';

type Loaded = ReturnType<typeof loadTemplate>;

/** Texts kept, most recently used last; bounded by their size (a template may be 1 MB). */
const cache = new Map<string, Loaded>();
const BUDGET_CHARS = 8 * 1024 * 1024;
let held = 0;
/** The text asked for last, and what it read as (the cache's most recent entry). */
let lastText: string | undefined;
let lastLoaded: Loaded | undefined;

/**
 * `loadTemplate(text)`, shared between callers: its document is frozen, so that a caller that
 * changed it by mistake fails at once instead of changing what every later instance deploys.
 */
export function loadRecipeTemplate(text: string): Loaded {
  // An instance's create asks for its version's text several times in a row: no reordering then.
  if (text === lastText && lastLoaded !== undefined) return lastLoaded;
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    lastText = text;
    lastLoaded = hit;
    return hit;
  }
  const loaded = loadTemplate(text);
  if (!loaded.template || text.length > BUDGET_CHARS) return loaded;
  deepFreeze(loaded.template.document.value);
  cache.set(text, loaded);
  lastText = text;
  lastLoaded = loaded;
  held += text.length;
  for (const [oldest] of cache) {
    if (held <= BUDGET_CHARS) break;
    cache.delete(oldest);
    held -= oldest.length;
  }
  return loaded;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
}

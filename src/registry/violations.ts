/**
 * @module Which existing resources a new version of their type would refuse: each stored model checked
 * against the new schema, bounded in how many are read. Write-only values are sealed away from the
 * registry, so problems with them are not counted (their absence is not a violation).
 */
import { cloneJson } from '../model/index.js';
import { pointerTokens } from '../schema/diagnostics.js';
import type { Store } from '../store/types.js';
import type { CompiledType } from './compile.js';

/** Most resources read to answer one registration; beyond it the count says how many were checked. */
export const MAX_CHECKED_RESOURCES = 10_000;
/** Identifiers named in an answer. */
const NAMED = 5;
const PAGE = 500;

export interface Violations {
  /** Resources (of those checked) the new version refuses. */
  count: number;
  /** Resources checked. */
  checked: number;
  /** Resources of the type. */
  total: number;
  /** The first few violating identifiers. */
  identifiers: string[];
}

export async function checkResources(
  store: Store,
  next: CompiledType,
  typeName: string,
): Promise<Violations> {
  const writeOnly = next.type.writeOnlyProperties.map((p) => pointerTokens(p).slice(1));
  const total = await store.countResources(typeName);
  const violations: Violations = { count: 0, checked: 0, total, identifiers: [] };
  let nextToken: string | undefined;
  do {
    const page = await store.listResources(typeName, { limit: PAGE, ...(nextToken ? { nextToken } : {}) });
    for (const resource of page.items) {
      violations.checked++;
      const problems = next
        .validateInput(cloneJson(resource.properties))
        .filter((p) => !writeOnly.some((tokens) => under(pointerTokens(p.pointer ?? ''), tokens)));
      if (problems.length === 0) continue;
      violations.count++;
      if (violations.identifiers.length < NAMED) violations.identifiers.push(resource.identifier);
    }
    nextToken = page.nextToken;
  } while (nextToken !== undefined && violations.checked < MAX_CHECKED_RESOURCES);
  return violations;
}

/** Whether a model path lies at or below a property path (`*` stands for any array index). */
function under(path: readonly string[], property: readonly string[]): boolean {
  if (path.length < property.length) return false;
  return property.every((token, i) => token === '*' || token === path[i]);
}

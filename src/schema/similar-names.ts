/**
 * @module "Did you mean …?": the names closest to a mistyped one, by edit distance (Levenshtein,
 * ignoring case). The one implementation behind every suggestion: schema keys, pointers and property
 * names, a template's names, type names.
 */

/** Longer names are not compared: the edit distance costs length × length. */
const MAX_COMPARED_LENGTH = 200;

/** How many edits a name may be from a suggestion: a `share` of its characters (a quarter), at least two. */
export function editsAllowed(name: string, share = 4): number {
  return Math.max(2, Math.floor(name.length / share));
}

export interface SimilarOptions {
  /** At most this many edits away (default: {@link editsAllowed}). */
  maxEdits?: number;
  /** Also compare with each candidate's last part, after its last `/` or `:` (type names). */
  lastPart?: boolean;
}

/** The candidates close enough to `name`, closest first; equals keep the candidates' order. */
function ranked(
  name: string,
  candidates: Iterable<string>,
  { maxEdits = editsAllowed(name), lastPart = false }: SimilarOptions,
): { candidate: string; distance: number }[] {
  if (name.length === 0 || name.length > MAX_COMPARED_LENGTH) return [];
  const wanted = name.toLowerCase();
  const found: { candidate: string; distance: number }[] = [];
  for (const candidate of candidates) {
    const distance = distanceTo(wanted, candidate, maxEdits, lastPart);
    if (distance <= maxEdits) found.push({ candidate, distance });
  }
  return found.sort((a, b) => a.distance - b.distance);
}

/** The edit distance of `wanted` (lower case) to `candidate`, or more than `budget` once it is over. */
function distanceTo(wanted: string, candidate: string, budget: number, lastPart: boolean): number {
  if (candidate.length > MAX_COMPARED_LENGTH) return budget + 1;
  const lower = candidate.toLowerCase();
  const distance = editDistance(wanted, lower, budget);
  if (!lastPart || distance === 0) return distance;
  const short = lower.slice(Math.max(lower.lastIndexOf('/'), lower.lastIndexOf(':')) + 1);
  return Math.min(distance, editDistance(wanted, short, budget));
}

/**
 * The candidate closest to `name` (the first of equals), or undefined when none is close enough.
 * Each candidate found lowers the budget the next must beat, so most comparisons stop early: a
 * template naming thousands of conditions is searched once per "did you mean", not sorted.
 */
export function closestName(
  name: string,
  candidates: Iterable<string>,
  { maxEdits = editsAllowed(name), lastPart = false }: SimilarOptions = {},
): string | undefined {
  if (name.length === 0 || name.length > MAX_COMPARED_LENGTH) return undefined;
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let budget = maxEdits;
  for (const candidate of candidates) {
    const distance = distanceTo(wanted, candidate, budget, lastPart);
    if (distance > budget) continue;
    best = candidate;
    if (distance === 0) break;
    budget = distance - 1;
  }
  return best;
}

/**
 * Up to `limit` candidates close to `name`, closest first and equals in alphabetical order, leaving
 * out `name` itself; compared by default with the whole candidate and its last part
 * (`postgresDatabase` is close to `Typeplane.Data/postgresDatabases`).
 */
export function similarNames(
  name: string,
  candidates: Iterable<string>,
  limit = 3,
  options: SimilarOptions = { lastPart: true },
): string[] {
  return ranked(
    name,
    [...candidates].filter((c) => c !== name),
    options,
  )
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((s) => s.candidate);
}

/** Levenshtein distance, or `budget + 1` as soon as it is known to exceed `budget`. */
function editDistance(a: string, b: string, budget: number): number {
  if (Math.abs(a.length - b.length) > budget) return budget + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < rowBest) rowBest = value;
    }
    if (rowBest > budget) return budget + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * @module Type names close to a mistyped one, for "did you mean …?".
 */

/** Longer names are not compared: the edit distance costs length × length. */
const MAX_COMPARED_LENGTH = 200;

/**
 * The candidates closest to `name` (up to `limit`, best first), ignoring case and comparing with both
 * the whole name and its last part (`postgresDatabase` is close to `Typeplane.Data/postgresDatabases`).
 * Empty when none is close: at most a quarter of the name's characters (and at least 2) may differ.
 */
export function similarNames(name: string, candidates: Iterable<string>, limit = 3): string[] {
  if (name.length === 0 || name.length > MAX_COMPARED_LENGTH) return [];
  const wanted = name.toLowerCase();
  const budget = Math.max(2, Math.floor(wanted.length / 4));
  const scored: { candidate: string; distance: number }[] = [];
  for (const candidate of candidates) {
    if (candidate === name || candidate.length > MAX_COMPARED_LENGTH) continue;
    const lower = candidate.toLowerCase();
    const short = lower.slice(Math.max(lower.lastIndexOf('/'), lower.lastIndexOf(':')) + 1);
    const distance = Math.min(editDistance(wanted, lower, budget), editDistance(wanted, short, budget));
    if (distance <= budget) scored.push({ candidate, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate));
  return scored.slice(0, limit).map((s) => s.candidate);
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

/**
 * The value that occurs most often in `values` (the first of those that tie): what most of several
 * measured requests cost, when a cache filled now and then makes one of them cost more.
 */
export function mostCommon(values: string[]): string {
  const tally = new Map<string, number>();
  for (const value of values) tally.set(value, (tally.get(value) ?? 0) + 1);
  return [...tally].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
}

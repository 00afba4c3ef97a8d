/**
 * @module Tokens' descriptions by id, for the "who" of a record: listed once, and again when an id
 * is not among them — once per new id, else at most once a second — so a record costs no store read
 * in the usual case, and a token made a moment ago is still described.
 */
const REFRESH_MS = 1000;
const TRIED_MAX = 10_000;

export function tokenDescriptions(
  list: () => Promise<{ id: string; description?: string }[]>,
): (tokenId: string) => Promise<string | undefined> {
  let known = new Map<string, string | undefined>();
  const tried = new Set<string>();
  let listedAt = 0;
  let listing: Promise<void> | undefined;
  const refresh = () =>
    (listing ??= list()
      .then((tokens) => {
        known = new Map(tokens.map((t) => [t.id, t.description]));
        listedAt = Date.now();
      })
      .finally(() => (listing = undefined)));
  return async (tokenId) => {
    if (!known.has(tokenId) && (!tried.has(tokenId) || Date.now() - listedAt >= REFRESH_MS)) {
      if (tried.size >= TRIED_MAX) tried.clear();
      tried.add(tokenId);
      await refresh();
    }
    return known.get(tokenId);
  };
}

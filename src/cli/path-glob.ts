/**
 * @module `--exclude <glob>`: `*` matches within one path segment, `**` across segments, `?` one
 * character. A pattern matches a path, or any tail of it that starts at a segment, so `bicep/**`
 * excludes `examples/bicep/index.json` and `*.template` a template in any folder.
 */

/** A predicate that is true for a path (with `/` or `\` between segments) any of `globs` matches. */
export function excludedBy(globs: readonly string[]): (path: string) => boolean {
  if (globs.length === 0) return () => false;
  const patterns = globs.map((glob) => new RegExp(`(?:^|/)${globSource(glob.replace(/^\.\//, ''))}$`));
  return (path) => {
    const normal = path.replace(/\\/g, '/');
    return patterns.some((p) => p.test(normal));
  };
}

function globSource(glob: string): string {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` is any number of whole segments, none included; a trailing `**` is everything below.
      const slash = glob[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\/]/g, '\\$&');
  }
  // A folder's name excludes what is under it.
  return `${source}(?:/.*)?`;
}

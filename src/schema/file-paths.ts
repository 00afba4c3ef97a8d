/**
 * @module The paths of a folder's files, joined and shown relative to a folder, as `path.join` and
 * `path.relative` make them, with each folder's part worked out once: `relative` resolves both of its
 * paths on every call, and a folder of 1,500 documents made both of them hot enough to be compiled.
 */
import { join, relative, resolve, sep } from 'node:path';

/**
 * `join(folder, name)` for the names a folder lists. A name from `readdir` is one plain segment, so
 * the join is the folder's own joined form followed by the name.
 */
export function joinerOf(folder: string): (name: string) => string {
  const prefix = join(folder, 'x').slice(0, -1);
  return (name) => prefix + name;
}

/** `relative(from, path) || path` for file paths, one `relative` per folder they are in. */
export function relativeTo(from: string): (path: string) => string {
  const folders = new Map<string, string>();
  // `from` or a folder above it is shown as relative() climbs to it, not as its folder's part and
  // its name: only a path ending in one of `from`'s own steps can be one.
  const fromSteps = new Set(resolve(from).split(sep));
  return (path) => {
    const cut = lastSeparator(path) + 1;
    const name = path.slice(cut);
    // A bare name, a name relative() reads as a step ('.', '..'), or possibly `from` or above it.
    if (cut === 0 || name === '' || name === '.' || name === '..' || fromSteps.has(name))
      return relative(from, path) || path;
    const folder = path.slice(0, cut);
    let prefix = folders.get(folder);
    if (prefix === undefined) {
      const shown = relative(from, folder);
      folders.set(folder, (prefix = shown === '' ? '' : shown + sep));
    }
    return prefix + name;
  };
}

function lastSeparator(path: string): number {
  return sep === '\\' ? Math.max(path.lastIndexOf('\\'), path.lastIndexOf('/')) : path.lastIndexOf('/');
}

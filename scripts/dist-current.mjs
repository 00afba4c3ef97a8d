// Whether dist/ was built from src/ as it is now: the build empties dist/ first, so its oldest
// JavaScript file was written after every source it was built from. Tests use it to run the built
// code, which starts faster than the sources through tsx, only when it is the sources' own build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../', import.meta.url));

function times(dir, ext) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(ext))
    .map((e) => statSync(join(e.parentPath, e.name)).mtimeMs);
}

/** `TYPEPLANE_TEST_FROM=src` answers false whatever dist/ holds. */
export function distIsCurrent() {
  if (process.env.TYPEPLANE_TEST_FROM === 'src') return false;
  if (!existsSync(join(root, 'dist/cli/main.js'))) return false;
  return Math.min(...times(join(root, 'dist'), '.js')) >= Math.max(...times(join(root, 'src'), '.ts'));
}

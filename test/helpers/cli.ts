/**
 * How tests start `typeplane`: the built `dist/cli/main.js` when dist/ is current with src/ (after
 * `npm run build`, which .ci/run runs before the tests), else the sources through tsx. The built CLI
 * starts in a third of the time; a dist/ older than any source file is never used, so what runs is
 * always the source as it is. TYPEPLANE_TEST_CLI=src forces the sources.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The modification times of the files under `dir` whose names end with `ext`. */
function times(dir: string, ext: string): number[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(ext))
    .map((e) => statSync(join(e.parentPath, e.name)).mtimeMs);
}

function distIsCurrent(): boolean {
  if (process.env.TYPEPLANE_TEST_CLI === 'src') return false;
  if (!existsSync(join(root, 'dist/cli/main.js'))) return false;
  // The build empties dist/ first: its oldest file was written after every source it was built from.
  return Math.min(...times(join(root, 'dist'), '.js')) >= Math.max(...times(join(root, 'src'), '.ts'));
}

/** Whether tests run the built CLI (dist/) rather than the sources. */
export const FROM_DIST = distIsCurrent();

/** The node arguments that run the CLI; the command's own arguments follow. */
export const CLI: readonly string[] = FROM_DIST
  ? [join(root, 'dist/cli/main.js')]
  : ['--import', import.meta.resolve('tsx'), join(root, 'src/cli/main.ts')];

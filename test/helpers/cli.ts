/**
 * How tests start `typeplane`: the built `dist/cli/main.js` when dist/ is current with src/ (after
 * `npm run build`, which .ci/run runs before the tests; see scripts/dist-current.mjs), else the
 * sources through tsx. The built CLI starts in a third of the time; a dist/ older than any source
 * file is never used, so what runs is always the source as it is. TYPEPLANE_TEST_FROM=src forces the
 * sources.
 */
import { join } from 'node:path';
import { distIsCurrent, root } from '../../scripts/dist-current.mjs';

/** Whether tests run the built CLI (dist/) rather than the sources. */
export const FROM_DIST = distIsCurrent();

/** The node arguments that run the CLI; the command's own arguments follow. */
export const CLI: readonly string[] = FROM_DIST
  ? [join(root, 'dist/cli/main.js')]
  : ['--import', import.meta.resolve('tsx'), join(root, 'src/cli/main.ts')];

// Registered by scripts/run-tests.mjs (after tsx) when dist/ is current with src/: a test's import of
// a module under src/ loads its build under dist/, plain JavaScript that needs no transform, which
// spares each test file about 0.6 s of CPU. Test files and fixtures still load through tsx.
import { register } from 'node:module';

register('./test-from-dist-hooks.mjs', import.meta.url);

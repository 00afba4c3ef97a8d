/**
 * The web console's build: `npm run build` runs it after the server's, writing dist/console, which
 * the server serves at /console (src/http/routes/console.ts). Preact through Vite's own JSX
 * transform: no plugin, nothing fetched, a build of a few seconds.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  // The served page's policy allows no inline script or style: nothing is inlined, not even small assets.
  build: {
    outDir: fileURLToPath(new URL('../dist/console/', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    target: 'es2022',
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  logLevel: 'warn',
});

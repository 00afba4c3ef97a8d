// The project's TypeScript as JavaScript, transformed once (by esbuild, with tsx's options) into a
// mirror of the tree under node_modules/.cache/typeplane-ts/: src/a/b.ts becomes src/a/b.js there.
// A process that runs from the mirror needs no module hooks: with any hooks registered (tsx's),
// every import of the process crosses to the hooks thread and back, which with the ~400 modules a
// test loads costs more CPU than the test itself. What a module learns about where it is stays true:
// import.meta.url is the .ts file's URL, imports of files that are not TypeScript (JSON, .mjs) name
// the file in the tree, and each module's inline source map points stack traces at the .ts lines.
// A file is transformed again only when its source changed (its digest is in manifest.json).
// scripts/run-tests.mjs prepares the mirror at the start of a run; scripts/ts-run.cjs runs from it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Buffer } from 'node:buffer';
import { init, parse } from 'es-module-lexer';

export const root = fileURLToPath(new URL('../', import.meta.url));
export const mirror = join(root, 'node_modules/.cache/typeplane-ts');
/** Where the project's TypeScript lives. */
const DIRS = ['src', 'test', 'scripts', 'bench', 'examples'];

const require = createRequire(import.meta.url);
// esbuild is tsx's dependency: the same one tsx would use.
const esbuildPath = createRequire(require.resolve('tsx/package.json')).resolve('esbuild');
const esbuildVersion = JSON.parse(
  readFileSync(join(dirname(esbuildPath), '../package.json'), 'utf8'),
).version;
const tsconfig = readFileSync(join(root, 'tsconfig.json'), 'utf8');
// tsx's transform options (see its source), but whitespace kept, so that rewriting a specifier moves
// nothing past its own line.
const options = {
  loader: 'ts',
  format: 'esm',
  target: `node${process.versions.node}`,
  sourcemap: 'external',
  sourcesContent: false,
  keepNames: true,
  tsconfigRaw: tsconfig,
};
// Anything the output depends on besides the source (this file too): a change to it transforms
// every file again.
const salt = JSON.stringify({
  options,
  esbuildVersion,
  self: readFileSync(fileURLToPath(import.meta.url), 'utf8'),
});
// tsconfig.json's `paths` (the package's own name, as a provider imports it), which tsx follows.
const paths = Object.fromEntries(
  Object.entries(JSON.parse(tsconfig).compilerOptions?.paths ?? {}).map(([name, [target]]) => [
    name,
    resolve(root, target),
  ]),
);

const isTs = (path) => /\.m?ts$/.test(path) && !path.endsWith('.d.ts') && !path.endsWith('.d.mts');
/** The mirror's file for the source at `path`: .ts → .js, .mts → .mjs. */
export const mirrored = (path) => join(mirror, relative(root, path)).replace(/ts$/, 'js');
const digest = (source) => createHash('sha1').update(salt).update(source).digest('hex');

/**
 * `specifier`, imported by the source at `from`, as the mirror's copy must say it: unchanged for a
 * module the mirror holds (and for packages), else the file in the tree by its URL.
 */
function respecify(specifier, from, sources) {
  if (paths[specifier] !== undefined) return relativeSpecifier(mirrored(from), mirrored(paths[specifier]));
  if (!/^(\.\.?\/|\/|file:)/.test(specifier)) return specifier;
  const target = specifier.startsWith('file:') ? fileURLToPath(specifier) : resolve(dirname(from), specifier);
  const ts = isTs(target) ? target : target.replace(/js$/, 'ts');
  if (sources.has(ts)) return relativeSpecifier(mirrored(from), mirrored(ts));
  return pathToFileURL(target).href;
}

function relativeSpecifier(from, to) {
  const path = relative(dirname(from), to);
  return path.startsWith('.') ? path : `./${path}`;
}

async function transform(esbuild, path, source, sources) {
  const url = pathToFileURL(path).href;
  const out = await esbuild.transform(source, {
    ...options,
    sourcefile: path,
    define: { 'import.meta.url': JSON.stringify(url) },
  });
  let code = out.code;
  const [imports] = parse(code, path);
  // Last first, so that each replacement leaves the earlier positions as they were; `export *` may
  // be reported twice (as an import and as a re-export), hence one replacement per position.
  const done = new Set();
  for (const { type, specifier, start, end, glob } of [...imports].sort((a, b) => b.start - a.start)) {
    if (typeof specifier !== 'string' || glob === true || done.has(start)) continue;
    done.add(start);
    const respecified = respecify(specifier, path, sources);
    if (respecified === specifier) continue;
    // A static import's bounds hold the specifier's text; a dynamic one's the literal, quotes and all.
    code = `${code.slice(0, start)}${type === 'dynamic' ? JSON.stringify(respecified) : respecified}${code.slice(end)}`;
  }
  const map = { ...JSON.parse(out.map), sources: [url] };
  return `${code}//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}

/** Write `text` to `path` whole: beside it first, then renamed, so a reader never sees half. */
function writeWhole(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, text);
  renameSync(aside, path);
}

/**
 * Bring the mirror up to date with the TypeScript under src/, test/, scripts/, bench/ and
 * examples/; resolves to how many files were transformed and how many there are. A file esbuild
 * cannot transform throws its error where it is imported.
 */
export async function prepareMirror() {
  const sources = new Set(
    DIRS.filter((dir) => existsSync(join(root, dir))).flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && isTs(e.name))
        .map((e) => join(e.parentPath, e.name)),
    ),
  );
  const manifestPath = join(mirror, 'manifest.json');
  let manifest = {};
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch {
    // No mirror yet, or a broken one: made anew.
  }
  const before = manifest.salt === salt ? manifest.files : {};
  const files = {};
  const stale = [];
  await Promise.all(
    [...sources].map(async (path) => {
      const source = await readFile(path, 'utf8');
      const hash = digest(source);
      const key = relative(root, path);
      if (before[key] === hash && existsSync(mirrored(path))) files[key] = hash;
      else stale.push({ path, source, hash, key });
    }),
  );
  if (stale.length > 0) {
    await init;
    const esbuild = await import(pathToFileURL(esbuildPath).href);
    await Promise.all(
      stale.map(async ({ path, source, hash, key }) => {
        try {
          writeWhole(mirrored(path), await transform(esbuild, path, source, sources));
          files[key] = hash;
        } catch (error) {
          // Its mirror throws esbuild's error where it is imported (never runs an older version of
          // it); left out of the manifest, so tried again next time.
          const message = `${relative(root, path)} cannot be transformed: ${error.message}`;
          writeWhole(mirrored(path), `throw new SyntaxError(${JSON.stringify(message)});\n`);
        }
      }),
    );
    await esbuild.stop?.();
  }
  // A module whose source is gone goes too: importing it must fail, as it would from the tree.
  const kept = new Set([...sources].map(mirrored));
  for (const entry of readdirSync(mirror, { recursive: true, withFileTypes: true }))
    if (entry.isFile() && /\.m?js$/.test(entry.name) && !kept.has(join(entry.parentPath, entry.name)))
      rmSync(join(entry.parentPath, entry.name), { force: true });
  writeWhole(join(mirror, 'package.json'), `${JSON.stringify({ type: 'module', private: true })}\n`);
  writeWhole(manifestPath, JSON.stringify({ salt, files }));
  return { transformed: stale.length, files: sources.size };
}

#!/usr/bin/env node
/**
 * The built package's imports against package.json: every package a file under dist/ imports
 * (statically, re-exported or with import()) must be in `dependencies`, since an installed package
 * gets no devDependencies. Prints each offending import with the file that makes it; exit 1 if any.
 *
 *   node scripts/check-imports.mjs [package folder]      (default: this checkout; npm run build runs it)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = process.argv[2] ?? fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const dependencies = new Set(Object.keys(pkg.dependencies ?? {}));
const builtins = new Set(builtinModules);

/** 'fastify/types' -> 'fastify', '@scope/pkg/x' -> '@scope/pkg'. */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

let files;
try {
  files = readdirSync(dist, { recursive: true }).filter((f) => /\.(m|c)?js$/.test(f));
} catch {
  console.error('dist/ is not built: run npm run build');
  process.exit(1);
}

const problems = [];
const used = new Set();
for (const file of files) {
  const text = readFileSync(join(dist, file), 'utf8');
  // readImportFiles and detectJavaScriptImports: import/export-from, import() and require() alike.
  const { importedFiles } = ts.preProcessFile(text, true, true);
  for (const { fileName: specifier } of importedFiles) {
    if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) continue;
    if (builtins.has(specifier) || builtins.has(specifier.split('/')[0])) continue;
    const name = packageOf(specifier);
    if (name === pkg.name) continue;
    used.add(name);
    if (!dependencies.has(name)) {
      const where = pkg.devDependencies?.[name] ? 'a devDependency' : 'not in package.json';
      problems.push(`${relative(root, join(dist, file))} imports '${specifier}', ${where}`);
    }
  }
}

if (problems.length > 0) {
  console.error(
    `✖ ${problems.length} import(s) an installed package cannot resolve; move the package to "dependencies" (or stop importing it at run time):`,
  );
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`✔ ${files.length} files under dist/ import ${used.size} packages, all of them dependencies`);

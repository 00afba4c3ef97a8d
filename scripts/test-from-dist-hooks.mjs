// Module hooks for scripts/test-from-dist.mjs: src/<path>.ts resolves to dist/<path>.js.
const src = new URL('../src/', import.meta.url).href;
const dist = new URL('../dist/', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith(src) || !resolved.url.endsWith('.ts')) return resolved;
  return {
    url: `${dist}${resolved.url.slice(src.length, -'.ts'.length)}.js`,
    format: 'module',
    shortCircuit: true,
  };
}

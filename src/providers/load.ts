/**
 * @module Loading providers named on the command line or in a configuration file: a module written
 * with the SDK, a built-in provider by name, or an out-of-process provider by URL.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { HookServer } from '../handler/index.js';
import type { ProviderDefinition } from './sdk.js';
import { stateProviderProblems, type StateProviderSettings } from './synthesize/index.js';
import { serviceTokenPrefixProblems, type CustomResourceSettings } from '../stacks/custom-resources/index.js';

/** One entry of the configuration's `providers` list. */
export type ProviderEntry =
  | { module: string; config?: Record<string, unknown> }
  | { builtin: 'file' | 'postgresql'; config?: Record<string, unknown> }
  | { url: string; name?: string; types: string[]; schemas?: string[]; timeoutMs?: number };

/** One entry of the configuration's `hooks` list: a `defineHook` module, or a hook served over HTTP. */
export type HookEntry = { module: string } | { url: string; name?: string; hooks: string[]; schema?: string };

export interface TypeplaneConfig {
  /** Type documents (files or folders) to register at start. */
  types?: string[];
  providers?: ProviderEntry[];
  /** What serves hooks on this server (their schemas are registered at start when given). */
  hooks?: HookEntry[];
  /** The built-in state provider's settings: the types whose service it emulates, and the account. */
  stateProvider?: StateProviderSettings;
  /** Custom resources: the URL prefixes their handlers (ServiceTokens) may be under, and this server's URL for them. */
  customResources?: CustomResourceSettings;
}

const BUILTIN = ['file', 'postgresql'];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Read `typeplane.config.json|yaml`; relative paths in it are resolved against its folder. */
export async function readConfig(file: string): Promise<{ config: TypeplaneConfig; baseDir: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ConfigError(
      `cannot read the configuration ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
    );
  }
  let value: unknown;
  try {
    value = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(
      `${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(e as Error).message.split('\n')[0]}`,
    );
  }
  return { config: checkConfig(value, file), baseDir: dirname(resolve(file)) };
}

function checkConfig(value: unknown, file: string): TypeplaneConfig {
  const fail = (where: string, what: string): never => {
    throw new ConfigError(`${file}: ${where} ${what}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail('the configuration', 'must be an object with `types` and/or `providers`');
  const record = value as Record<string, unknown>;
  const keys = ['types', 'providers', 'hooks', 'stateProvider', 'customResources'];
  for (const key of Object.keys(record))
    if (!keys.includes(key)) fail(`'${key}'`, `is not a configuration key (known: ${keys.join(', ')})`);
  if (
    record.types !== undefined &&
    !(Array.isArray(record.types) && record.types.every((t) => typeof t === 'string'))
  ) {
    fail("'types'", 'must be a list of paths');
  }
  if (record.providers !== undefined) {
    if (!Array.isArray(record.providers)) fail("'providers'", 'must be a list');
    (record.providers as unknown[]).forEach((entry, i) => {
      const where = `providers[${i}]`;
      if (typeof entry !== 'object' || entry === null) return fail(where, 'must be an object');
      const e = entry as Record<string, unknown>;
      const kinds = ['module', 'builtin', 'url'].filter((k) => e[k] !== undefined);
      if (kinds.length !== 1) return fail(where, 'needs exactly one of `module`, `builtin` or `url`');
      if (e.builtin !== undefined && !BUILTIN.includes(e.builtin as string)) {
        fail(
          where,
          `names an unknown built-in provider '${String(e.builtin)}' (known: ${BUILTIN.join(', ')})`,
        );
      }
      if (e.url !== undefined && !(Array.isArray(e.types) && e.types.length > 0))
        fail(where, 'with a `url` must list the `types` it serves');
      if (
        e.config !== undefined &&
        (typeof e.config !== 'object' || e.config === null || Array.isArray(e.config))
      )
        fail(where, '`config` must be an object');
    });
  }
  if (record.hooks !== undefined) {
    if (!Array.isArray(record.hooks)) fail("'hooks'", 'must be a list');
    (record.hooks as unknown[]).forEach((entry, i) => {
      const where = `hooks[${i}]`;
      if (typeof entry !== 'object' || entry === null) return fail(where, 'must be an object');
      const e = entry as Record<string, unknown>;
      if ((e.module === undefined) === (e.url === undefined))
        return fail(where, 'needs exactly one of `module` (a defineHook module) or `url`');
      if (
        e.url !== undefined &&
        !(Array.isArray(e.hooks) && e.hooks.length > 0 && e.hooks.every((h) => typeof h === 'string'))
      )
        fail(where, 'with a `url` must list the hook type names it serves in `hooks`');
    });
  }
  if (record.stateProvider !== undefined) {
    const problems = stateProviderProblems(record.stateProvider);
    if (problems.length > 0)
      throw new ConfigError(problems.map((p) => `${file}: ${p.where} ${p.what}`).join('\n'));
  }
  if (record.customResources !== undefined) {
    const problems = customResourceProblems(record.customResources);
    if (problems.length > 0) throw new ConfigError(problems.map((p) => `${file}: ${p}`).join('\n'));
  }
  return record as TypeplaneConfig;
}

function customResourceProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return ["'customResources' must be an object: { serviceTokens: [<URL prefix>, …], responseUrl?: <URL> }"];
  const record = value as Record<string, unknown>;
  const problems = Object.keys(record)
    .filter((k) => k !== 'serviceTokens' && k !== 'responseUrl')
    .map((k) => `customResources.${k} is not a setting (known: serviceTokens, responseUrl)`);
  if (record.serviceTokens !== undefined)
    problems.push(
      ...serviceTokenPrefixProblems(record.serviceTokens).map(
        (p) => `customResources.serviceTokens${p.startsWith('[') ? '' : ' '}${p}`,
      ),
    );
  if (
    record.responseUrl !== undefined &&
    !(typeof record.responseUrl === 'string' && /^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(record.responseUrl))
  )
    problems.push(
      'customResources.responseUrl must be the http(s) URL handlers reach this server at (like https://typeplane.example.com)',
    );
  return problems;
}

/** Resolve every hook entry to what serves it. */
export async function loadHookServers(entries: readonly HookEntry[], baseDir: string): Promise<HookServer[]> {
  const loaded: HookServer[] = [];
  for (const entry of entries) {
    if ('url' in entry) {
      const { createRemoteHook } = await import('./remote/hook.js');
      loaded.push(
        createRemoteHook({
          name: entry.name ?? entry.url,
          url: entry.url,
          hooks: entry.hooks,
          ...(entry.schema ? { schema: absolute(entry.schema, baseDir) } : {}),
        }),
      );
      continue;
    }
    const path = absolute(entry.module, baseDir);
    let module: Record<string, unknown>;
    try {
      module = await importModule(path);
    } catch (e) {
      throw new ConfigError(`cannot load the hook module ${path}: ${(e as Error).message}`);
    }
    const candidate = (module.default ?? module.hook) as Partial<HookServer> | undefined;
    if (!candidate || typeof candidate !== 'object' || !Array.isArray(candidate.hooks))
      throw new ConfigError(
        `${path} does not export a hook: export default defineHook({ typeName, preCreate, … }) from 'typeplane/provider'`,
      );
    const server = candidate as HookServer;
    // A schema path in a module is relative to the module.
    loaded.push(server.schema ? { ...server, schema: absolute(server.schema, dirname(path)) } : server);
  }
  return loaded;
}

/** Resolve every entry to a provider, configured and ready. */
export async function loadProviders(
  entries: readonly ProviderEntry[],
  baseDir: string,
): Promise<ProviderDefinition[]> {
  const loaded: ProviderDefinition[] = [];
  for (const entry of entries) {
    const provider = await loadOne(entry, baseDir);
    if ('module' in entry && entry.config && provider.configure) await provider.configure(entry.config);
    loaded.push(provider);
  }
  return loaded;
}

async function loadOne(entry: ProviderEntry, baseDir: string): Promise<ProviderDefinition> {
  if ('builtin' in entry && entry.builtin === 'postgresql') {
    const { createPostgresProvider } = await import('./postgresql/index.js');
    const url = entry.config?.url;
    return createPostgresProvider(typeof url === 'string' ? { url } : {});
  }
  if ('builtin' in entry) {
    const { createFileProvider } = await import('./file/index.js');
    // Relative roots are relative to the configuration file, like every other path in it.
    const root = entry.config?.root;
    return createFileProvider(typeof root === 'string' ? { root: absolute(root, baseDir) } : {});
  }
  if ('url' in entry) {
    const { createRemoteProvider } = await import('./remote/index.js');
    const remote = createRemoteProvider({
      name: entry.name ?? entry.url,
      url: entry.url,
      types: entry.types,
      ...(entry.timeoutMs === undefined ? {} : { timeoutMs: entry.timeoutMs }),
    });
    return entry.schemas ? { ...remote, schemas: entry.schemas.map((s) => absolute(s, baseDir)) } : remote;
  }
  return loadModule(absolute(entry.module, baseDir));
}

/** Import an SDK module: its default export (or `provider`) must be what `defineProvider` returns. */
export async function loadModule(path: string): Promise<ProviderDefinition> {
  let module: Record<string, unknown>;
  try {
    module = await importModule(path);
  } catch (e) {
    throw new ConfigError(`cannot load the provider module ${path}: ${(e as Error).message}`);
  }
  const candidate = (module.default ?? module.provider) as Partial<ProviderDefinition> | undefined;
  const handlers = ['create', 'read', 'update', 'delete', 'list'] as const;
  if (
    !candidate ||
    typeof candidate !== 'object' ||
    !Array.isArray(candidate.types) ||
    handlers.some((h) => typeof candidate[h] !== 'function')
  ) {
    throw new ConfigError(
      `${path} does not export a provider: export default defineProvider({ name, types, create, read, update, delete, list }) from 'typeplane/provider'`,
    );
  }
  const definition = candidate as ProviderDefinition;
  // Schema paths in a module are relative to the module.
  return definition.schemas
    ? { ...definition, schemas: definition.schemas.map((s) => absolute(s, dirname(path))) }
    : definition;
}

/**
 * TypeScript modules (.ts, .mts, .cts, .tsx) load through tsx's API, scoped to this import (no
 * loader is registered for the rest of the process); anything else through Node itself.
 */
async function importModule(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  if (!/\.(m|c)?tsx?$/i.test(path)) return (await import(url)) as Record<string, unknown>;
  const { tsImport } = await import('tsx/esm/api');
  const module = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  // A .ts file outside a "type": "module" package is compiled as CommonJS: its exports arrive as
  // the namespace's default.
  const inner = module.default as Record<string, unknown> | null | undefined;
  return inner && typeof inner === 'object' && ('default' in inner || 'provider' in inner || 'hook' in inner)
    ? inner
    : module;
}

function absolute(path: string, baseDir: string): string {
  if (path.startsWith('file:')) return new URL(path).pathname;
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

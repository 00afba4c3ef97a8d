/**
 * Shared pieces of the stack tests: a registry on a real SQLite store with the test types, a
 * one-call validation of a template text, and the CLI as a child process.
 */
import type { TestContext } from 'node:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/index.js';
import { Registry } from '../../src/registry/registry.js';
import { analyzeTemplate } from '../../src/stacks/analyze.js';
import { loadTemplate } from '../../src/stacks/template.js';
import { registryTypes } from '../../src/stacks/types.js';
import { pino } from 'pino';
import type { ServiceOptions } from '../../src/service.js';
import { startTestService, tempDir, WIDGET, type Api } from '../helpers/service.js';
import { exits, runCli, type CliRun } from '../helpers/cli.js';

export { exits };

/** A second test type: Gadget refers to a widget by name; Token is read-only (the state provider makes none). */
export const GADGET = JSON.stringify({
  typeName: 'Test::Shop::Gadget',
  description: 'A gadget for stack tests.',
  properties: {
    GadgetId: { type: 'string' },
    WidgetName: { type: 'string' },
    Note: { type: 'string' },
    Port: { type: 'integer' },
    Enabled: { type: 'boolean' },
    Tags: { type: 'array', items: { type: 'string' } },
    Token: { type: 'string' },
    Endpoint: { type: 'object', properties: { Host: { type: 'string' } }, additionalProperties: false },
  },
  additionalProperties: false,
  primaryIdentifier: ['/properties/GadgetId'],
  readOnlyProperties: ['/properties/GadgetId', '/properties/Token', '/properties/Endpoint'],
});

export async function testRegistry(t: TestContext): Promise<Registry> {
  const store = await openSqliteStore(join(tempDir(), 'typeplane.db'));
  t.after(() => store.close());
  const registry = new Registry(store);
  await registry.register(WIDGET);
  await registry.register(GADGET);
  return registry;
}

export async function validateText(
  registry: Registry,
  text: string,
  parameters: Record<string, unknown> = {},
  requireValues = false,
) {
  const loaded = loadTemplate(text, 'stack.yaml');
  if (!loaded.template) return { diagnostics: loaded.diagnostics, analysis: undefined };
  const result = await analyzeTemplate(loaded.template, {
    types: registryTypes(registry),
    parameters,
    requireValues,
    file: 'stack.yaml',
  });
  return { ...result, diagnostics: [...loaded.diagnostics, ...result.diagnostics] };
}

export type { CliRun };

/** `typeplane <args>` as a child process against the server at `url`, with `token`. */
export function typeplaneCli(url: string, token: string, args: string[]): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TYPEPLANE_TOKEN: token };
  delete env.TYPEPLANE_ENDPOINT;
  return runCli([...args, '--endpoint', url], { env });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Which of `texts` some file of a (closed) server's data folder holds in plain bytes: `text in file`. */
export function plainAtRest(dataDir: string, texts: readonly string[]): string[] {
  const files = filesUnder(dataDir);
  if (!files.some((f) => f.endsWith('.db'))) throw new Error(`no store file under ${dataDir}`);
  return files.flatMap((file) => {
    const bytes = readFileSync(file);
    return texts.filter((text) => bytes.includes(text)).map((text) => `${text} in ${file}`);
  });
}

/**
 * A server with the widget type whose log (at its most verbose) and whose answers to `call` (as the
 * admin, or as `client`) are kept, to look for secrets in.
 */
export async function watchedService(t: TestContext, options: Partial<ServiceOptions> = {}) {
  let logs = '';
  const s = await startTestService({
    logger: pino({ level: 'trace' }, { write: (line: string) => void (logs += line) }),
    ...options,
  });
  t.after(() => s.close());
  const registered = await s.call('POST', '/v1/types', WIDGET);
  if (registered.status !== 201) throw new Error(JSON.stringify(registered.body));
  const answers: string[] = [];
  const call = async (method: string, path: string, body?: unknown, client: Api = s) => {
    const r = await client.call(method, path, body);
    answers.push(`${method} ${path} ${r.status} ${JSON.stringify(r.body)}`);
    return r;
  };
  return { s, call, answers, logs: () => logs };
}

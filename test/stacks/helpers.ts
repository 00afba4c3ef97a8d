/**
 * Shared pieces of the stack tests: a registry on a real SQLite store with the test types, a
 * one-call validation of a template text, and the CLI as a child process.
 */
import type { TestContext } from 'node:test';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/index.js';
import { Registry } from '../../src/registry/registry.js';
import { analyzeTemplate } from '../../src/stacks/analyze.js';
import { loadTemplate } from '../../src/stacks/template.js';
import { registryTypes } from '../../src/stacks/types.js';
import { tempDir, WIDGET } from '../helpers/service.js';
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

/**
 * Shared pieces of the contract suite's tests: the widget type and its fixture providers, a state
 * provider on a real SQLite store, and a way to name what failed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSchemaType, type SuiteReport } from '../../src/contract/index.js';
import { loadModule } from '../../src/providers/load.js';
import type { ProviderDefinition } from '../../src/providers/sdk.js';
import { createStateProvider } from '../../src/providers/state.js';
import type { Provider } from '../../src/handler/types.js';
import type { ResourceType } from '../../src/schema/index.js';
import { openSqliteStore } from '../../src/store/index.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const fixtures = join(root, 'test/fixtures/broken-providers');
export const widgetSchema = join(fixtures, 'widget.json');

export function widgetType(): Promise<ResourceType> {
  return readSchemaType(widgetSchema);
}

/** A fixture provider module under test/fixtures/broken-providers, loaded as `--provider` loads it. */
export function fixture(name: string): Promise<ProviderDefinition> {
  return loadModule(join(fixtures, `${name}.ts`));
}

/** The state provider on a real SQLite store in a temporary folder, for `type`. */
export async function stateProvider(
  type: ResourceType,
): Promise<{ provider: Provider; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-contract-state-'));
  const store = await openSqliteStore(join(dir, 'typeplane.db'));
  return {
    provider: createStateProvider(store, async () => type),
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Names of the tests that failed or could not run. */
export function failedTests(report: SuiteReport): string[] {
  return report.results.filter((r) => r.status === 'fail' || r.status === 'error').map((r) => r.name);
}

/** One line per failure, for assertion messages. */
export function explain(report: SuiteReport): string {
  return report.results
    .filter((r) => r.status === 'fail' || r.status === 'error')
    .map((r) => `${r.name}: ${r.reason ?? r.failures.map((f) => f.message).join(' | ')}`)
    .join('\n');
}

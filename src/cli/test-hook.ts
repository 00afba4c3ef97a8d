/**
 * @module `typeplane test --hook <module or URL> --hook-schema <file> --schema <target schema>`: the
 * contract suite for a hook (src/contract/hook-suite.ts), run against a `defineHook` module in this
 * process or a hook served over HTTP.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { readSchemaType } from '../contract/index.js';
import { runHookContract } from '../contract/hook-suite.js';
import type { HookServer } from '../handler/index.js';
import { DEFAULT_HOOK_TIMEOUT_SECONDS, checkHookSchema } from '../policy/hooks/index.js';
import { loadHookServers } from '../providers/load.js';
import { createRemoteHook } from '../providers/remote/hook.js';
import { EXIT } from './usage.js';

export interface HookTestOptions {
  hook: string;
  hookSchema?: string;
  hookProperties?: string;
  schema?: string;
  type?: string;
  seedNumber?: number;
  runsNumber: number;
  timeoutMs?: number;
  output: string;
}

/** Exit code 0 when every check passed, 1 when one failed, 2 on a setup problem. */
export async function runHookTest(options: HookTestOptions): Promise<number> {
  const fail = (message: string): number => {
    process.stderr.write(`error: ${message}\n`);
    return EXIT.usage;
  };
  const remote = /^https?:\/\//i.test(options.hook);
  if (remote && !options.hookSchema) return fail("--hook-schema <file> is needed with a hook's URL");
  let module: HookServer | undefined;
  try {
    if (!remote) [module] = await loadHookServers([{ module: options.hook }], process.cwd());
  } catch (e) {
    return fail((e as Error).message);
  }
  const file = options.hookSchema ? resolve(options.hookSchema) : module?.schema;
  if (!file) return fail('--hook-schema <file> is needed: the hook module names no schema');
  const checked = checkHookSchema(await readFile(file), { file });
  if (!checked.hook) {
    for (const d of checked.diagnostics.filter((x) => x.severity === 'error'))
      process.stderr.write(`${d.file}:${d.line ?? 1}:${d.column ?? 1} ${d.rule} ${d.message}\n`);
    return EXIT.usage;
  }
  const server =
    module ?? createRemoteHook({ name: options.hook, url: options.hook, hooks: [checked.hook.typeName] });
  try {
    if (!options.schema) return fail('--schema <file> is needed: a schema of a type the hook targets');
    const target = await readSchemaType(resolve(options.schema), options.type);
    const properties = options.hookProperties
      ? (JSON.parse(await readFile(options.hookProperties, 'utf8')) as Record<string, unknown>)
      : undefined;
    const seed = options.seedNumber ?? Math.floor(Math.random() * 2 ** 31);
    const results = await runHookContract({
      server,
      hook: checked.hook,
      targets: [target],
      ...(properties ? { properties } : {}),
      seed,
      runs: options.runsNumber,
      timeoutMs: options.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_SECONDS * 1000,
    });
    const failed = results.filter((r) => !r.passed);
    if (options.output === 'json')
      process.stdout.write(JSON.stringify({ hook: checked.hook.typeName, seed, results }, null, 2) + '\n');
    else {
      process.stdout.write(`hook ${checked.hook.typeName} (seed ${seed})\n`);
      for (const r of results) {
        process.stdout.write(`${r.passed ? '✓' : '✗'} ${r.name}\n`);
        for (const f of r.failures.slice(0, 5)) process.stdout.write(`    ${f}\n`);
      }
      process.stdout.write(`${results.length - failed.length} passed, ${failed.length} failed\n`);
    }
    return failed.length === 0 ? EXIT.ok : EXIT.failed;
  } catch (e) {
    return fail((e as Error).message);
  } finally {
    await server.close?.();
  }
}

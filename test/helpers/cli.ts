/**
 * How tests start `typeplane`: the built `dist/cli/main.js` when dist/ is current with src/ (after
 * `npm run build`, which .ci/run runs before the tests; see scripts/dist-current.mjs), else the
 * sources (as test/helpers/typescript.ts starts them). The built CLI starts in a third of the time;
 * a dist/ older than any source file is never used, so what runs is always the source as it is.
 * TYPEPLANE_TEST_FROM=src forces the sources.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { distIsCurrent, root } from '../../scripts/dist-current.mjs';
import { TS_NODE } from './typescript.js';

/** The node arguments that run the CLI; the command's own arguments follow. */
export const CLI: readonly string[] = distIsCurrent()
  ? [join(root, 'dist/cli/main.js')]
  : [...TS_NODE, join(root, 'src/cli/main.ts')];

/** What a CLI run left: its exit code and its output. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `typeplane <args>` as a child process with exactly `env` (the caller decides what of its own
 * environment goes in), killed after `timeoutMs`; `onStart` gets the child (to interrupt it).
 */
export function runCli(
  args: readonly string[],
  {
    env,
    cwd = root,
    timeoutMs = 60_000,
    onStart,
  }: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; onStart?: (child: ChildProcess) => void },
): Promise<CliRun> {
  const child = spawn(process.execPath, [...CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  onStart?.(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `typeplane ${args.join(' ')} did not finish in ${timeoutMs / 1000} s\n${stdout}\n${stderr}`,
        ),
      );
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Assert the exit code, showing the output when it is wrong. */
export function exits(run: CliRun, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
}

/**
 * The example Python provider (examples/providers/python/provider.py) started as its README says,
 * on a free port with its own data folder; `stop` ends it and removes the folder.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listeningUrl } from './listening.js';
import { tempDir } from './service.js';

export const PYTHON_EXAMPLE = fileURLToPath(new URL('../../examples/providers/python/', import.meta.url));

export interface PythonExample {
  url: string;
  /** Its --data-dir (notes.json is in it). */
  dataDir: string;
  /** What it wrote to stderr so far (its request lines, unless --quiet). */
  logs(): string;
  stop(): Promise<void>;
}

export async function startPythonExample(extraArgs: readonly string[] = []): Promise<PythonExample> {
  const dataDir = tempDir('typeplane-python-');
  const child = spawn(
    'python3',
    [`${PYTHON_EXAMPLE}provider.py`, '--data-dir', dataDir, '--port', '0', ...extraArgs],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let logs = '';
  child.stderr.on('data', (d: Buffer) => (logs += d.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await listeningUrl(child, 'the Python provider', () => logs);
    return { url, dataDir, logs: () => logs, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * The example Python hook (examples/hooks/python/require_tags_hook.py) started as its README says, on
 * a free port; `stop` ends it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { listeningUrl } from './listening.js';

export const PYTHON_HOOK = fileURLToPath(new URL('../../examples/hooks/python/', import.meta.url));

export async function startPythonHook(): Promise<{ url: string; stop(): void }> {
  // Quiet, and its stderr not piped: a pipe nobody reads fills up and stops the server mid-answer.
  const child = spawn('python3', [`${PYTHON_HOOK}require_tags_hook.py`, '--port', '0', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () => void child.kill('SIGTERM');
  try {
    const url = await listeningUrl(child, 'the Python hook');
    return { url, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

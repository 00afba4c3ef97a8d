/**
 * The example Python hook (examples/hooks/python/require_tags_hook.py) started as its README says, on
 * a free port; `stop` ends it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const PYTHON_HOOK = fileURLToPath(new URL('../../examples/hooks/python/', import.meta.url));

export async function startPythonHook(): Promise<{ url: string; stop(): void }> {
  // Quiet, and its stderr not piped: a pipe nobody reads fills up and stops the server mid-answer.
  const child = spawn('python3', [`${PYTHON_HOOK}require_tags_hook.py`, '--port', '0', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () => void child.kill('SIGTERM');
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('the Python hook did not start in 10 s')), 10_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the Python hook exited with ${code}`));
      });
    });
    return { url, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

/**
 * The URL a child process prints as `listening on <url>` on its stdout when it is ready to serve:
 * what the example servers (Python hook and provider) and Typeplane's own print.
 */
import type { ChildProcess } from 'node:child_process';

/**
 * Resolves with the URL once `child` prints it; rejects, naming `what` and adding `logs()` (what it
 * wrote to stderr), when it exits first or has not printed it within `ms`.
 */
export function listeningUrl(
  child: ChildProcess,
  what: string,
  logs: () => string = () => '',
  ms = 10_000,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const tail = () => (logs() === '' ? '' : `\n${logs()}`);
    const timer = setTimeout(() => reject(new Error(`${what} did not start in ${ms / 1000} s${tail()}`)), ms);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}${tail()}`));
    });
  });
}

/**
 * Running README.md's walkthroughs as written: a section's `sh` blocks, split into commands, each run
 * by bash against test servers. Only addresses change (`4780` and `4781` become the test servers'
 * ports) and `npx typeplane` is this checkout's CLI. Every command must exit 0, or the code its
 * comment names (`# exit 1: …`), so the README and what it describes cannot drift apart.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI } from './cli.js';
import { awsCli } from './requirements.js';
import { tempDir } from './service.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const README = readFileSync(join(root, 'README.md'), 'utf8');

/** The `sh` blocks under the heading `title`, up to the next heading (of any level). */
export function shBlocks(title: string): string[] {
  const lines = README.split('\n');
  const start = lines.indexOf(title);
  assert.ok(start >= 0, `README has no section '${title}'`);
  const blocks: string[] = [];
  let block: string[] | undefined;
  let fenced = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('```')) {
      fenced = !fenced;
      if (fenced && line === '```sh') block = [];
      else if (!fenced && block) {
        blocks.push(block.join('\n'));
        block = undefined;
      }
    } else if (block) block.push(line);
    else if (!fenced && /^#{1,6} /.test(line)) break;
  }
  return blocks;
}

/** Commands of a block: continuation lines joined, a here-document kept with its command, blank lines dropped. */
export function commands(block: string): string[] {
  const lines = block.replace(/\\\n/g, ' ').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    const heredoc = /<<-?\s*'?(\w+)'?/.exec(line)?.[1];
    if (heredoc) {
      const end = lines.indexOf(heredoc, i + 1);
      assert.ok(end > i, `README here-document '${heredoc}' has no end`);
      line = lines.slice(i, end + 1).join('\n');
      i = end;
    }
    if (line.trim() !== '') out.push(line);
  }
  return out;
}

/** The servers a block talks to: `main` on 4780 (the README's default), `greetings` on 4781. */
export interface ReadmeServers {
  main: { url: string; token: string };
  greetings?: { url: string; token: string };
}

/**
 * Run `block` in one bash, each command checked: it must exit with the code its comment names
 * (`# exit N`), or 0. `replace` rewrites each command first (names of a run's own). Returns what
 * the block printed.
 */
export function runBlock(
  block: string,
  servers: ReadmeServers,
  {
    token = servers.main.token,
    cwd = root,
    replace = [],
  }: { token?: string; cwd?: string; replace?: [RegExp, string][] } = {},
): Promise<{ stdout: string; stderr: string }> {
  const port = (url: string) => new URL(url).port;
  const lines = commands(block).map((line, i) => {
    const expected = /#\s*exit (\d+)/.exec(line)?.[1] ?? '0';
    let command = replace
      .reduce((text, [from, to]) => text.replace(from, to), line)
      .replace(/4780/g, port(servers.main.url));
    if (servers.greetings) command = command.replace(/4781/g, port(servers.greetings.url));
    command = command.replace(/localhost:/g, '127.0.0.1:');
    return `${command}\n__rc=$?; if [ "$__rc" != ${expected} ]; then echo "README command ${i + 1} exited $__rc, not ${expected}: ${JSON.stringify(line).slice(1, -1).replace(/[$`]/g, '\\$&')}" >&2; exit 99; fi`;
  });
  const cli = [process.execPath, ...CLI].map((a) => `'${a}'`).join(' ');
  const script = [
    `npx() { if [ "$1" = typeplane ]; then shift; ${cli} "$@"; else echo "npx $1: not in this test" >&2; return 127; fi; }`,
    `aws() { '${awsCli()}' "$@"; }`,
    ...lines,
  ].join('\n');
  const home = tempDir('typeplane-readme-home-');
  const child = spawn('bash', ['-c', script], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: home,
      NO_COLOR: '1',
      TYPEPLANE_TOKEN: token,
      TYPEPLANE_ENDPOINT: servers.main.url,
      // The AWS CLI reads no profile of this machine's and asks no metadata service.
      AWS_CONFIG_FILE: join(home, 'none'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_MAX_ATTEMPTS: '1',
      ...(process.env.TYPEPLANE_TEST_FROM ? { TYPEPLANE_TEST_FROM: process.env.TYPEPLANE_TEST_FROM } : {}),
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    // Generous: on a loaded machine (four test files at once) a block of many commands, each a
    // Node.js process of its own, takes several times what it takes alone (about 20 s).
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, 300_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new Error(
            `the block ${killed ? 'took over 300 s and was killed' : `exited ${code}`}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`,
          ),
        );
    });
  });
}

/**
 * `typeplane completion bash|zsh|fish` prints a script generated from the program: sourced in a real
 * bash, its completion function completes commands, subcommands, options and option values, and
 * every command `typeplane --help` lists is in it.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/service.js';
import { exits, runCli } from '../helpers/cli.js';

const env = { ...process.env, NO_COLOR: '1' };
const script = join(tempDir(), 'typeplane.bash');

before(async () => {
  const run = await runCli(['completion', 'bash'], { env });
  exits(run, 0);
  writeFileSync(script, run.stdout);
});

/** What the bash completion offers for the words typed so far (the last one is being completed). */
function complete(...words: string[]): string[] {
  const out = execFileSync(
    'bash',
    [
      '--norc',
      '-c',
      'source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); complete -p typeplane >/dev/null; _typeplane; printf "%s\\n" "${COMPREPLY[@]}"',
      script,
      'typeplane',
      ...words,
    ],
    { encoding: 'utf8' },
  );
  return out.split('\n').filter((line) => line !== '');
}

test('bash completes commands and subcommands: typeplane res → resource, typeplane resource l → list', () => {
  assert.deepEqual(complete('res'), ['resource', 'restore']);
  assert.deepEqual(complete('resource', 'l'), ['list']);
  assert.deepEqual(complete('resource', 'p'), ['put']);
  assert.deepEqual(complete('type', 'report', ''), ['upload']);
  assert.deepEqual(complete('st'), ['stack']);
});

test("bash completes a command's options and the values an option takes, past options and arguments", () => {
  assert.deepEqual(complete('resource', 'list', 'Test::Shop::Widget', '--fi'), ['--filter']);
  assert.deepEqual(complete('resource', '--token', 'resource', 'get', 'T', 'id', '-o', ''), [
    'table',
    'json',
    'yaml',
  ]);
  assert.deepEqual(complete('resource', 'list', 'T', '--output', 'w'), ['wide']);
  assert.deepEqual(complete('completion', 'b'), [], 'an argument is not completed as a command');
});

test('the scripts name every command typeplane --help lists, for bash, zsh and fish', async () => {
  const help = await runCli(['--help'], { env });
  exits(help, 0);
  const commands = [...help.stdout.split('Commands:')[1]!.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]!);
  assert.ok(commands.includes('resource') && commands.includes('completion'), commands.join(' '));
  assert.deepEqual(
    complete(''),
    commands.filter((c) => c !== 'help'),
  );
  for (const shell of ['zsh', 'fish']) {
    const run = await runCli(['completion', shell], { env });
    exits(run, 0);
    for (const command of commands.filter((c) => c !== 'help'))
      assert.match(run.stdout, new RegExp(`'${command}(:|')`), `${shell} script names ${command}`);
  }
  const wrong = await runCli(['completion', 'powershell'], { env });
  exits(wrong, 2);
  assert.match(wrong.stderr, /completion is for bash, zsh, fish, not 'powershell'/);
});

/** Whether `shell` is installed here (the zsh and fish checks need it; bash is always there). */
const missing = (shell: string) => {
  try {
    execFileSync(shell, ['-c', 'true']);
    return false;
  } catch {
    return `${shell} is not installed`;
  }
};

test(
  'fish completes typeplane resource l → list and the values of -o',
  { skip: missing('fish') },
  async () => {
    const run = await runCli(['completion', 'fish'], { env });
    exits(run, 0);
    const file = join(tempDir(), 'typeplane.fish');
    writeFileSync(file, run.stdout);
    const offered = (line: string) =>
      execFileSync('fish', ['--no-config', '-c', `source ${file}; complete -C'${line}'`], {
        encoding: 'utf8',
      })
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('\t')[0]);
    assert.deepEqual(offered('typeplane res').sort(), ['resource', 'restore']);
    assert.deepEqual(offered('typeplane reso'), ['resource']);
    assert.deepEqual(offered('typeplane resource l'), ['list']);
    assert.deepEqual(offered('typeplane resource list T -o ').sort(), ['json', 'table', 'wide', 'yaml']);
  },
);

test('the zsh script is valid zsh', { skip: missing('zsh') }, async () => {
  const run = await runCli(['completion', 'zsh'], { env });
  exits(run, 0);
  const file = join(tempDir(), '_typeplane');
  writeFileSync(file, run.stdout);
  execFileSync('zsh', ['-n', file]);
});

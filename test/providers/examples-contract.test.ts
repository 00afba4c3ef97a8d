/**
 * Every shipped example provider passes the whole contract suite, run as the README runs it
 * (`typeplane test`, a child process): the TypeScript greeting loaded in-process from its .ts file
 * and served over the provider protocol, and the Python notes provider over HTTP. An example that
 * breaks the contract its own README proves fails here. Every test of the suite runs, on a fixed seed
 * (a failure prints it) with two inputs each, the three runs at once, and the Python provider with no
 * callback delay: a few seconds in all.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadModule } from '../../src/providers/load.js';
import { runCli } from '../helpers/cli.js';
import { serveOverProtocol } from '../helpers/protocol-server.js';
import { PYTHON_EXAMPLE, startPythonExample, type PythonExample } from '../helpers/python-example.js';
import { pythonSkip } from '../helpers/requirements.js';

const GREETING = 'examples/providers/typescript/';
const skip = pythonSkip();

let python: PythonExample | undefined;
let greetingOverHttp: { url: string; close(): Promise<void> } | undefined;

before(async () => {
  const greeting = await loadModule(join(GREETING, 'greeting-provider.ts'));
  [greetingOverHttp, python] = await Promise.all([
    serveOverProtocol(greeting),
    skip ? undefined : startPythonExample(['--callback-delay', '0', '--quiet']),
  ]);
});

after(async () => {
  await greetingOverHttp?.close();
  await python?.stop();
});

/** `typeplane test <args>` must pass every test of the suite (none failed, none left behind). */
async function keepsTheContract(args: readonly string[]): Promise<void> {
  const { PATH, HOME } = process.env;
  const run = await runCli(['test', ...args, '--seed', '1', '--runs', '2'], {
    env: { PATH, HOME, NO_COLOR: '1' },
  });
  const output = run.stdout + run.stderr;
  assert.equal(run.code, 0, output);
  assert.match(run.stdout, / 0 failed, /, output);
  assert.match(run.stdout, /cleanup: nothing left behind/, output);
  assert.match(run.stdout, /the provider keeps the contract/, output);
}

describe('every shipped example provider keeps the contract', { concurrency: true }, () => {
  test('the TypeScript example, loaded from its .ts file', () =>
    keepsTheContract(['--provider', join(GREETING, 'greeting-provider.ts')]));

  test('the TypeScript example over the provider protocol', () =>
    keepsTheContract(['--schema', join(GREETING, 'greeting.json'), '--endpoint', greetingOverHttp!.url]));

  test('the Python example over HTTP (its list hides the write-only Secret)', { skip }, () =>
    keepsTheContract(['--schema', join(PYTHON_EXAMPLE, 'note.json'), '--endpoint', python!.url]),
  );
});

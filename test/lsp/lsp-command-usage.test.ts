import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exits, runCli } from '../helpers/cli.js';

const env = { PATH: process.env.PATH ?? '' };

test('typeplane lsp refuses what it cannot do with a usage error (exit 2) saying what to give', async () => {
  const [noTransport, optionLike, both] = await Promise.all([
    runCli(['lsp'], { env }),
    runCli(['lsp', '--stdio', '--baseline', '--output=x'], { env }),
    runCli(['lsp', '--stdio', '--baseline', 'main', '--baseline-registered'], { env }),
  ]);
  exits(noTransport, 2);
  assert.match(noTransport.stderr, /give --stdio/);
  exits(optionLike, 2);
  assert.match(optionLike.stderr, /--baseline must be a git revision/);
  exits(both, 2);
  assert.match(both.stderr, /give one baseline/);
});

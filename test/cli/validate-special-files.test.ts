/**
 * `typeplane validate` and `serve --types` read only regular files, bounded while reading: a symlink
 * to a device that never ends, or a FIFO that never opens, is refused at once with the reason. And a
 * YAML document whose aliases expand past the value limit is refused before it is expanded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../helpers/cli.js';

const onPosix = process.platform !== 'win32';

/** The CLI in a child process, killed after 20 s (a hang is a failure, not a stuck suite). */
function typeplane(args: string[], cwd: string) {
  const started = performance.now();
  const run = spawnSync(process.execPath, [...CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', TYPEPLANE_ADMIN_TOKEN: '' },
    timeout: 20_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return {
    code: run.status,
    output: run.stdout + run.stderr,
    seconds: (performance.now() - started) / 1000,
  };
}

function workspace(): string {
  return mkdtempSync(join(tmpdir(), 'typeplane-special-'));
}

function mkfifo(path: string): void {
  assert.equal(spawnSync('mkfifo', [path]).status, 0, 'mkfifo');
}

test('validate refuses a symlink to /dev/zero as a device, without reading it', { skip: !onPosix }, () => {
  const dir = workspace();
  symlinkSync('/dev/zero', join(dir, 'zero.json'));
  const { code, output, seconds } = typeplane(['validate', 'zero.json'], dir);
  assert.equal(code, 1, output);
  assert.match(output, /zero\.json.*TP1001.*cannot read .*zero\.json: a device, not a regular file/);
  assert.ok(seconds < 15, `took ${seconds} s`);
});

test(
  'validate refuses a FIFO, named or found in a folder, instead of waiting on it',
  { skip: !onPosix },
  () => {
    const dir = workspace();
    mkfifo(join(dir, 'pipe.yaml'));
    let run = typeplane(['validate', 'pipe.yaml'], dir);
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /TP1001.*pipe\.yaml: a FIFO \(named pipe\), not a regular file/);

    mkdirSync(join(dir, 'types'));
    mkfifo(join(dir, 'types', 'inner.json'));
    run = typeplane(['validate', 'types'], dir);
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /inner\.json.*a FIFO \(named pipe\), not a regular file/);
  },
);

test('serve --types refuses to start on a FIFO, saying why', { skip: !onPosix }, () => {
  const dir = workspace();
  mkfifo(join(dir, 'pipe.json'));
  const { code, output } = typeplane(
    ['serve', '--port', '0', '--data-dir', join(dir, 'data'), '--types', 'pipe.json'],
    dir,
  );
  assert.equal(code, 1, output);
  assert.match(output, /cannot start: invalid type documents[\s\S]*pipe\.json.*TP1001.*a FIFO/);
});

test('validate refuses a YAML list aliased until its expansion passes the value limit', () => {
  const dir = workspace();
  const text =
    'typeName: Org::Alias::Bomb\ndescription: x\nitems: &x\n' +
    '  - 1\n'.repeat(4_000) +
    Array.from({ length: 99 }, (_, i) => `k${i}: *x\n`).join('');
  writeFileSync(join(dir, 'bomb.yaml'), text);
  const { code, output, seconds } = typeplane(['validate', 'bomb.yaml'], dir);
  assert.equal(code, 1, output);
  assert.match(output, /bomb\.yaml:4027:6 .*TP1004.*more than 100000 values, aliases expanded/);
  assert.ok(seconds < 15, `took ${seconds} s`);
});

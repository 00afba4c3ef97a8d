/**
 * Every file a command reads is read as `validate` reads type documents: a regular file only (a FIFO
 * is refused at once instead of waiting on a writer that never comes), and no more than the bound of
 * what it holds (an oversized file is refused from its size, before it is read whole), each refusal
 * naming the file, what was wrong and what to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const onPosix = process.platform !== 'win32';
/** Nothing listens here: a command that got as far as calling the server would fail otherwise. */
const ENDPOINT = 'http://127.0.0.1:9';
const WIDGET = JSON.stringify({
  typeName: 'Test::Files::Widget',
  description: 'A widget.',
  properties: { Name: { type: 'string' } },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
});

/** The commands that read a file, with the file in place of `FILE`; each takes a regular one too. */
const COMMANDS: { name: string; args: string[]; limit: string }[] = [
  { name: 'diff', args: ['diff', 'widget.json', 'FILE'], limit: '10.0 MB limit of a type document' },
  { name: 'type register', args: ['type', 'register', 'FILE'], limit: '10.0 MB limit of a type document' },
  { name: 'stack validate', args: ['stack', 'validate', 'FILE'], limit: '1.0 MB limit of a stack template' },
  { name: 'stack deploy', args: ['stack', 'deploy', 's', 'FILE'], limit: '1.0 MB limit of a stack template' },
  { name: 'stack plan', args: ['stack', 'plan', 's', 'FILE'], limit: '1.0 MB limit of a stack template' },
  {
    name: 'stack deploy --parameters-file',
    args: ['stack', 'deploy', 's', 'widget.json', '--parameters-file', 'FILE'],
    limit: '1.0 MB limit of a parameters file',
  },
  {
    name: 'resource create --file',
    args: ['resource', 'create', 'Test::Files::Widget', '--file', 'FILE'],
    limit: '1.0 MB limit of a JSON or YAML document',
  },
];

/** Each command on `file`, all at once; a hang is killed after 20 s and fails. */
async function runEach(dir: string, file: string) {
  return Promise.all(
    COMMANDS.map(async (c) => {
      const started = performance.now();
      const run = await runCli([...c.args.map((a) => (a === 'FILE' ? file : a)), '--endpoint', ENDPOINT], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: '1', TYPEPLANE_TOKEN: 'unused' },
        timeoutMs: 20_000,
      });
      return { ...c, ...run, output: run.stdout + run.stderr, seconds: (performance.now() - started) / 1000 };
    }),
  );
}

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-files-'));
  writeFileSync(join(dir, 'widget.json'), WIDGET);
  return dir;
}

test(
  'every command that reads a file refuses a FIFO at once, saying what to give instead',
  { skip: !onPosix },
  async () => {
    const dir = workspace();
    assert.equal(spawnSync('mkfifo', [join(dir, 'pipe.yaml')]).status, 0, 'mkfifo');
    for (const run of await runEach(dir, 'pipe.yaml')) {
      assert.equal(run.code, 2, `${run.name}: ${run.output}`);
      assert.match(run.output, /pipe\.yaml: a FIFO \(named pipe\), not a regular file/, run.name);
      assert.match(run.output, /is read from a regular file/, run.name);
      assert.ok(run.seconds < 15, `${run.name} took ${run.seconds} s`);
    }
  },
);

test('every command that reads a file refuses one over its bound by its size, naming the bound', async () => {
  const dir = workspace();
  // Sparse: 57 MB that take no room; read whole, they would be seconds and a quarter gigabyte.
  writeFileSync(join(dir, 'huge.yaml'), '');
  truncateSync(join(dir, 'huge.yaml'), 57 * 1024 * 1024);
  for (const run of await runEach(dir, 'huge.yaml')) {
    assert.equal(run.code, 2, `${run.name}: ${run.output}`);
    assert.ok(
      run.output.includes(`huge.yaml is 57.0 MB, over the ${run.limit}`),
      `${run.name}: ${run.output}`,
    );
  }
});

test('serve refuses a FIFO or an oversized file as its TLS certificate', { skip: !onPosix }, async () => {
  const dir = workspace();
  assert.equal(spawnSync('mkfifo', [join(dir, 'cert.pem')]).status, 0, 'mkfifo');
  writeFileSync(join(dir, 'key.pem'), '');
  truncateSync(join(dir, 'key.pem'), 57 * 1024 * 1024);
  const serve = (cert: string, key: string) =>
    runCli(['serve', '--port', '0', '--data-dir', join(dir, 'data'), '--tls-cert', cert, '--tls-key', key], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1' },
      timeoutMs: 20_000,
    });
  const [fifo, huge] = await Promise.all([serve('cert.pem', 'widget.json'), serve('widget.json', 'key.pem')]);
  assert.equal(fifo.code, 2, fifo.stderr);
  assert.match(fifo.stderr, /cert\.pem: a FIFO \(named pipe\), not a regular file/);
  assert.equal(huge.code, 2, huge.stderr);
  assert.match(huge.stderr, /key\.pem is 57\.0 MB, over the 1\.0 MB limit of a PEM file/);
});

/**
 * `typeplane stack …` as a child process against a real server: exit codes (1 when a deployment
 * fails or rolls back, 2 for a malformed flag), plans applied by id, --no-wait, following events,
 * -o json|yaml; and the progress shown on a terminal, one line per resource redrawn in place.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { stackProgress } from '../../src/cli/stack-progress.js';
import { memoryProvider } from '../helpers/providers.js';
import { startTestService, tempDir, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { requirement } from '../helpers/requirements.js';
import { exits, typeplaneCli } from './helpers.js';
import { CLI } from '../helpers/cli.js';

function template(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const CHAIN = (names: string[]) =>
  [
    'Resources:',
    ...names.flatMap((n, i) => [
      `  ${n.toUpperCase()}:`,
      '    Type: Test::Shop::Widget',
      ...(i > 0 ? [`    DependsOn: ${names[i - 1]!.toUpperCase()}`] : []),
      `    Properties: { Name: ${n} }`,
    ]),
  ].join('\n');

test('deploy exits 1 when the stack rolls back, 0 when it completes; plan, apply --no-wait, events --follow; a bad --parameters exits 2', async (t) => {
  const provider = memoryProvider({
    create: (req, store) => {
      if (req.desiredState.Name === 'bad')
        return { status: 'FAILED', errorCode: 'ServiceLimitExceeded', message: 'no room for bad' };
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const s = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const dir = tempDir();
  const cli = (...args: string[]) => typeplaneCli(s.url, s.token, args);
  const failing = template(dir, 'failing.yaml', CHAIN(['one', 'two', 'bad', 'four']));
  const good = template(dir, 'good.yaml', CHAIN(['alpha', 'beta']));
  const invalid = template(dir, 'invalid.json', '{"Resources": {"W": {"Type": "Test::Shop::Widgett"}}}');

  const [rolledBack, usage, validated, created] = await Promise.all([
    cli('stack', 'deploy', 'broken', failing),
    cli('stack', 'deploy', 'x', good, '--parameters', 'no-equals-sign'),
    cli('stack', 'validate', invalid, '-o', 'json'),
    cli('stack', 'deploy', 'fine', good, '-o', 'json'),
  ]);

  exits(rolledBack, 1);
  assert.match(rolledBack.stderr, /BAD .*CREATE_FAILED .*no room for bad/);
  assert.match(rolledBack.stderr, /ONE \(one\) .*DELETE_COMPLETE/, 'the rollback shows as it happens');
  assert.match(rolledBack.stderr, /^error: stack broken ended ROLLBACK_COMPLETE: BAD: ServiceLimitExceeded/m);
  assert.equal(provider.store.has('one'), false, 'rolled back');

  exits(usage, 2);
  assert.match(usage.stderr, /--parameters: parameter 'no-equals-sign' must be written Name=Value/);

  exits(validated, 1);
  const report = JSON.parse(validated.stdout);
  assert.equal(report.valid, false);
  assert.deepEqual(
    report.diagnostics.map((d: any) => `${d.file}:${d.line}:${d.column} ${d.rule}`),
    [`${invalid}:1:22 TP4004`],
  );
  assert.match(report.diagnostics[0].message, /did you mean Test::Shop::Widget\?/);

  exits(created, 0);
  assert.equal(JSON.parse(created.stdout).status, 'CREATE_COMPLETE');

  // A plan, shown as a table, applied by its id without waiting; then followed to its end.
  const changed = template(
    dir,
    'changed.yaml',
    CHAIN(['alpha', 'beta']).replace('Name: beta', 'Name: gamma'),
  );
  const plan = await cli('stack', 'plan', 'fine', changed);
  exits(plan, 0);
  assert.match(plan.stdout, /^ACTION\s+LOGICAL ID\s+TYPE\s+DETAIL$/m);
  assert.match(plan.stdout, /^NoChange\s+ALPHA\s+Test::Shop::Widget/m);
  assert.match(
    plan.stdout,
    /^Replace\s+BETA\s+Test::Shop::Widget\s+\/properties\/Name cannot change in place/m,
  );
  const planId = /^plan (\S+); apply it with: typeplane stack apply fine \1$/m.exec(plan.stdout)?.[1];
  assert.ok(planId, plan.stdout);
  const applied = await cli('stack', 'apply', 'fine', planId, '--no-wait', '-o', 'yaml');
  exits(applied, 0);
  const started = parseYaml(applied.stdout);
  assert.match(started.deploymentId, /^[0-9a-f-]{36}$/);
  assert.equal(started.stack.status, 'UPDATE_IN_PROGRESS');
  const followed = await cli('stack', 'events', 'fine', '--follow');
  exits(followed, 0);
  assert.match(followed.stdout, /fine {2}Typeplane::Stack {2}UPDATE_COMPLETE$/m);
  assert.match(followed.stdout, /BETA \(gamma\) {2}Test::Shop::Widget {2}CREATE_COMPLETE/);
  assert.deepEqual([...provider.store.keys()].sort(), ['alpha', 'gamma']);

  // Parameters from a file (CloudFormation's list form), --parameters over it; a malformed file exits 2.
  const parameterised = template(
    dir,
    'parameterised.yaml',
    'Parameters:\n  Color: { Type: String }\n  Size: { Type: String }\nResources:\n  W: { Type: Test::Shop::Widget, Properties: { Name: p, Color: !Ref Color, Size: !Ref Size } }\n',
  );
  const list = template(
    dir,
    'parameters.json',
    JSON.stringify([
      { ParameterKey: 'Color', ParameterValue: 'teal' },
      { ParameterKey: 'Size', ParameterValue: 'M' },
    ]),
  );
  const bad = template(dir, 'bad-parameters.yaml', 'Color: { nested: true }\n');
  const [fromFile, malformed] = await Promise.all([
    cli(
      'stack',
      'plan',
      'params',
      parameterised,
      '--parameters-file',
      list,
      '--parameters',
      'Size=L',
      '-o',
      'json',
    ),
    cli('stack', 'plan', 'params', parameterised, '--parameters-file', bad),
  ]);
  exits(fromFile, 0);
  const planned = JSON.parse(fromFile.stdout).changes[0].properties;
  assert.deepEqual([planned.Color, planned.Size], ['teal', 'L']);
  exits(malformed, 2);
  assert.match(malformed.stderr, /^error: --parameters-file: must map parameter names to values/m);
});

test('on a terminal each resource has one line, redrawn in place as its status changes', () => {
  const written: string[] = [];
  const stream = {
    isTTY: true,
    rows: 40,
    write: (s: string) => written.push(s),
  } as unknown as NodeJS.WriteStream;
  const progress = stackProgress(stream);
  const event = (eventId: string, logicalId: string, status: string, reason?: string) => ({
    eventId,
    time: '2026-01-01T00:00:00.000Z',
    logicalId,
    type: logicalId === 's' ? 'Typeplane::Stack' : 'Test::Shop::Widget',
    status,
    ...(reason ? { reason } : {}),
  });
  progress.add([event('1', 's', 'CREATE_IN_PROGRESS'), event('2', 'Db', 'CREATE_IN_PROGRESS')]);
  progress.add([event('2', 'Db', 'CREATE_IN_PROGRESS')]); // seen already: nothing drawn
  progress.add([event('3', 'Db', 'CREATE_COMPLETE'), event('4', 'File', 'CREATE_FAILED', 'disk full')]);
  assert.equal(written.length, 2);
  assert.equal(
    written[0],
    '\r\x1b[2Ks   Typeplane::Stack    CREATE_IN_PROGRESS\n\r\x1b[2KDb  Test::Shop::Widget  CREATE_IN_PROGRESS\n',
  );
  // The cursor goes back up over the two live lines and redraws them, adding the new one.
  assert.equal(
    written[1],
    '\x1b[2A\r\x1b[2Ks     Typeplane::Stack    CREATE_IN_PROGRESS\n' +
      '\r\x1b[2KDb    Test::Shop::Widget  CREATE_COMPLETE\n' +
      '\r\x1b[2KFile  Test::Shop::Widget  CREATE_FAILED  disk full\n',
  );
});

const scriptMissing =
  spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0
    ? false
    : 'script(1) from util-linux is not installed: it gives the CLI a real terminal';

test(
  'on a real terminal (script(1)) deploy draws one line per resource and redraws it in place',
  { skip: requirement(scriptMissing) },
  async (t) => {
    const provider = memoryProvider({
      create: async (req, store) => {
        await new Promise((r) => setTimeout(r, 300));
        store.set(String(req.desiredState.Name), req.desiredState);
        return { status: 'SUCCESS', resourceModel: req.desiredState };
      },
    });
    const s = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
    t.after(() => s.close());
    assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
    const file = template(tempDir(), 'tty.yaml', CHAIN(['first', 'second', 'third']));
    const command = [process.execPath, ...CLI, 'stack', 'deploy', 'tty', file, '--endpoint', s.url]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: { ...process.env, TYPEPLANE_TOKEN: s.token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.once('close', (code) => resolve({ code, out }));
    });
    assert.equal(run.code, 0, run.out);
    const ESC = String.fromCharCode(27);
    assert.match(run.out, new RegExp(`${ESC}\\[\\dA`), 'the cursor goes back up to redraw');
    assert.doesNotMatch(run.out, /^\d{4}-\d\d-\d\dT/m, 'not the one-line-per-event form of a pipe');
    // Each line ends drawn with its final status.
    for (const id of ['FIRST', 'SECOND', 'THIRD', 'tty'])
      assert.match(
        run.out,
        new RegExp(`${ESC}\\[2K${id} +(Test::Shop::Widget|Typeplane::Stack) +CREATE_COMPLETE`),
      );
  },
);

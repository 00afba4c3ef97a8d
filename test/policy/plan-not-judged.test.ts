/**
 * A stack plan is honest about what it did not judge: a change whose values are known only after
 * apply, or hold a secret the plan masks, is not put to rules, policies and hooks at plan time (they
 * would judge a placeholder) but marked `notJudged` with the pointers they could not read — an add as
 * much as a modify — while the changes it could judge carry their verdicts. `typeplane stack plan`
 * prints both. Over real HTTP on SQLite and PostgreSQL, the CLI as a child process.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { eachStoreService } from '../helpers/each-store.js';
import { tempDir, WIDGET, WIDGET_TYPE } from '../helpers/service.js';

const NOTE_ALL = {
  name: 'note-all',
  match: { types: ['Test::Shop::*'], operations: ['CREATE', 'UPDATE'] },
  validations: [{ expression: 'false', message: 'noted' }],
  action: 'Warn',
};

const template = (a: string, b: string, extra = '') => `
Parameters:
  Secret: { Type: String, NoEcho: true }
Resources:
  A: { Type: ${WIDGET_TYPE}, Properties: { Name: a, Color: ${a} } }
  B: { Type: ${WIDGET_TYPE}, Properties: { Name: b, Color: ${b} } }
${extra}`;

eachStoreService('a plan marks the changes it could not judge, and judges the others', async (svc) => {
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const parameters = { Secret: 'hunter2-secret' };
  const first = await svc.call('PUT', '/v1/stacks/honest?wait=20', {
    template: template('blue', 'green'),
    parameters,
  });
  assert.equal(first.body.stack?.status, 'CREATE_COMPLETE', JSON.stringify(first.body));
  assert.equal((await svc.call('POST', '/v1/policies', NOTE_ALL)).status, 201);

  // A's colour becomes New's identifier (known after apply), B's the secret (masked in the plan);
  // Later is added with a value known only after apply; New is added with values known now.
  const next = template(
    '!Ref New',
    '!Ref Secret',
    `  New: { Type: ${WIDGET_TYPE}, Properties: { Name: newone } }
  Later: { Type: ${WIDGET_TYPE}, Properties: { Name: later, Color: !Ref New } }`,
  );
  const plan = await svc.call('POST', '/v1/stacks/honest/plans', { template: next, parameters });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  const byId = Object.fromEntries(plan.body.changes.map((c: any) => [c.logicalId, c]));
  assert.equal(byId.A.action, 'Modify');
  assert.deepEqual(byId.A.notJudged.unknown, ['/Color']);
  assert.match(byId.A.notJudged.message, /when it is made.*\/Color known only after apply/);
  assert.equal(byId.A.verdicts, undefined);
  assert.equal(byId.B.action, 'Modify');
  assert.deepEqual(byId.B.notJudged.masked, ['/Color']);
  assert.match(byId.B.notJudged.message, /\/Color holding a secret the plan masks/);
  assert.doesNotMatch(JSON.stringify(plan.body), /hunter2/);
  assert.equal(byId.Later.action, 'Add');
  assert.deepEqual(byId.Later.notJudged.unknown, ['/Color']);
  // Judged at plan time: its verdicts, and nothing said of what it did not judge.
  assert.equal(byId.New.notJudged, undefined);
  assert.deepEqual(
    byId.New.verdicts.map((v: any) => [v.name, v.action]),
    [['note-all', 'Warn']],
  );

  const dir = tempDir();
  const file = join(dir, 'next.yaml');
  writeFileSync(file, next);
  const printed = await runCli(['stack', 'plan', 'honest', file, '--parameters', 'Secret=hunter2-secret'], {
    env: { PATH: process.env.PATH, TYPEPLANE_ENDPOINT: svc.url, TYPEPLANE_TOKEN: svc.token },
  });
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(printed.stdout, /New: Warn by policy note-all: noted/);
  assert.match(printed.stdout, /A: .*\/Color known only after apply/);
  assert.match(printed.stdout, /B: .*\/Color holding a secret the plan masks/);
  assert.doesNotMatch(printed.stdout, /hunter2/);
});

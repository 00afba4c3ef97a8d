/**
 * `typeplane policy …` as a child process: `policy test` evaluates a policy file offline (exit 0
 * allowed, 1 denied, 2 a policy that does not compile, its problem at its line in the file), and
 * `policy create|list|show|delete` go through a real server on loopback.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startTestService, tempDir } from '../helpers/service.js';

const dir = tempDir();
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const env = { PATH: process.env.PATH };

const NO_RED = file(
  'no-red.yaml',
  `name: no-red
match:
  types: ['Test::Shop::*']
  operations: [CREATE, UPDATE]
params:
  banned: [red]
validations:
  - expression: "!has(object.Color) || !(object.Color in params.banned)"
    messageExpression: "'colour ' + object.Color + ' is banned'"
    reason: Forbidden
  - expression: "!has(oldObject.Size) || oldObject.Size != 'L' || object.Size == 'L'"
    message: a large widget stays large
action: Deny
`,
);

test('policy test tells allowed (0) from denied (1), with params, old objects and the type binding', async () => {
  const red = file('red.json', '{"Name":"a","Color":"red"}');
  const blue = file('blue.json', '{"Name":"a","Color":"blue","Size":"S"}');
  const large = file('large.json', '{"Name":"a","Size":"L"}');
  const denied = await runCli(['policy', 'test', NO_RED, red, '--type', 'Test::Shop::Widget'], { env });
  assert.equal(denied.code, 1, denied.stderr);
  assert.match(denied.stdout, /DENY no-red \(Forbidden\): colour red is banned\ndenied/);
  const allowed = await runCli(['policy', 'test', NO_RED, blue, '--type', 'Test::Shop::Widget'], { env });
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.equal(allowed.stdout, 'allowed\n');
  const otherType = await runCli(['policy', 'test', NO_RED, red, '--type', 'Other::Thing'], { env });
  assert.equal(otherType.code, 0, 'a type the policy does not match is not reviewed');
  const shrunk = await runCli(['policy', 'test', NO_RED, blue, '--old', large, '-o', 'json'], { env });
  assert.equal(shrunk.code, 1, shrunk.stderr);
  assert.deepEqual(JSON.parse(shrunk.stdout).verdicts, [
    { source: 'policy', name: 'no-red', action: 'Deny', message: 'a large widget stays large' },
  ]);
  const params = file('params.json', '{"banned":["blue"]}');
  const withParams = await runCli(['policy', 'test', NO_RED, blue, '--params', params], { env });
  assert.equal(withParams.code, 1, withParams.stdout);
});

test('policy test exits 2 with the problem at its line when the policy does not compile', async () => {
  const broken = file(
    'broken.yaml',
    `name: broken
match: { types: ['*'], operations: [CREATE] }
validations:
  - expression: "object.Color =="
action: Deny
`,
  );
  const run = await runCli(['policy', 'test', broken, file('x.json', '{}')], { env });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /broken\.yaml:4:\d+ \/validations\/0\/expression .*syntax error/);
  const usage = await runCli(['policy', 'test', NO_RED, file('y.json', '{}'), '--operation', 'PATCH'], {
    env,
  });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--operation takes CREATE, UPDATE or DELETE/);
});

test('policy create, list, show and delete go through the server', async (t) => {
  const svc = await startTestService();
  t.after(() => svc.close());
  const as = { env: { ...env, TYPEPLANE_ENDPOINT: svc.url, TYPEPLANE_TOKEN: svc.token } };
  const created = await runCli(['policy', 'create', NO_RED], as);
  assert.equal(created.code, 0, created.stderr);
  assert.equal((await runCli(['policy', 'create', NO_RED], as)).code, 1, 'a name taken');
  assert.equal((await runCli(['policy', 'create', NO_RED, '--replace'], as)).code, 0);
  const listed = await runCli(['policy', 'list'], as);
  assert.match(listed.stdout, /no-red\s+in force\s+Deny\s+Test::Shop::\*\s+CREATE,UPDATE/);
  const shown = await runCli(['policy', 'show', 'no-red', '-o', 'json'], as);
  assert.equal(JSON.parse(shown.stdout).policy.params.banned[0], 'red');
  // What no change can make cheaper: nested comprehensions over 200 of params' items.
  const costly = file(
    'costly.yaml',
    `name: costly
match: { types: ['*'], operations: [CREATE] }
validations:
  - expression: "params.ids.all(x, params.ids.all(y, params.ids.all(z, x + y + z != '')))"
action: Deny
params:
  ids: [${Array.from({ length: 200 }, (_, i) => `i${i}`).join(', ')}]
`,
  );
  const refused = await runCli(['policy', 'create', costly], as);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /costly\.yaml:4:\d+ \/validations\/0\/expression .*could never run/);
  assert.equal((await runCli(['policy', 'delete', 'no-red'], as)).code, 0);
  assert.equal((await runCli(['policy', 'show', 'no-red'], as)).code, 1);
});

/**
 * `typeplane type register <folder>` finds type documents as `typeplane validate <folder>` does: a
 * folder's stack template, generated Bicep types and settings are left out with a note, and only
 * the type documents are registered. The CLI runs as a child process against a real server.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { exits, runCli } from '../helpers/cli.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

test('type register <folder> registers only the type documents and notes what else the folder holds', async () => {
  const dir = tempDir('typeplane-register-folder-');
  copyFileSync(join(root, 'examples/queues.yaml'), join(dir, 'queues.yaml'));
  copyFileSync(join(root, 'examples/shop/widget-v1.json'), join(dir, 'widget.json'));
  copyFileSync(join(root, 'examples/stacks/app.template'), join(dir, 'app.yaml'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ Greeting: 'Hello' }));
  mkdirSync(join(dir, 'bicep'));
  writeFileSync(join(dir, 'bicep/index.json'), JSON.stringify({ resources: {}, settings: { name: 'x' } }));
  writeFileSync(join(dir, 'bicep/types.json'), JSON.stringify([{ $type: 'StringType' }]));

  const run = await runCli(['type', 'register', dir, '--endpoint', svc.url], {
    env: { PATH: process.env.PATH, TYPEPLANE_TOKEN: svc.token, NO_COLOR: '1' },
  });
  exits(run, 0);
  assert.match(run.stdout, /registered Typeplane\.Messaging\/queues/);
  assert.match(run.stdout, /registered Test::Shop::Widget/);
  const skipped = [...run.stderr.matchAll(/^note: skipped (.+?): /gm)].map((m) =>
    m[1]!.replace(dir + '/', ''),
  );
  assert.deepEqual(skipped, ['app.yaml', 'bicep/index.json', 'bicep/types.json', 'config.json']);
  assert.match(run.stderr, /app\.yaml: this is a stack template: use `typeplane stack validate`/);

  const { body } = await svc.call('GET', '/v1/types');
  const names = (body.types as { typeName: string }[]).map((t) => t.typeName).sort();
  assert.deepEqual(names, ['Test::Shop::Widget', 'Typeplane.Messaging/queues']);
});

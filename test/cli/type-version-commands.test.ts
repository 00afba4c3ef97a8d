/**
 * The CLI's type version and configuration commands against a real server: register (new version,
 * unchanged, refused breaking change, --allow-breaking), versions, set-default, delete --version,
 * configure and configuration, and `diff --registered` comparing the server's version with a file.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';
import { runCli, type CliRun } from '../helpers/cli.js';

const TYPE = 'Test::Cli::Gizmo';

let svc: TestService;
const dir = tempDir('typeplane-cli-versions-');
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

function typeplane(args: string[]): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TYPEPLANE_TOKEN: svc.token };
  delete env.TYPEPLANE_ENDPOINT;
  return runCli([...args, '--endpoint', svc.url], { env, cwd: dir });
}

function file(name: string, sizes: string[]): string {
  writeFileSync(
    join(dir, name),
    JSON.stringify(
      {
        typeName: TYPE,
        description: 'A gizmo.',
        properties: { Name: { type: 'string' }, Size: { type: 'string', enum: sizes } },
        additionalProperties: false,
        primaryIdentifier: ['/properties/Name'],
        createOnlyProperties: ['/properties/Name'],
        typeConfiguration: { properties: { Token: { type: 'string' } }, additionalProperties: false },
        required: ['Name'],
      },
      null,
      2,
    ),
  );
  return name;
}

test('versions from the command line: register, versions, set-default (--allow-breaking), delete --version, diff --registered', async () => {
  const v1 = await typeplane(['type', 'register', file('v1.json', ['S', 'M'])]);
  assert.equal(v1.stdout, `registered ${TYPE} (version 1)\n`, v1.stderr);
  const same = await typeplane(['type', 'register', 'v1.json']);
  assert.equal(same.stdout, `${TYPE} unchanged (version 1)\n`);
  const v2 = await typeplane(['type', 'register', file('v2.json', ['S', 'M', 'L'])]);
  assert.equal(v2.stdout, `registered ${TYPE} version 2 (0 breaking, 0 dangerous, 1 safe changes)\n`);

  const created = await svc.call('POST', `/v1/resources/${encodeURIComponent(TYPE)}?wait=10`, {
    desiredState: { Name: 'g1', Size: 'L' },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');

  // The file against the server's default version: the command tells before registering.
  const diff = await typeplane(['diff', '--registered', TYPE, file('v3.json', ['S', 'M'])]);
  assert.equal(diff.code, 1, diff.stdout + diff.stderr);
  assert.match(
    diff.stdout,
    /^v3\.json:\d+:\d+ +breaking +TP6003 +Test::Cli::Gizmo \/properties\/Size: value "L" no longer allowed$/m,
  );
  const older = await typeplane(['diff', '--registered', TYPE, '--version', '1', 'v3.json', '-o', 'json']);
  assert.equal(older.code, 0, older.stdout + older.stderr);
  assert.deepEqual(JSON.parse(older.stdout).counts, { breaking: 0, dangerous: 0, safe: 0 });

  const refused = await typeplane(['type', 'register', 'v3.json']);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /^error: ResourceConflict: breaking change refused: Test::Cli::Gizmo: 1 breaking change/m,
  );
  assert.match(
    refused.stderr,
    /v3\.json:\d+:\d+ breaking TP6003/,
    'the changes are listed, located in the file',
  );
  const allowed = await typeplane(['type', 'register', 'v3.json', '--allow-breaking']);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(
    allowed.stdout,
    /version 3 \(1 breaking, 0 dangerous, 0 safe changes\); 1 of 1 existing resources violate it: g1/,
  );

  const versions = await typeplane(['type', 'versions', TYPE]);
  assert.match(versions.stdout, /^VERSION\s+DEFAULT\s+RESOURCES\s+REGISTERED$/m);
  assert.match(versions.stdout, /^2\s+1\s+\S+$/m, 'g1 was written with version 2');
  assert.match(versions.stdout, /^3\s+\*\s+0\s+\S+$/m);

  const moved = await typeplane(['type', 'set-default', TYPE, '2']);
  assert.equal(moved.stdout, `${TYPE}: version 2 is the default\n`);
  // Version 3 takes L away from what version 2 accepts, and g1 has it: refused unless allowed.
  const narrowed = await typeplane(['type', 'set-default', TYPE, '3']);
  assert.equal(narrowed.code, 1);
  assert.match(
    narrowed.stderr,
    /^error: ResourceConflict: breaking change refused: Test::Cli::Gizmo: 1 breaking change .* violating that version \(g1\)/m,
  );
  // Located in the registered document of the version asked for, named so.
  assert.match(
    narrowed.stderr,
    /^ {2}- Test::Cli::Gizmo version 3:\d+:\d+ breaking TP6003 /m,
    narrowed.stderr,
  );
  const forced = await typeplane(['type', 'set-default', TYPE, '3', '--allow-breaking']);
  assert.equal(forced.stdout, `${TYPE}: version 3 is the default\n`, forced.stderr);
  const inUse = await typeplane(['type', 'delete', TYPE, '--version', '2']);
  assert.equal(inUse.code, 1);
  assert.match(inUse.stderr, /Version 2 of Test::Cli::Gizmo is in use: 1 resource was last written with it/);
  const gone = await typeplane(['type', 'deregister', TYPE, '--version', '1']);
  assert.equal(gone.stdout, `deregistered version 1 of ${TYPE}\n`, gone.stderr);
});

test('configure and configuration', async () => {
  await typeplane(['type', 'register', file('c.json', ['S'])]);
  writeFileSync(join(dir, 'config.yaml'), 'Token: tok-12345\n');
  const set = await typeplane(['type', 'configure', TYPE, '--file', 'config.yaml']);
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /^configured Test::Cli::Gizmo \(/);
  const shown = await typeplane(['type', 'configuration', TYPE, '-o', 'json']);
  assert.deepEqual(JSON.parse(shown.stdout).configuration, { Token: 'tok-12345' });
  writeFileSync(join(dir, 'bad.json'), '{"Token": 5}');
  const bad = await typeplane(['type', 'configure', TYPE, '--file', 'bad.json']);
  assert.equal(bad.code, 1);
  // The message names the setting and the problem (details it already says are not repeated).
  assert.match(bad.stderr, /typeConfiguration of Test::Cli::Gizmo: \/Token must be string/);
});

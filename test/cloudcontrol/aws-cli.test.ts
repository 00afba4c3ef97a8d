/**
 * The AWS CLI (`aws cloudcontrol … --endpoint-url`), a second real client (Python, botocore's
 * signer and parser), against a real `typeplane serve` process: a resource's whole life, an error
 * as its exception name, a wrong secret refused.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { issueKeys, type AccessKeysOut } from '../helpers/cloudcontrol.js';
import { awsCli, awsCliSkip } from '../helpers/requirements.js';
import { WIDGET, WIDGET_TYPE, api, spawnServer, tempDir } from '../helpers/service.js';

const skip = awsCliSkip();
const AWS_CLI = awsCli();
let child: ChildProcess | undefined;
let url = '';
let keys: AccessKeysOut;

before(async () => {
  if (skip) return;
  const server = await spawnServer(tempDir());
  child = server.child;
  url = server.url;
  const admin = api(url, server.token);
  assert.equal((await admin.call('POST', '/v1/types', WIDGET)).status, 201);
  keys = await issueKeys(admin, 'writer');
});
after(() => child?.kill('SIGTERM'));

/** `aws cloudcontrol <args>` against the server, with only the given credentials (no profile, no metadata service). */
function aws(
  args: string[],
  secret = keys.secretAccessKey,
): Promise<{ code: number | null; out: any; stderr: string }> {
  const home = tempDir('typeplane-aws-home-');
  const run = spawn(AWS_CLI, ['cloudcontrol', ...args, '--endpoint-url', url, '--output', 'json'], {
    env: {
      PATH: process.env.PATH,
      HOME: home,
      AWS_CONFIG_FILE: `${home}/none`,
      AWS_SHARED_CREDENTIALS_FILE: `${home}/none`,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_REGION: 'eu-west-1',
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: secret,
      AWS_MAX_ATTEMPTS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  run.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  run.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    run.once('error', reject);
    run.once('close', (code) =>
      resolve({ code, out: stdout.trim() === '' ? undefined : JSON.parse(stdout), stderr }),
    );
  });
}

test('the AWS CLI creates, waits for, reads, updates, lists and deletes a resource', { skip }, async () => {
  const created = await aws([
    'create-resource',
    '--type-name',
    WIDGET_TYPE,
    '--desired-state',
    JSON.stringify({ Name: 'from-cli', Color: 'red' }),
  ]);
  assert.equal(created.code, 0, created.stderr);
  const token = created.out.ProgressEvent.RequestToken as string;
  assert.equal(created.out.ProgressEvent.Operation, 'CREATE');
  const waited = await aws(['wait', 'resource-request-success', '--request-token', token]);
  assert.equal(waited.code, 0, waited.stderr);

  const got = await aws(['get-resource', '--type-name', WIDGET_TYPE, '--identifier', 'from-cli']);
  assert.equal(got.code, 0, got.stderr);
  assert.deepEqual(JSON.parse(got.out.ResourceDescription.Properties), {
    Name: 'from-cli',
    Color: 'red',
    Size: 'S',
  });

  const updated = await aws([
    'update-resource',
    '--type-name',
    WIDGET_TYPE,
    '--identifier',
    'from-cli',
    '--patch-document',
    JSON.stringify([{ op: 'replace', path: '/Color', value: 'green' }]),
  ]);
  assert.equal(updated.code, 0, updated.stderr);
  await aws(['wait', 'resource-request-success', '--request-token', updated.out.ProgressEvent.RequestToken]);
  const status = await aws([
    'get-resource-request-status',
    '--request-token',
    updated.out.ProgressEvent.RequestToken,
  ]);
  assert.equal(status.out.ProgressEvent.OperationStatus, 'SUCCESS');
  assert.equal(JSON.parse(status.out.ProgressEvent.ResourceModel).Color, 'green');

  const listed = await aws(['list-resources', '--type-name', WIDGET_TYPE]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    listed.out.ResourceDescriptions.map((d: { Identifier: string }) => d.Identifier),
    ['from-cli'],
  );

  const deleted = await aws(['delete-resource', '--type-name', WIDGET_TYPE, '--identifier', 'from-cli']);
  assert.equal(deleted.code, 0, deleted.stderr);
  await aws(['wait', 'resource-request-success', '--request-token', deleted.out.ProgressEvent.RequestToken]);
  const gone = await aws(['get-resource', '--type-name', WIDGET_TYPE, '--identifier', 'from-cli']);
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, /\(ResourceNotFoundException\) when calling the GetResource operation/);
});

test('the AWS CLI signing with a wrong secret is refused', { skip }, async () => {
  const refused = await aws(['list-resources', '--type-name', WIDGET_TYPE], 'x'.repeat(40));
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /\(InvalidSignatureException\) when calling the ListResources operation/);
});

/**
 * AWS::Region, AWS::AccountId, AWS::Partition and AWS::URLSuffix come from the server's settings
 * (`typeplane serve --region --account-id --partition --url-suffix`), with documented defaults; a
 * malformed setting is a usage error naming the flag.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { api, spawnServer, tempDir, WIDGET } from '../helpers/service.js';
import { stopServer } from '../faults/helpers.js';
import { CLI } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const TEMPLATE = `
Resources:
  W: { Type: Test::Shop::Widget, Properties: { Name: w } }
Outputs:
  Where: { Value: !Sub "\${AWS::Region}|\${AWS::AccountId}|\${AWS::Partition}|\${AWS::URLSuffix}" }
  Zone: { Value: !Select [1, !GetAZs ""] }
  Arn: { Value: !Sub "arn:\${AWS::Partition}:shop:\${AWS::Region}:\${AWS::AccountId}:widget/\${W}" }
`;

test('pseudo parameters come from the server settings', async (t) => {
  const server = await spawnServer(tempDir(), [
    '--region',
    'eu-central-1',
    '--account-id',
    '111122223333',
    '--partition',
    'aws-cn',
    '--url-suffix',
    'amazonaws.com.cn',
  ]);
  t.after(() => stopServer(server));
  const s = api(server.url, server.token);
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const put = await s.call('PUT', '/v1/stacks/where?wait=20', { template: TEMPLATE });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
  const outputs = Object.fromEntries(
    put.body.stack.outputs.map((o: { name: string; value: unknown }) => [o.name, o.value]),
  );
  assert.deepEqual(outputs, {
    Where: 'eu-central-1|111122223333|aws-cn|amazonaws.com.cn',
    Zone: 'eu-central-1b',
    Arn: 'arn:aws-cn:shop:eu-central-1:111122223333:widget/w',
  });
});

test('a malformed --account-id or --region is a usage error naming the flag', () => {
  for (const [flag, value] of [
    ['--account-id', '1234'],
    ['--region', 'EU West'],
  ] as const) {
    const run = spawnSync(process.execPath, [...CLI, 'serve', '--port', '0', flag, value], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, TYPEPLANE_ADMIN_TOKEN: '' },
      timeout: 30_000,
    });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`^error: ${flag} must be `, 'm'));
  }
});

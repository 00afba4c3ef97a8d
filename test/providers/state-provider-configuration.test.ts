/**
 * The state provider's settings in the server's configuration file (`stateProvider`): read as given,
 * every wrong value refused at once, each located (`stateProvider.synthesize[1]`) with what is
 * expected; and `typeplane serve --config` emulating the account they name, its region from
 * `--region` when the file names none.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, readConfig } from '../../src/providers/index.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';
import { api, spawnServer, tempDir } from '../helpers/service.js';

function configFile(text: string): string {
  const file = join(tempDir('typeplane-state-config-'), 'typeplane.config.yaml');
  writeFileSync(file, text);
  return file;
}

test('stateProvider settings are read as given', async () => {
  const file = configFile(
    "stateProvider:\n  synthesize: ['AWS::*', 'Test::*::Widget']\n  region: eu-west-1\n  accountId: '111122223333'\n  partition: aws-cn\n",
  );
  const { config } = await readConfig(file);
  assert.deepEqual(config.stateProvider, {
    synthesize: ['AWS::*', 'Test::*::Widget'],
    region: 'eu-west-1',
    accountId: '111122223333',
    partition: 'aws-cn',
  });
});

test('every wrong stateProvider value is refused at once, located, saying what is expected', async () => {
  const file = configFile(
    "stateProvider:\n  synthesize: ['AWS::*', 'not a glob!', 5]\n  region: EU West\n  accountId: 123456789012\n  colour: blue\n",
  );
  const error = await readConfig(file).then(
    () => assert.fail('the configuration was accepted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ConfigError, String(error));
  assert.deepEqual(error.message.split('\n'), [
    `${file}: stateProvider.colour is not a setting of the state provider (known: synthesize, region, accountId, partition)`,
    `${file}: stateProvider.synthesize[1] "not a glob!" is not a type glob: use the characters of type names and '*' (like 'AWS::EC2::*')`,
    `${file}: stateProvider.synthesize[2] 5 is not a type glob: use the characters of type names and '*' (like 'AWS::EC2::*')`,
    `${file}: stateProvider.region must be letters, digits and hyphens (us-east-1), not "EU West"`,
    `${file}: stateProvider.accountId must be twelve digits, quoted in YAML ('123456789012'), not 123456789012`,
  ]);
  for (const [text, message] of [
    ['stateProvider: [AWS::*]\n', 'stateProvider must be an object (e.g. { synthesize: [AWS::*] })'],
    [
      'stateProvider:\n  synthesize: []\n',
      "stateProvider.synthesize must be a list of type-name globs, like ['AWS::*']",
    ],
  ] as const) {
    const other = configFile(text);
    await assert.rejects(readConfig(other), { name: 'ConfigError', message: `${other}: ${message}` });
  }
});

test(
  'typeplane serve --config emulates the configured account, in the region --region names',
  { skip: corpusSkip() },
  async () => {
    const file = configFile("stateProvider:\n  synthesize: ['AWS::SQS::*']\n  accountId: '444455556666'\n");
    const server = await spawnServer(tempDir(), ['--config', file, '--region', 'ap-southeast-2']);
    try {
      const client = api(server.url, server.token);
      const doc = readFileSync(join(AWS_CORPUS, 'AWS_SQS_Queue.json'), 'utf8');
      assert.equal((await client.call('POST', '/v1/types', doc)).status, 201);
      const made = await client.call(
        'POST',
        `/v1/resources/${encodeURIComponent('AWS::SQS::Queue')}?wait=10`,
        {
          desiredState: { QueueName: 'jobs' },
        },
      );
      const event = made.body.progressEvent;
      assert.equal(event.operationStatus, 'SUCCESS', JSON.stringify(made.body));
      assert.equal(event.identifier, 'https://sqs.ap-southeast-2.amazonaws.com/444455556666/jobs');
      assert.equal(event.resourceModel.Arn, 'arn:aws:sqs:ap-southeast-2:444455556666:jobs');
    } finally {
      server.child.kill();
    }
  },
);

/**
 * The parameter store with AWS's own schemas (the corpus) on the synthesizing state provider, as a
 * published template uses it: an AMI parameter (AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>)
 * read from an AWS::SSM::Parameter, and an RDS master password read with
 * `!Sub '{{resolve:secretsmanager:${Secret}:SecretString:password}}'` from a secret the stack
 * generates; the password is in no answer of the stack.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestService } from '../helpers/service.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';

const TYPES = [
  'AWS::SSM::Parameter',
  'AWS::SecretsManager::Secret',
  'AWS::RDS::DBInstance',
  'AWS::EC2::Instance',
];
const AMI = '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64';

const TEMPLATE = `
Parameters:
  LatestAmiId:
    Type: AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>
    Default: ${AMI}
Resources:
  DBCredential:
    Type: AWS::SecretsManager::Secret
    Properties:
      GenerateSecretString:
        SecretStringTemplate: '{"username": "admin"}'
        GenerateStringKey: password
        PasswordLength: 16
        ExcludeCharacters: '"@/\\\\'
  Database:
    Type: AWS::RDS::DBInstance
    Properties:
      Engine: mysql
      DBInstanceClass: db.t3.micro
      AllocatedStorage: '20'
      MasterUsername: admin
      MasterUserPassword: !Sub '{{resolve:secretsmanager:\${DBCredential}:SecretString:password}}'
  Server:
    Type: AWS::EC2::Instance
    Properties:
      ImageId: !Ref LatestAmiId
      InstanceType: t3.micro
Outputs:
  SecretArn:
    Value: !Ref DBCredential
`;

test(
  'an AMI parameter and a generated RDS password resolve as a published template has them',
  { skip: corpusSkip() },
  async (t) => {
    const s = await startTestService({ stateProvider: { synthesize: ['AWS::*'] } });
    t.after(() => s.close());
    for (const typeName of TYPES) {
      const doc = readFileSync(join(AWS_CORPUS, `${typeName.replaceAll('::', '_')}.json`), 'utf8');
      assert.equal((await s.call('POST', '/v1/types', doc)).status, 201, typeName);
    }
    const ami = await s.call('POST', '/v1/resources/AWS::SSM::Parameter?wait=10', {
      desiredState: { Name: AMI, Type: 'String', Value: 'ami-0a1b2c3d4e5f60789', DataType: 'aws:ec2:image' },
    });
    assert.equal(ami.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(ami.body));

    // A reference that resolves to nothing (a secret without a value) fails its step: complete means resolved.
    const put = await s.call('PUT', '/v1/stacks/published?wait=30', { template: TEMPLATE, parameters: {} });
    assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
    const ids = Object.fromEntries(
      put.body.stack.resources.map((r: { logicalId: string; identifier: string }) => [
        r.logicalId,
        r.identifier,
      ]),
    );
    const server = await s.call('GET', `/v1/resources/AWS::EC2::Instance/${ids.Server}`);
    assert.equal(server.body.properties.ImageId, 'ami-0a1b2c3d4e5f60789');
    const database = await s.call('GET', `/v1/resources/AWS::RDS::DBInstance/${ids.Database}`);
    assert.equal(database.status, 200, JSON.stringify(database.body));
    assert.equal(database.body.properties.MasterUserPassword, undefined, 'write-only, never read back');

    const answers = JSON.stringify([
      put.body,
      database.body,
      (await s.call('GET', '/v1/stacks/published/events?maxResults=100')).body,
      (await s.call('POST', '/v1/stacks/published/plans', { template: TEMPLATE, parameters: {} })).body,
    ]);
    assert.doesNotMatch(answers, /"password"\s*:/);
    assert.match(answers, /"resolvedParameters":\[\{"parameter":"LatestAmiId","name":"\/aws\/service\//);
    const deleted = await s.call('DELETE', '/v1/stacks/published?wait=30');
    assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE', JSON.stringify(deleted.body));
  },
);

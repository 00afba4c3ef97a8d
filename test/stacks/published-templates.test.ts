/**
 * Templates no one here wrote: samples published in aws-cloudformation/aws-cloudformation-templates
 * (test/fixtures/cloudformation-templates, unchanged, with attribution), deployed against types
 * registered from the AWS resource schemas corpus and served by the state provider. They resolve as
 * published (AWS::Region, Mappings, !Select of !FindInMap, !GetAtt of generated identifiers); a
 * !GetAtt of a read-only value the state provider does not produce fails the deployment with an
 * error naming the attribute, and the rollback leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestService, type TestService } from '../helpers/service.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/cloudformation-templates/', import.meta.url));
const TYPES = [
  'AWS::EC2::VPC',
  'AWS::EC2::InternetGateway',
  'AWS::EC2::VPCGatewayAttachment',
  'AWS::EC2::Subnet',
  'AWS::EC2::EIP',
  'AWS::EC2::NatGateway',
  'AWS::EC2::RouteTable',
  'AWS::EC2::Route',
  'AWS::EC2::SubnetRouteTableAssociation',
  'AWS::EC2::SecurityGroup',
  'AWS::EFS::FileSystem',
  'AWS::EFS::MountTarget',
  'AWS::EFS::AccessPoint',
  'AWS::IoTAnalytics::Channel',
  'AWS::IoTAnalytics::Datastore',
  'AWS::IoTAnalytics::Pipeline',
  'AWS::IoTAnalytics::Dataset',
  'AWS::S3::Bucket',
  'AWS::S3::BucketPolicy',
  'AWS::SQS::Queue',
];
const skip = corpusSkip();

let s: TestService;
before(async () => {
  if (skip) return;
  s = await startTestService();
  for (const typeName of TYPES) {
    const doc = readFileSync(join(AWS_CORPUS, `${typeName.replaceAll('::', '_')}.json`), 'utf8');
    const r = await s.call('POST', '/v1/types', doc);
    assert.equal(r.status, 201, `${typeName}: ${JSON.stringify(r.body)}`);
  }
});
after(() => s?.close());

async function deploy(stack: string, file: string, parameters: Record<string, string> = {}) {
  const template = readFileSync(join(FIXTURES, file), 'utf8');
  const put = await s.call('PUT', `/v1/stacks/${stack}?wait=60`, { template, parameters });
  assert.equal(put.status, 202, JSON.stringify(put.body));
  return put.body.stack;
}

const byLogicalId = (stack: { resources: { logicalId: string; identifier: string }[] }) =>
  Object.fromEntries(stack.resources.map((r) => [r.logicalId, r.identifier]));

test(
  'VPC/FindInMapAZs.yaml: 22 resources resolve as published (FindInMap by region, GetAtt of generated ids)',
  { skip },
  async () => {
    const stack = await deploy('vpc', 'FindInMapAZs.yaml');
    assert.equal(stack.status, 'CREATE_COMPLETE', JSON.stringify(stack));
    const ids = byLogicalId(stack);
    assert.equal(stack.resources.length, 22);
    const subnet = await s.call('GET', `/v1/resources/AWS::EC2::Subnet/${ids.PrivateSubnet2}`);
    assert.equal(subnet.body.properties.AvailabilityZone, 'us-east-1b');
    assert.equal(subnet.body.properties.VpcId, ids.VPC);
    assert.equal(subnet.body.properties.CidrBlock, '10.192.21.0/24');
    // NatGateway1's AllocationId is the EIP's (a read-only identifier the state provider generated).
    const eip = await s.call('GET', `/v1/resources/AWS::EC2::EIP/${encodeURIComponent(ids.NatGateway1EIP!)}`);
    assert.equal(eip.status, 200, JSON.stringify(eip.body));
    const nat = await s.call('GET', `/v1/resources/AWS::EC2::NatGateway/${ids.NatGateway1}`);
    assert.equal(nat.body.properties.AllocationId, eip.body.properties.AllocationId);
    assert.equal((await s.call('GET', '/v1/stacks/vpc/drift')).body.status, 'IN_SYNC');
    const deleted = await s.call('DELETE', '/v1/stacks/vpc?wait=60');
    assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE');
    assert.deepEqual((await s.call('GET', '/v1/resources/AWS::EC2::VPC')).body.resourceDescriptions, []);
  },
);

test(
  'EFS/EFSAccessPoint.yaml, IoT/iotanalytics.yaml and S3/s3-bucket-and-policy-for-caa-v1.yaml deploy',
  { skip },
  async () => {
    const efs = await deploy('efs', 'EFSAccessPoint.yaml', {
      Subnet1: 'subnet-0a1',
      Subnet2: 'subnet-0b2',
      Subnet3: 'subnet-0c3',
      SecurityGroup1: 'sg-01',
      SecurityGroup2: 'sg-02',
      SecurityGroup3: 'sg-03',
    });
    assert.equal(efs.status, 'CREATE_COMPLETE', JSON.stringify(efs));
    const ids = byLogicalId(efs);
    assert.deepEqual(efs.outputs, [
      { name: 'FileSystemId', value: ids.EFSFileSystem, description: 'ID of the created EFS File System' },
    ]);
    const mount = await s.call('GET', `/v1/resources/AWS::EFS::MountTarget/${ids.EFSMountTarget3}`);
    assert.deepEqual(
      [
        mount.body.properties.FileSystemId,
        mount.body.properties.SubnetId,
        mount.body.properties.SecurityGroups,
      ],
      [ids.EFSFileSystem, 'subnet-0c3', ['sg-03']],
    );

    const iot = await deploy('iot', 'iotanalytics.yaml');
    assert.equal(iot.status, 'CREATE_COMPLETE', JSON.stringify(iot));
    assert.equal(iot.resources.length, 4);

    const bucket = await deploy('bucket', 's3-bucket-and-policy-for-caa-v1.yaml', {
      BucketName: 'shared-bucket-for-tests',
      PublisherAccountID: '210987654321',
    });
    assert.equal(bucket.status, 'CREATE_COMPLETE', JSON.stringify(bucket));
    const policy = await s.call('GET', '/v1/resources/AWS::S3::BucketPolicy');
    assert.equal(policy.body.resourceDescriptions[0].properties.Bucket, 'shared-bucket-for-tests');
    assert.match(
      JSON.stringify(policy.body.resourceDescriptions[0].properties.PolicyDocument),
      /210987654321/,
    );
  },
);

test(
  'SQS/SQSStandardQueue.yaml: a GetAtt of a read-only value nothing produced fails naming the attribute, and rolls back',
  { skip },
  async () => {
    const stack = await deploy('queue', 'SQSStandardQueue.yaml');
    assert.equal(stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(stack));
    assert.match(stack.statusReason, /Fn::GetAtt SQSQueue\.Arn: SQSQueue \(\S+\) has no value for 'Arn'/);
    assert.deepEqual(stack.resources, []);
    assert.deepEqual((await s.call('GET', '/v1/resources/AWS::SQS::Queue')).body.resourceDescriptions, []);
  },
);

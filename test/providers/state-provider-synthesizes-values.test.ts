/**
 * The state provider standing in for AWS's services (`stateProvider.synthesize`), over real HTTP on
 * servers with types registered from the AWS resource schemas corpus: a create fills every read-only
 * property, and the names CloudFormation would give, with values the schema accepts that read like
 * AWS's (ids with their prefixes, ARNs, endpoints with the engine's port, DNS names); the same
 * resource gets the same values again, on another server too; an update keeps them; a value the
 * caller gave stays; a type the globs do not name, and every type on a server without the setting,
 * is served as before. The contract suite passes through the API with synthesis on.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { apiType, createApiProvider, runContractSuite } from '../../src/contract/index.js';
import { compileType } from '../../src/registry/index.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';
import { startTestService, type TestService } from '../helpers/service.js';

const skip = corpusSkip();
const TYPES = [
  'AWS::EC2::VPC',
  'AWS::EC2::SecurityGroup',
  'AWS::RDS::DBInstance',
  'AWS::S3::Bucket',
  'AWS::IAM::Role',
  'AWS::SQS::Queue',
];
const ROLE_POLICY = { Version: '2012-10-17', Statement: [] };

/** Read-only properties with patterns, an enum, bounds, formats, nesting; one pattern no string is written for. */
const GADGET = readFileSync(new URL('../contract/state-synthesized.json', import.meta.url), 'utf8');

let s: TestService; // synthesize on for AWS::EC2::*, RDS, S3, IAM and the test's type; defaults
let other: TestService; // synthesize on for AWS::IAM::* and AWS::SQS::*, another region and account
let off: TestService; // no stateProvider settings

async function register(server: TestService, typeNames: string[]) {
  for (const typeName of typeNames) {
    const doc = readFileSync(join(AWS_CORPUS, `${typeName.replaceAll('::', '_')}.json`), 'utf8');
    const r = await server.call('POST', '/v1/types', doc);
    assert.equal(r.status, 201, `${typeName}: ${JSON.stringify(r.body)}`);
  }
}

before(async () => {
  if (skip) return;
  [s, other, off] = await Promise.all([
    startTestService({
      stateProvider: {
        synthesize: ['AWS::EC2::*', 'AWS::RDS::*', 'AWS::S3::*', 'AWS::IAM::*', 'Test::Synth::*'],
      },
    }),
    startTestService({
      stateProvider: {
        synthesize: ['AWS::IAM::*', 'AWS::SQS::*'],
        region: 'eu-west-1',
        accountId: '111122223333',
      },
    }),
    startTestService(),
  ]);
  await register(s, TYPES);
  await register(other, ['AWS::IAM::Role', 'AWS::SQS::Queue']);
  await register(off, ['AWS::EC2::VPC', 'AWS::S3::Bucket']);
  const r = await s.call('POST', '/v1/types', GADGET);
  assert.equal(r.status, 201, JSON.stringify(r.body));
});
after(() => Promise.all([s?.close(), other?.close(), off?.close()]));

const path = (typeName: string, identifier?: string) =>
  `/v1/resources/${encodeURIComponent(typeName)}${identifier === undefined ? '' : `/${encodeURIComponent(identifier)}`}`;

/** Create and wait; the created model as a GET answers it. */
async function create(server: TestService, typeName: string, desired: Record<string, unknown>) {
  const r = await server.call('POST', `${path(typeName)}?wait=10`, { desiredState: desired });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const event = r.body.progressEvent;
  assert.equal(event.operationStatus, 'SUCCESS', JSON.stringify(event));
  const read = await server.call('GET', path(typeName, event.identifier));
  assert.equal(read.status, 200, JSON.stringify(read.body));
  return { identifier: event.identifier as string, model: read.body.properties as Record<string, any> };
}

/** No schema problem, every read-only property there (nested ones where their object is). */
async function assertValidAndComplete(server: TestService, typeName: string, model: Record<string, any>) {
  const type = (await server.registry.get(typeName)).type;
  assert.deepEqual(
    compileType(type).validateOutput(structuredClone(model)),
    [],
    `${typeName} model is valid`,
  );
  for (const pointer of type.readOnlyProperties) {
    const tokens = pointer.split('/').slice(2);
    if (tokens.includes('*')) continue;
    const parent = tokens.slice(0, -1).reduce<any>((at, t) => at?.[t], model);
    if (parent !== undefined)
      assert.notEqual(parent[tokens.at(-1)!], undefined, `${typeName} has ${pointer}`);
  }
}

test(
  'a VPC gets EC2-shaped ids: vpc-, sg- and acl- with 17 hex digits, a CIDR association, an IPv6 block',
  { skip },
  async () => {
    const { identifier, model } = await create(s, 'AWS::EC2::VPC', { CidrBlock: '10.0.0.0/16' });
    assert.match(identifier, /^vpc-[0-9a-f]{17}$/);
    assert.equal(model.VpcId, identifier);
    assert.match(model.DefaultSecurityGroup, /^sg-[0-9a-f]{17}$/);
    assert.match(model.DefaultNetworkAcl, /^acl-[0-9a-f]{17}$/);
    assert.match(model.CidrBlockAssociations[0], /^vpc-cidr-assoc-[0-9a-f]{17}$/);
    assert.match(model.Ipv6CidrBlocks[0], /^2001:db8:[0-9a-f]{1,4}:[0-9a-f]{1,2}00::\/56$/);
    await assertValidAndComplete(s, 'AWS::EC2::VPC', model);
  },
);

test(
  'a security group: its GroupId is its Id (sg-…), its GroupName generated when left out and kept when given',
  { skip },
  async () => {
    const made = await create(s, 'AWS::EC2::SecurityGroup', { GroupDescription: 'web' });
    assert.match(made.model.Id, /^sg-[0-9a-f]{17}$/);
    assert.equal(made.model.GroupId, made.model.Id);
    assert.match(made.model.GroupName, /^SecurityGroup-[A-Z0-9]{13}$/);
    await assertValidAndComplete(s, 'AWS::EC2::SecurityGroup', made.model);
    const named = await create(s, 'AWS::EC2::SecurityGroup', { GroupDescription: 'db', GroupName: 'db-sg' });
    assert.equal(named.model.GroupName, 'db-sg');
    assert.notEqual(named.model.Id, made.model.Id);
  },
);

test(
  "a DB instance's endpoint: its engine's port (5432, 3306), an RDS host name, the ARN of its generated identifier",
  { skip },
  async () => {
    const pg = await create(s, 'AWS::RDS::DBInstance', {
      Engine: 'postgres',
      DBInstanceClass: 'db.t3.micro',
    });
    assert.match(pg.identifier, /^dbinstance-[a-z0-9]{13}$/);
    assert.equal(pg.model.Endpoint.Port, '5432');
    assert.equal(pg.model.Endpoint.Address.startsWith(`${pg.identifier}.`), true, pg.model.Endpoint.Address);
    assert.match(pg.model.Endpoint.Address, /^[a-z0-9-]+\.[a-z0-9]{12}\.us-east-1\.rds\.amazonaws\.com$/);
    assert.match(pg.model.Endpoint.HostedZoneId, /^Z[A-Z0-9]{13}$/);
    assert.equal(pg.model.DBInstanceArn, `arn:aws:rds:us-east-1:123456789012:db:${pg.identifier}`);
    assert.equal(pg.model.DBInstanceStatus, 'available');
    await assertValidAndComplete(s, 'AWS::RDS::DBInstance', pg.model);
    const mysql = await create(s, 'AWS::RDS::DBInstance', {
      Engine: 'mysql',
      DBInstanceClass: 'db.t3.micro',
      DBInstanceIdentifier: 'orders',
    });
    assert.equal(mysql.identifier, 'orders');
    assert.equal(mysql.model.Endpoint.Port, '3306');
    assert.match(mysql.model.Endpoint.Address, /^orders\./);
  },
);

test(
  "a bucket: a lower-case name when none is given, S3's ARN and domain names built from it",
  { skip },
  async () => {
    const { identifier, model } = await create(s, 'AWS::S3::Bucket', {});
    assert.match(identifier, /^bucket-[a-z0-9]{13}$/);
    assert.equal(model.Arn, `arn:aws:s3:::${identifier}`);
    assert.equal(model.DomainName, `${identifier}.s3.amazonaws.com`);
    assert.equal(model.RegionalDomainName, `${identifier}.s3.us-east-1.amazonaws.com`);
    assert.equal(model.DualStackDomainName, `${identifier}.s3.dualstack.us-east-1.amazonaws.com`);
    assert.equal(model.WebsiteURL, `http://${identifier}.s3-website-us-east-1.amazonaws.com`);
    await assertValidAndComplete(s, 'AWS::S3::Bucket', model);
    const given = await create(s, 'AWS::S3::Bucket', { BucketName: 'my-logs' });
    assert.equal(given.identifier, 'my-logs');
    assert.equal(given.model.Arn, 'arn:aws:s3:::my-logs');
  },
);

test(
  "a role's ARN holds its path and name in the configured account; its RoleId is the same for the same role, on any server",
  { skip },
  async () => {
    const here = await create(s, 'AWS::IAM::Role', {
      RoleName: 'deployer',
      Path: '/ci/',
      AssumeRolePolicyDocument: ROLE_POLICY,
    });
    assert.equal(here.model.Arn, 'arn:aws:iam::123456789012:role/ci/deployer');
    assert.match(here.model.RoleId, /^AROA[A-Z0-9]{17}$/);
    await assertValidAndComplete(s, 'AWS::IAM::Role', here.model);
    // Another server, another account: the ARN says so; the id, made from the type and identifier, is the same.
    const there = await create(other, 'AWS::IAM::Role', {
      RoleName: 'deployer',
      Path: '/ci/',
      AssumeRolePolicyDocument: ROLE_POLICY,
    });
    assert.equal(there.model.Arn, 'arn:aws:iam::111122223333:role/ci/deployer');
    assert.equal(there.model.RoleId, here.model.RoleId);
    // Deleted and made again: the same values.
    const deleted = await s.call('DELETE', `${path('AWS::IAM::Role', 'deployer')}?wait=10`);
    assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(deleted.body));
    const again = await create(s, 'AWS::IAM::Role', {
      RoleName: 'deployer',
      Path: '/ci/',
      AssumeRolePolicyDocument: ROLE_POLICY,
    });
    assert.deepEqual(again.model, here.model);
    // A role without a name gets one, as CloudFormation names it.
    const unnamed = await create(s, 'AWS::IAM::Role', { AssumeRolePolicyDocument: ROLE_POLICY });
    assert.match(unnamed.identifier, /^Role-[A-Z0-9]{13}$/);
    assert.equal(unnamed.model.Arn, `arn:aws:iam::123456789012:role/${unnamed.identifier}`);
  },
);

test(
  'patterns, an enum, bounds, formats, nested objects and unique items: each value fits; a pattern with no writable string is left out',
  { skip },
  async () => {
    const { identifier, model } = await create(s, 'Test::Synth::Gadget', {
      Name: 'g1',
      Settings: { Size: 1 },
    });
    assert.match(identifier, /^gdt-[0-9a-f]{12}$/);
    assert.equal(model.Level, 'ACTIVE');
    assert.ok(model.Ratio > 0 && model.Ratio <= 1, String(model.Ratio));
    assert.match(model.CreatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.match(model.Homepage, /^https:\/\//);
    assert.match(model.Info.Code, /^[A-Z]{3}-\d{4}$/);
    assert.ok([10, 15, 20].includes(model.Info.Count), String(model.Info.Count));
    assert.equal(model.Codes.length, 2);
    assert.notEqual(model.Codes[0], model.Codes[1]);
    for (const code of model.Codes) assert.match(code, /^[a-z]{2}\d$/);
    assert.ok(model.Short.length >= 4 && model.Short.length <= 6, model.Short);
    assert.equal(model.Greek, undefined);
    assert.deepEqual(model.Settings, { Size: 1, Status: 'READY' });
    const type = (await s.registry.get('Test::Synth::Gadget')).type;
    assert.deepEqual(compileType(type).validateOutput(structuredClone(model)), []);
    // What is left out is said: stack validation warns of a GetAtt of it (TP4026), not of the others.
    assert.deepEqual(s.engine.readOnlyNeverSet(type), ['/properties/Greek']);
  },
);

test(
  'a re-read answers the same; an update (PATCH, PUT) keeps every synthesized value and changes what it set',
  { skip },
  async () => {
    const made = await create(s, 'AWS::EC2::SecurityGroup', { GroupDescription: 'app' });
    const reread = await s.call('GET', path('AWS::EC2::SecurityGroup', made.identifier));
    assert.deepEqual(reread.body.properties, made.model);
    const patched = await s.call('PATCH', `${path('AWS::EC2::SecurityGroup', made.identifier)}?wait=10`, {
      patchDocument: [{ op: 'add', path: '/Tags', value: [{ Key: 'team', Value: 'web' }] }],
    });
    assert.equal(patched.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(patched.body));
    const afterPatch = (await s.call('GET', path('AWS::EC2::SecurityGroup', made.identifier))).body
      .properties;
    assert.deepEqual(afterPatch, { ...made.model, Tags: [{ Key: 'team', Value: 'web' }] });

    const db = await create(s, 'AWS::RDS::DBInstance', {
      Engine: 'postgres',
      DBInstanceClass: 'db.t3.micro',
    });
    // A PUT's body holds no read-only value: what the provider set stays.
    const writable = { ...db.model };
    const type = (await s.registry.get('AWS::RDS::DBInstance')).type;
    for (const pointer of type.readOnlyProperties) delete writable[pointer.split('/')[2]!];
    const put = await s.call('PUT', `${path('AWS::RDS::DBInstance', db.identifier)}?wait=10`, {
      desiredState: { ...writable, DBInstanceClass: 'db.t3.small' },
    });
    assert.equal(put.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(put.body));
    const afterPut = (await s.call('GET', path('AWS::RDS::DBInstance', db.identifier))).body.properties;
    assert.deepEqual(afterPut, { ...db.model, DBInstanceClass: 'db.t3.small' });

    // A read-only member of a writable object stays where the PUT's body still has the object.
    const gadget = await create(s, 'Test::Synth::Gadget', { Name: 'g2', Settings: { Size: 1 } });
    const replaced = await s.call('PUT', `${path('Test::Synth::Gadget', gadget.identifier)}?wait=10`, {
      desiredState: { Name: 'g2', Settings: { Size: 2 } },
    });
    assert.equal(replaced.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(replaced.body));
    const afterReplace = (await s.call('GET', path('Test::Synth::Gadget', gadget.identifier))).body
      .properties;
    assert.deepEqual(afterReplace, { ...gadget.model, Settings: { Size: 2, Status: 'READY' } });
  },
);

test(
  'off by default: without the setting, and for a type its globs do not name, the state provider sets only generated identifiers',
  { skip },
  async () => {
    const vpc = await create(off, 'AWS::EC2::VPC', { CidrBlock: '10.0.0.0/16' });
    assert.match(vpc.identifier, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(vpc.model, { CidrBlock: '10.0.0.0/16', VpcId: vpc.identifier });
    const bucket = await off.call('POST', `${path('AWS::S3::Bucket')}?wait=10`, { desiredState: {} });
    assert.equal(bucket.status, 400, JSON.stringify(bucket.body));
    assert.match(bucket.body.message, /BucketName is part of the primary identifier: give it/);
    // AWS::SQS::Queue is registered on the synthesizing server, but no glob names it.
    const queue = await create(s, 'AWS::SQS::Queue', { QueueName: 'jobs' });
    assert.deepEqual(Object.keys(queue.model).sort(), ['QueueName', 'QueueUrl']);
  },
);

test(
  'the contract suite passes through the API for types with synthesized values, read-only properties returned included',
  { skip },
  async () => {
    const call = async (method: string, p: string, body?: unknown) => {
      const r = await s.call(method, p, body);
      if (r.status >= 400)
        throw Object.assign(new Error(r.body?.message ?? String(r.status)), { ...r.body, status: r.status });
      return r.body;
    };
    for (const typeName of ['AWS::EC2::SecurityGroup', 'Test::Synth::Gadget']) {
      const { type } = await apiType(call, typeName, s.url);
      const report = await runContractSuite({
        type,
        provider: createApiProvider({ endpoint: s.url, type, call }),
        seed: 7,
        runs: 1,
        throughApi: true,
        // The one property no value is written for (see above).
        allowAbsent: typeName === 'Test::Synth::Gadget' ? ['/properties/Greek'] : [],
      });
      const failed = report.results.filter((r) => r.status === 'fail' || r.status === 'error');
      assert.deepEqual(
        failed.map((r) => `${r.name}: ${r.reason ?? r.failures.map((f) => f.message).join(' | ')}`),
        [],
        typeName,
      );
      assert.equal(
        report.results.find((r) => r.name === 'read-only properties returned')?.status,
        'pass',
        typeName,
      );
    }
  },
);

test(
  "a published template deploys whole: the GetAtt of its queues' ARNs and names get the synthesized values",
  { skip },
  async () => {
    const template = readFileSync(
      new URL('../fixtures/cloudformation-templates/SQSStandardQueue.yaml', import.meta.url),
      'utf8',
    );
    const put = await other.call('PUT', '/v1/stacks/queues?wait=60', {
      template,
      parameters: { UsedeadletterQueue: 'true' },
    });
    assert.equal(put.status, 202, JSON.stringify(put.body));
    const stack = put.body.stack;
    assert.equal(stack.status, 'CREATE_COMPLETE', JSON.stringify(stack));
    const out = Object.fromEntries(
      stack.outputs.map((o: { name: string; value: string }) => [o.name, o.value]),
    );
    assert.match(out.QueueName, /^Queue-[A-Z0-9]{13}$/);
    assert.equal(out.QueueARN, `arn:aws:sqs:eu-west-1:111122223333:${out.QueueName}`);
    assert.equal(out.QueueURL, `https://sqs.eu-west-1.amazonaws.com/111122223333/${out.QueueName}`);
    assert.match(out.DeadLetterQueueARN, /^arn:aws:sqs:eu-west-1:111122223333:Queue-[A-Z0-9]{13}$/);
    const queue = await other.call('GET', path('AWS::SQS::Queue', out.QueueURL));
    assert.deepEqual(queue.body.properties.RedrivePolicy, {
      deadLetterTargetArn: out.DeadLetterQueueARN,
      maxReceiveCount: 5,
    });
  },
);

test(
  "a name no string is written for stays the caller's to give: a create without it is refused, naming it",
  { skip },
  async () => {
    const type = {
      typeName: 'Test::Synth::Letter',
      description: 'named in Greek only',
      additionalProperties: false,
      properties: { Name: { type: 'string', pattern: '^\\p{Greek}+$' } },
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
    };
    assert.equal((await s.call('POST', '/v1/types', type)).status, 201);
    const refused = await s.call('POST', path('Test::Synth::Letter'), { desiredState: {} });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.match(refused.body.message, /\/properties\/Name is part of the primary identifier: give it/);
    const named = await create(s, 'Test::Synth::Letter', { Name: 'αβγ' });
    assert.equal(named.identifier, 'αβγ');
  },
);

/**
 * What a service chooses when a template does not say, the synthesizing state provider chooses too: an
 * EC2 instance with no AvailabilityZone is placed in the region's first zone, and a template that
 * reads it back (`!GetAtt Instance.AvailabilityZone`, as AWS's own sample does) deploys and plans
 * again with no change; a zone the template gives is kept.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { startTestService } from '../helpers/service.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';

test(
  "an instance's zone, left to the service, is chosen and read back by GetAtt; one given is kept",
  { skip: corpusSkip() },
  async (t) => {
    const s = await startTestService({ stateProvider: { synthesize: ['AWS::*'] } });
    t.after(() => s.close());
    const schema = readFileSync(join(AWS_CORPUS, 'AWS_EC2_Instance.json'), 'utf8');
    assert.equal((await s.call('POST', '/v1/types', schema)).status, 201);
    const template = stringify({
      Resources: {
        Placed: {
          Type: 'AWS::EC2::Instance',
          Properties: { ImageId: 'ami-0abcdef1234567890', InstanceType: 't3.micro' },
        },
        Pinned: {
          Type: 'AWS::EC2::Instance',
          Properties: {
            ImageId: 'ami-0abcdef1234567890',
            InstanceType: 't3.micro',
            AvailabilityZone: 'us-east-1c',
          },
        },
      },
      Outputs: {
        PlacedZone: { Value: { 'Fn::GetAtt': ['Placed', 'AvailabilityZone'] } },
        PinnedZone: { Value: { 'Fn::GetAtt': ['Pinned', 'AvailabilityZone'] } },
      },
    });
    const put = await s.call('PUT', '/v1/stacks/servers?wait=60', { template });
    assert.equal(put.status, 202, JSON.stringify(put.body));
    assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body.stack));
    assert.deepEqual(
      Object.fromEntries(
        (put.body.stack.outputs as { name: string; value: string }[]).map((o) => [o.name, o.value]),
      ),
      { PlacedZone: 'us-east-1a', PinnedZone: 'us-east-1c' },
    );
    const again = await s.call('POST', '/v1/stacks/servers/plans', { template });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.deepEqual(
      again.body.changes.map((c: { action: string }) => c.action),
      ['NoChange', 'NoChange'],
    );
  },
);

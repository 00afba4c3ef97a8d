/**
 * Cloud Control clients for tests: the real AWS SDK, pointed at a Typeplane server, with access keys
 * issued through the native API (`POST /v1/tokens` with `awsKeys`).
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { CloudControlClient, type CloudControlClientConfig } from '@aws-sdk/client-cloudcontrol';
import type { Api } from './service.js';

export interface AccessKeysOut {
  token: string;
  id: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** A token with an access key pair, created by the admin `api`. */
export async function issueKeys(api: Api, role: string, types?: string[]): Promise<AccessKeysOut> {
  const res = await api.call('POST', '/v1/tokens', { role, awsKeys: true, ...(types ? { types } : {}) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as AccessKeysOut;
}

/** The SDK's client for the server at `url`, signing with `keys` (any region works). */
export function cloudControl(
  url: string,
  keys: { accessKeyId: string; secretAccessKey: string },
  config: Partial<CloudControlClientConfig> = {},
): CloudControlClient {
  return new CloudControlClient({
    endpoint: url,
    region: 'eu-central-1',
    credentials: { accessKeyId: keys.accessKeyId, secretAccessKey: keys.secretAccessKey },
    ...config,
  });
}

/** The waiter's delays for tests (the SDK's default is 5 s to 120 s). */
export const FAST_WAITER = { minDelay: 0.05, maxDelay: 0.2, maxWaitTime: 20 };

/**
 * The headers of a Cloud Control request signed with SigV4 at `time` over content-type, host,
 * x-amz-date and x-amz-target, by a signer of the tests' own (node's createHmac), so that the server
 * is checked against another implementation than its own.
 */
export function signedHeaders({
  keys,
  url,
  operation,
  body,
  time = new Date(),
  region = 'us-east-1',
}: {
  keys: { accessKeyId: string; secretAccessKey: string };
  url: string;
  operation: string;
  /** The body as sent (bytes that are not UTF-8 text are signed as they are). */
  body: string | Buffer;
  time?: Date;
  region?: string;
}): Record<string, string> {
  const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
  const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
  const amzDate = time.toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const host = new URL(url).host;
  const target = `CloudApiService.${operation}`;
  const signed = 'content-type;host;x-amz-date;x-amz-target';
  const canonical = `POST\n/\n\ncontent-type:application/x-amz-json-1.0\nhost:${host}\nx-amz-date:${amzDate}\nx-amz-target:${target}\n\n${signed}\n${sha256(body)}`;
  const scope = `${day}/${region}/cloudcontrolapi/aws4_request`;
  const key = [day, region, 'cloudcontrolapi', 'aws4_request'].reduce<Buffer | string>(
    hmac,
    `AWS4${keys.secretAccessKey}`,
  );
  const signature = hmac(key, `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256(canonical)}`).toString('hex');
  return {
    'content-type': 'application/x-amz-json-1.0',
    host,
    'x-amz-date': amzDate,
    'x-amz-target': target,
    authorization: `AWS4-HMAC-SHA256 Credential=${keys.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${signature}`,
  };
}

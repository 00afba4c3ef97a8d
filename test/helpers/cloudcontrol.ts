/**
 * Cloud Control clients for tests: the real AWS SDK, pointed at a Typeplane server, with access keys
 * issued through the native API (`POST /v1/tokens` with `awsKeys`).
 */
import assert from 'node:assert/strict';
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

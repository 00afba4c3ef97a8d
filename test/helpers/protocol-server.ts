/**
 * A provider module served over the provider protocol (docs/provider-protocol.md) on loopback: what
 * an out-of-process provider in any language looks like to Typeplane, built from a test fixture.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderDefinition } from '../../src/providers/sdk.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

export async function serveOverProtocol(
  provider: ProviderDefinition,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const m = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          action: 'CREATE' | 'READ' | 'UPDATE' | 'DELETE' | 'LIST';
          typeName: string;
          requestData: {
            resourceProperties: Record<string, unknown>;
            previousResourceProperties: null | object;
          };
          callbackContext: Record<string, unknown> | null;
          clientRequestToken: string;
          nextToken: string | null;
          maxResults: number | null;
        };
        const action = m.action.toLowerCase() as 'create' | 'read' | 'update' | 'delete' | 'list';
        const event = await provider[action]({
          typeName: m.typeName,
          desiredState: m.requestData.resourceProperties,
          ...(m.requestData.previousResourceProperties
            ? { previousState: m.requestData.previousResourceProperties as Record<string, unknown> }
            : {}),
          ...(m.callbackContext ? { callbackContext: m.callbackContext } : {}),
          clientRequestToken: m.clientRequestToken,
          ...(m.nextToken !== null ? { nextToken: m.nextToken } : {}),
          ...(m.maxResults !== null ? { maxResults: m.maxResults } : {}),
          logger: quiet,
          signal: AbortSignal.timeout(30_000),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(event));
      })().catch((e: unknown) => res.writeHead(500).end(String(e)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

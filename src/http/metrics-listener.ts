/**
 * @module The separate metrics listener (`serve --metrics-address`): a plain HTTP server that answers
 * `GET /metrics` without a token and nothing else, so that a Prometheus on the host (or, when the
 * operator binds it so, on a network they trust) scrapes without holding an API token. It shares the
 * API's registry: the same figures as the API's own `GET /metrics`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Telemetry } from '../telemetry/index.js';
import { METRICS_ROUTE } from './routes/metrics.js';

export interface MetricsListener {
  /** `http://host:port` it listens on. */
  url: string;
  close(): Promise<void>;
}

export async function listenForMetrics(
  telemetry: Telemetry,
  address: { host: string; port: number },
): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_ROUTE) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics is served here\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end();
      return;
    }
    telemetry.exposition().then(
      (text) =>
        response
          .writeHead(200, { 'content-type': telemetry.contentType, 'cache-control': 'no-store' })
          .end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
  // Scrapers keep their connection open between scrapes: a few seconds idle are enough.
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

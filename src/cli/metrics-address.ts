/**
 * @module `serve --metrics-address`: where the unauthenticated metrics listener binds. A bare port
 * binds loopback (127.0.0.1); any other host only when the operator names it.
 */

/** `9464`, `127.0.0.1:9464`, `0.0.0.0:9464`, `[::1]:9464`; a message saying what is wrong otherwise. */
export function parseMetricsAddress(text: string): { host: string; port: number } | string {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535)
    return `--metrics-address must be a port or host:port (9464, 127.0.0.1:9464, [::1]:9464), not '${text.slice(0, 80)}'`;
  const host = match[1] === undefined ? '127.0.0.1' : match[1].replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

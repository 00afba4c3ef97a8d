/**
 * @module Where a server may listen in plain HTTP: tokens travel in the clear, so only on loopback
 * unless TLS is configured or plain HTTP is allowed explicitly.
 */
import { isIP } from 'node:net';

/** `localhost`, 127.0.0.0/8, `::1` and IPv4-mapped loopback. Any other name or address is not. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h) || /^(0{1,4}:){7}0{0,3}1$/.test(h);
  return false;
}

/** Why listening on `host` is refused, or undefined when it is allowed. */
export function plainListenProblem(
  host: string,
  options: { tls: boolean; allowPlainHttp: boolean },
): string | undefined {
  if (options.tls || options.allowPlainHttp || isLoopbackHost(host)) return undefined;
  return `refusing to serve plain HTTP on ${host}: API tokens would cross the network in clear text; give --tls-cert and --tls-key, or --allow-plain-http if a proxy in front terminates TLS`;
}

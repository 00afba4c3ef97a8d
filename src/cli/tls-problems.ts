/**
 * @module What went wrong when the CLI could not talk to its endpoint over TLS (or talked TLS to a
 * plain HTTP server, or the other way round), said as what happened and what to do, instead of
 * asking whether the server runs.
 */
import { connect } from 'node:tls';
import { readLocalBytes, FILES } from './local-files.js';
import { UsageError } from './usage.js';

/** Where a private CA comes from, as the messages name it. */
export const CA_SOURCE = '--ca-file <file> (or TYPEPLANE_CA_FILE)';

/** The certificates of `--ca-file` (PEM), which the CLI trusts instead of the system's CAs. */
export function readCaFile(path: string): Buffer {
  const pem = readLocalBytes(path, FILES.pem);
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(
      `${path} holds no PEM certificate ('-----BEGIN CERTIFICATE-----'): --ca-file takes the certificate of the CA that signed the server's certificate (or a self-signed server certificate itself)`,
    );
  return pem;
}

/**
 * What a TLS failure of a call to `endpoint` means, or undefined when it was no TLS failure.
 * `caFile` is the --ca-file given, if any.
 */
export function tlsProblem(
  error: NodeJS.ErrnoException,
  endpoint: string,
  caFile?: string,
): string | undefined {
  const { hostname } = new URL(endpoint);
  const trusted = caFile === undefined ? 'this CLI trusts' : `the CA in ${caFile}`;
  switch (error.code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return caFile === undefined
        ? `the server's certificate is self-signed: pass ${CA_SOURCE} with that certificate or the CA that signed it`
        : `the server's certificate is self-signed and not signed by ${trusted}: give --ca-file the certificate the server uses (or its CA)`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return caFile === undefined
        ? `the server's certificate is signed by a CA this CLI does not trust (a private CA?): pass ${CA_SOURCE} with that CA's certificate`
        : `the server's certificate is not signed by ${trusted}: give --ca-file the certificate of the CA that signed it`;
    case 'CERT_HAS_EXPIRED':
      return "the server's certificate has expired: the server needs a renewed one (serve --tls-cert), or this machine's clock is wrong";
    case 'CERT_NOT_YET_VALID':
      return "the server's certificate is not valid yet: check this machine's clock (or the certificate's start date)";
    case 'ERR_TLS_CERT_ALTNAME_INVALID': {
      const names = (error as { cert?: { subjectaltname?: string } }).cert?.subjectaltname;
      return `the server's certificate is not for ${hostname}${names ? ` (it names ${names})` : ''}: use an endpoint with a name the certificate holds, or a certificate for ${hostname}`;
    }
  }
  if (
    /wrong version number|packet length too long|ERR_SSL_WRONG_VERSION_NUMBER/.test(
      `${error.code} ${error.message}`,
    )
  )
    return `this endpoint speaks plain HTTP, not HTTPS: use ${withProtocol(endpoint, 'http:')}`;
  return undefined;
}

/** Whether `endpoint` (an http:// one that answered no HTTP) completes a TLS handshake: it wants https://. */
export function speaksTls(endpoint: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({
      host: endpoint.hostname.replace(/^\[|\]$/g, ''),
      port: Number(endpoint.port || 80),
      // Only whether it speaks TLS at all: its certificate is judged when the call is made again.
      rejectUnauthorized: false,
      ...(/^[\d.:[\]]+$/.test(endpoint.hostname) ? {} : { servername: endpoint.hostname }),
    });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The endpoint as given, with another scheme. */
export function withProtocol(endpoint: string, protocol: 'http:' | 'https:'): string {
  return endpoint.replace(/^[a-z]+:/i, protocol);
}

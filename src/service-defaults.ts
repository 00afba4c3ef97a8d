/**
 * @module Where a server listens unless told otherwise: apart from the service itself, so that the
 * command line can show them in its help without loading the server.
 */

export const DEFAULT_PORT = 4780;
export const DEFAULT_HOST = '127.0.0.1';

/**
 * @module The HTTP API.
 */
export { buildServer, type ServerOptions } from './server.js';
export { errorBody, type ErrorBody } from './errors.js';

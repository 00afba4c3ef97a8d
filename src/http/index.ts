/**
 * @module The HTTP API.
 */
export { buildServer, type ServerOptions } from './server.js';
export { errorBody, type ErrorBody } from './errors.js';
export { parseJsonBody, MAX_BODY_DEPTH } from './body.js';
export { RESOURCE_BODY_LIMIT } from './routes/resources.js';

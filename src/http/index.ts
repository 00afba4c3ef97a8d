/**
 * @module The HTTP API.
 */
export { buildServer, type FrontDoor, type ServerOptions } from './server.js';
export { RequestMessage, type BodySink } from './request-message.js';
export { answeringBeforeBody } from './connections.js';
export { clientRequestId } from './request-id.js';
export { errorBody, type ErrorBody } from './errors.js';
// Bounded JSON bodies and their size limit, for the front door beside this one (src/cloudcontrol).
export { parseJsonBody } from './body.js';
export { RESOURCE_BODY_LIMIT } from './routes/resources.js';

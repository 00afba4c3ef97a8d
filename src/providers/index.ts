/**
 * @module Providers: the handler contract and the built-in providers.
 */
export * from './types.js';
export { createStateProvider, STATE_PROVIDER_NAME } from './state.js';

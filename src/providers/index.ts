/**
 * @module Providers: the handler contract and the built-in providers.
 */
export * from '../handler/types.js';
export { createStateProvider, STATE_PROVIDER_NAME } from './state.js';
export {
  Synthesis,
  stateProviderProblems,
  type StateProviderSettings,
  type Emulated,
} from './synthesize/index.js';
export { defineProvider, progress, type ProviderDefinition, type ProviderSpec } from './sdk.js';
export {
  loadProviders,
  loadModule,
  readConfig,
  ConfigError,
  type ProviderEntry,
  type TypeplaneConfig,
} from './load.js';
export { createRemoteProvider, type RemoteProviderOptions } from './remote/index.js';

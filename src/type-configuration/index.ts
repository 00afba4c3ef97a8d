/**
 * @module Per-type configuration an operator sets (`typeConfiguration`), sealed at rest, handed to
 * every handler invocation of the type.
 */
export { TypeConfigurations, requiresConfiguration, type ConfigurationSource } from './configurations.js';

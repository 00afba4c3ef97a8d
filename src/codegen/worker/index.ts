/**
 * @module Artifacts generated off the event loop: a bounded pool of generator threads.
 */
export {
  ArtifactGenerator,
  GeneratorBusy,
  GENERATOR_LIMITS,
  type GeneratedArtifact,
  type GeneratorLimits,
} from './pool.js';

/**
 * @module The manifest dialect (Radius-style resource type manifests). Placeholder until written.
 */
import type { DialectResult } from '../resource-schema/index.js';

export function checkManifest(_document: unknown, _source?: string): DialectResult {
  return { findings: [], types: [] };
}

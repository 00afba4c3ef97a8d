/**
 * @module Where each normalised reference was written, for messages about it that can only be given
 * once other documents are known (`loadTypes`' cross-document checks).
 *
 * Kept beside the model rather than in it: a `Reference` compares, clones and stores as the plain
 * data `model.ts` declares. An origin is a JSON pointer into the document the reference came from;
 * it does not survive a copy of the reference (a copy simply has no origin). Both dialects record
 * here (the manifest dialect imports it like the other shared resource-schema helpers).
 */
import type { Reference, ReferenceId } from '../model.js';

const origins = new WeakMap<Reference | ReferenceId, string>();

/**
 * Record where `value` was written: for a `Reference`, the pointer of its type name (`typeName`
 * value, a `relationshipRef`'s `typeName`, or a manifest property's `x-typeplane-references`); for an
 * explicit `ReferenceId`, the pointer of its key in `ids`.
 */
export function withOrigin<T extends Reference | ReferenceId>(value: T, pointer: string): T {
  origins.set(value, pointer);
  return value;
}

/** The pointer recorded by {@link withOrigin}, if any. */
export function originOf(value: Reference | ReferenceId): string | undefined {
  return origins.get(value);
}

/** A reference's `rel` and `service` (Smithy), kept as they are written. */
export function smithyMembers(ref: Record<string, unknown>): Pick<Reference, 'rel' | 'service'> {
  return {
    ...(typeof ref.rel === 'string' ? { rel: ref.rel } : {}),
    ...(typeof ref.service === 'string' ? { service: ref.service } : {}),
  };
}

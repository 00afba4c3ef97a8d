/**
 * @module What the server and a generator thread say to each other: a job (an artifact's name and
 * its types' models as JSON texts) and its answer (the bytes, with their compressed forms).
 */
import type { ArtifactName } from '../artifact.js';

/**
 * A job is its models, sent in parts (`types`: JSON texts, so that no object graph is serialised on
 * the sending thread, and no one message holds that thread long), then `render`.
 */
export type JobMessage =
  { kind: 'types'; id: number; texts: string[] } | { kind: 'render'; id: number; artifact: ArtifactName };

/** An artifact's body in each content coding it is served in. */
export interface Encodings {
  identity: Uint8Array;
  gzip?: Uint8Array;
  br?: Uint8Array;
}

export type AnswerMessage =
  | { id: number; found: true; contentType: string; encodings: Encodings }
  | { id: number; found: false }
  | { id: number; error: string };

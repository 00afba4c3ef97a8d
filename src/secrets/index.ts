/**
 * @module Secrets at rest: the key (environment or key file), sealing with AES-256-GCM, and the check
 * that the key a server starts with is the one its store was sealed with.
 *
 * Write-only values are sealed by the engine before anything reaches the store, and opened only to
 * build what a provider is handed; see `docs/architecture.md` (Secrets).
 */
import type { Store } from '../store/types.js';
import { SecretKeyError } from './key.js';
import type { Sealer } from './sealer.js';

export { createSealer, isSealed, KEY_BYTES, type Sealer } from './sealer.js';
export {
  loadSecretKey,
  SecretKeyError,
  SECRET_KEY_ENV,
  SECRET_KEY_FILE_NAME,
  type LoadedKey,
  type SecretKeySource,
} from './key.js';

/** Where the key check value lives (no type name has a single colon). */
const CHECK_NAMESPACE = 'typeplane:secrets';
const CHECK_KEY = 'secret-key-check';
const CHECK_TEXT = 'typeplane secret key check';

/**
 * Refuse a key that is not the one the store's sealed values were made with: a sealed check value is
 * written on first start and must open on every later one. Without this, a wrong key would surface
 * as failures in the middle of requests.
 *
 * @throws SecretKeyError naming both key ids and how to recover.
 */
export async function checkSecretKey(store: Store, sealer: Sealer): Promise<void> {
  const sealed = sealer.seal(CHECK_TEXT, CHECK_KEY);
  const stored = await store.kvGet(CHECK_NAMESPACE, CHECK_KEY);
  if (!stored) {
    if (await store.kvInsert(CHECK_NAMESPACE, CHECK_KEY, { value: { sealed }, writtenBy: 'typeplane' }))
      return;
    return checkSecretKey(store, sealer); // another replica wrote it first
  }
  const value = stored.value.sealed;
  try {
    if (typeof value === 'string' && sealer.open(value, CHECK_KEY) === CHECK_TEXT) return;
  } catch {
    /* reported below */
  }
  const theirs = typeof value === 'string' ? (value.split('.')[1] ?? 'unknown') : 'unknown';
  throw new SecretKeyError(
    `the secret key in use (id ${sealer.keyId}) is not the key this store's secrets were sealed with (id ${theirs}): ` +
      'start with the original key (the TYPEPLANE_SECRET_KEY environment variable or the --secret-key-file file), ' +
      'restored from a backup if need be; without it the sealed values cannot be read',
  );
}

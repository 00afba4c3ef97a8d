/**
 * @module Client tokens of deployments: a request sent again with its token answers with the
 * deployment it began (never a second one); the same token with another request is refused.
 */
import { TypeplaneError } from '../errors.js';
import { canonicalJson } from '../engine/index.js';
import type { Sealer } from '../secrets/index.js';
import type { Store } from '../store/types.js';

const TOKENS = 'typeplane:stack-tokens';

/** The deployment a client token began, as remembered. */
export interface Remembered {
  deploymentId: string;
  startedAt: string;
  stackId?: string;
}

export async function replayed(
  store: Store,
  sealer: Sealer,
  name: string,
  token: string | undefined,
  request: unknown,
): Promise<Remembered | undefined> {
  if (token === undefined) return undefined;
  const held = await store.kvGet(TOKENS, `${name}/${token}`);
  if (!held) return undefined;
  if (held.value.hash !== fingerprint(sealer, request))
    throw new TypeplaneError(
      'InvalidRequest',
      'this clientToken was already used for a different request; use a new token',
    );
  return {
    deploymentId: held.value.deploymentId as string,
    startedAt: String(held.value.startedAt),
    ...(typeof held.value.stackId === 'string' ? { stackId: held.value.stackId } : {}),
  };
}

/**
 * What a client token's request is compared as. Keyed with the server's key: the request holds
 * NoEcho values, which a plain hash in the store would let anyone with a copy of it confirm guesses of.
 */
function fingerprint(sealer: Sealer, request: unknown): string {
  return sealer.mac(canonicalJson(['stack-deployment', request]));
}

export async function rememberToken(
  store: Store,
  sealer: Sealer,
  name: string,
  token: string,
  started: { deploymentId: string; startedAt: string; stackId: string | undefined },
  request: unknown,
): Promise<void> {
  await store.kvInsert(TOKENS, `${name}/${token}`, {
    value: { ...started, hash: fingerprint(sealer, request) },
    writtenBy: 'stacks',
  });
}

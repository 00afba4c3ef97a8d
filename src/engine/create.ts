/**
 * @module Create: the desired state checked (`check-create.ts`), then an operation begun (`begin.ts`)
 * for the worker to run — or, for a record-backed provider, decided at once (`record-backed.ts`), and
 * for a composing one, with its parts when it can be (`composed.ts`).
 */
import type { RequestKind } from './client-token.js';
import type { Caller } from './caller.js';
import type { EngineContext } from './context.js';
import { begin, type BeginArgs } from './begin.js';
import { checkCreate, hashOf } from './check-create.js';
import { createComposed } from './composed.js';
import { createInRecord } from './record-backed.js';
import type { ProgressEvent } from './types.js';

export async function create(
  ctx: EngineContext,
  typeName: string,
  desiredState: unknown,
  clientToken?: string,
  caller?: Caller,
  version?: string,
  /** How a client token compares this request, when it is not a plain create (a PUT's). */
  hashed: { as?: RequestKind; of: unknown } = { of: hashOf(desiredState, version) },
): Promise<ProgressEvent> {
  const checked = await checkCreate(ctx, typeName, desiredState, clientToken, caller, version, hashed);
  if ('replay' in checked) return checked.replay;
  const { compiled, desired, provider, identifier, as } = checked;
  // Awaited: a promise returned from an async function costs two more turns of the microtask queue.
  if (provider.recordBacked)
    return await createInRecord(ctx, { compiled, provider, desired, clientToken, hashed, as });
  const args: BeginArgs = {
    compiled,
    operation: 'CREATE',
    identifier,
    request: { desiredState: desired },
    clientToken,
    hashOf: hashed.of,
    ...(hashed.as ? { hashAs: hashed.as } : {}),
    ...as,
  };
  if (provider.composes) {
    const composed = await createComposed(ctx, args, provider, desired);
    if (composed) return composed;
  }
  return await begin(ctx, args);
}

/**
 * @module Update by JSON Patch: the patch applied to the whole desired state, the update's contract
 * checks (read-only and create-only properties unchanged, schema, references), then an operation begun.
 */
import { TypeplaneError } from '../errors.js';
import { applyPatch, createOnlyChanged, patchReadsWriteOnly, valuesAt, type Model } from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import { assertAdmitted } from './admission.js';
import { askedBy, begin, failImmediately } from './begin.js';
import { ChangedMeanwhile } from './changed-meanwhile.js';
import { canonicalJson } from './client-token.js';
import type { Caller } from './caller.js';
import type { EngineContext } from './context.js';
import { assertRules, assertValid } from './input.js';
import { ratchet } from './ratchet.js';
import { replaceInRecord } from './record-backed.js';
import { assertReferencesExist } from './references.js';
import { replayOf, reviewChange, warned } from './review.js';
import type { Verdict } from '../verdict.js';
import { resourceWithSecrets } from './sealing.js';
import type { ProgressEvent } from './types.js';

/** How many times a patch is computed again when other updates keep getting in first. */
const PATCH_ATTEMPTS = 8;

/**
 * A patch applies to the resource as it is when the update begins: when another update got in
 * between the read it was computed from and its begin, it is computed again on the newer state (a
 * `test` operation in it is checked again there), a few times, before ResourceConflict.
 */
export async function update(
  ctx: EngineContext,
  typeName: string,
  identifier: string,
  patchDocument: unknown,
  clientToken?: string,
  caller?: Caller,
  version?: string,
): Promise<ProgressEvent> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await updateOnce(ctx, typeName, identifier, patchDocument, clientToken, caller, version);
    } catch (error) {
      if (!(error instanceof ChangedMeanwhile) || attempt >= PATCH_ATTEMPTS) throw error;
      // Spread the contenders out: all computed again at once, all but one would lose again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** attempt));
    }
  }
}

async function updateOnce(
  ctx: EngineContext,
  typeName: string,
  identifier: string,
  patchDocument: unknown,
  clientToken?: string,
  caller?: Caller,
  version?: string,
): Promise<ProgressEvent> {
  const compiled = await ctx.registry.get(typeName, version);
  const type = compiled.type;
  await assertAdmitted(ctx, compiled, 'update');
  const current = await resourceWithSecrets(ctx.store, ctx.sealer, type, identifier);
  if (!current)
    return failImmediately(
      ctx,
      compiled,
      'UPDATE',
      identifier,
      'NotFound',
      `${type.typeName} ${identifier} does not exist`,
      clientToken,
      { patchDocument },
      undefined,
      caller?.id,
    );
  const hashOf =
    version === undefined ? { identifier, patchDocument } : { identifier, patchDocument, version };
  const replay = await replayOf(ctx, { operation: 'UPDATE', compiled, caller }, clientToken, {
    as: 'UPDATE',
    of: hashOf,
  });
  if (replay) return replay;
  const readsWriteOnly = patchReadsWriteOnly(type, patchDocument);
  if (readsWriteOnly.length > 0)
    throw new TypeplaneError(
      'InvalidRequest',
      `a patch cannot read write-only values: ${readsWriteOnly.map((p) => `operation ${String(p.index)} ${p.message}`).join('; ')}`,
      readsWriteOnly,
    );
  const desired = applyPatch(type, current.properties, patchDocument);
  // The primary identifier, whichever identifier the caller named it by.
  const primary = current.identifier;
  const verdicts = await assertUpdatable(ctx, compiled, current.properties, desired, caller, primary);
  const provider = ctx.providerFor(type.typeName);
  return begin(ctx, {
    compiled,
    operation: 'UPDATE',
    identifier: primary,
    request: { desiredState: desired, previousState: current.properties },
    clientToken,
    hashOf,
    asDefault: version === undefined,
    ...askedBy(caller),
    ...(provider.recordBacked
      ? { decide: await replaceInRecord(ctx, type, primary, current, desired, compiled.version) }
      : { basedOn: current }),
    ...warned(verdicts),
  });
}

/**
 * The contract checks of an update, before any handler runs, then its review: the verdicts it may
 * proceed with.
 */
export async function assertUpdatable(
  ctx: EngineContext,
  compiled: CompiledType,
  current: Model,
  desired: Model,
  caller: Caller | undefined,
  identifier: string,
): Promise<readonly Verdict[]> {
  const type = compiled.type;
  // The identifier is the resource's key: a change to it would be another resource, whatever the
  // provider and whether or not the type lists it as create-only.
  const identifierChanged = type.primaryIdentifier.filter(
    (p) => !sameValues(valuesAt(current, p), valuesAt(desired, p)),
  );
  if (identifierChanged.length > 0) {
    throw new TypeplaneError(
      'NotUpdatable',
      `the primary identifier cannot change: ${identifierChanged.join(', ')}; create a new resource instead`,
      identifierChanged.map((pointer) => ({ pointer, message: 'is part of the primary identifier' })),
    );
  }
  const changedReadOnly = type.readOnlyProperties.filter(
    (p) => !sameValues(valuesAt(current, p), valuesAt(desired, p)),
  );
  if (changedReadOnly.length > 0) {
    throw new TypeplaneError(
      'InvalidRequest',
      `read-only properties cannot be changed: ${changedReadOnly.join(', ')}`,
      changedReadOnly.map((pointer) => ({ pointer, message: 'is read-only: the provider sets it' })),
    );
  }
  const createOnly = createOnlyChanged(type, current, desired);
  if (createOnly.length > 0) {
    throw new TypeplaneError(
      'NotUpdatable',
      `create-only properties cannot change after creation: ${createOnly.join(', ')}; delete and re-create the resource instead`,
      createOnly.map((pointer) => ({ pointer, message: 'is create-only' })),
    );
  }
  // What the update leaves as it was may keep violating the version in force (it was written under
  // an earlier one, or carried over by an update since): only changed and new values must satisfy it.
  assertValid(compiled, desired, (problems) => ratchet(problems, current, desired));
  assertRules(compiled, desired, current);
  await assertReferencesExist(ctx, type, desired, caller);
  return reviewChange(ctx, {
    operation: 'UPDATE',
    compiled,
    identifier,
    object: desired,
    oldObject: current,
    ...(caller ? { caller } : {}),
  });
}

function sameValues(a: { value: unknown }[], b: { value: unknown }[]): boolean {
  return canonicalJson(a.map((x) => x.value)) === canonicalJson(b.map((x) => x.value));
}

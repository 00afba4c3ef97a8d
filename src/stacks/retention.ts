/**
 * @module What a resource's `DeletionPolicy` and `UpdateReplacePolicy` do, as CloudFormation has them:
 * `Delete` deletes, `Retain` keeps the resource (it leaves the stack; Typeplane's record of it stays, a
 * plain resource again, importable later), `RetainExceptOnCreate` (DeletionPolicy only) keeps it unless
 * the deployment that created it rolls back. `Snapshot` is refused: no provider here takes snapshots.
 */

export type DeletionPolicy = 'Delete' | 'Retain' | 'RetainExceptOnCreate';
export type ReplacePolicy = 'Delete' | 'Retain';

const POLICIES = {
  DeletionPolicy: ['Delete', 'Retain', 'RetainExceptOnCreate'],
  UpdateReplacePolicy: ['Delete', 'Retain'],
} as const;

/**
 * A policy as written, read: the policy, or what is wrong with it. Anything but a string is left to
 * whatever expands it first (an intrinsic under `AWS::LanguageExtensions`) and refused here.
 */
export function readPolicy(
  key: 'DeletionPolicy' | 'UpdateReplacePolicy',
  value: unknown,
  type: string,
): { policy: DeletionPolicy } | { problem: string } {
  const allowed: readonly string[] = POLICIES[key];
  if (typeof value === 'string' && allowed.includes(value)) return { policy: value as DeletionPolicy };
  if (value === 'Snapshot')
    return {
      problem: `${key} Snapshot: ${type} has no snapshot support in Typeplane (its provider takes no snapshots); use Retain to keep the resource, or Delete`,
    };
  return { problem: `${key} must be ${allowed.join(', ')} (not ${JSON.stringify(value)})` };
}

/**
 * Whether deleting the resource out of its stack leaves it: on a stack's deletion, a removal or a
 * rollback. `rollingBackItsCreate`: the deployment that created it is rolling back.
 */
export function retained(policy: string, rollingBackItsCreate = false): boolean {
  return policy === 'Retain' || (policy === 'RetainExceptOnCreate' && !rollingBackItsCreate);
}

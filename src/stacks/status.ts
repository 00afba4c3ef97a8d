/**
 * @module What a stack's name and status allow: a name as CloudFormation's, a deployment begun only
 * once the last has ended, a stack no deployment ever created counted as new.
 */
import { TypeplaneError } from '../errors.js';
import type { StackStatus } from './records.js';

/** Stack names: as CloudFormation's. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;
export const TERMINAL = /(_COMPLETE|_FAILED)$/;
export const NEVER_CREATED: ReadonlySet<StackStatus> = new Set([
  'ROLLBACK_COMPLETE',
  'CREATE_FAILED',
  'ROLLBACK_FAILED',
]);

export function assertStackName(name: string): void {
  if (typeof name !== 'string' || !STACK_NAME.test(name))
    throw new TypeplaneError(
      'InvalidRequest',
      `stack name '${String(name).slice(0, 140)}' must start with a letter and hold at most 128 letters, digits and hyphens`,
    );
}

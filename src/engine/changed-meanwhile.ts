/**
 * @module Optimistic concurrency for updates: an update applies only to the state it was computed from.
 */
import { TypeplaneError } from '../errors.js';
import type { ResourceType } from '../schema/index.js';
import type { StoredResource } from '../store/types.js';

/** The resource changed between the read an update was computed from and the update's begin. */
export class ChangedMeanwhile extends TypeplaneError {
  constructor(typeName: string, identifier: string) {
    super(
      'ResourceConflict',
      `${typeName} ${identifier} kept changing while this update was being prepared; read it again and retry`,
    );
  }
}

/**
 * A precondition: the resource is still as `base` (else another update won the race: refused).
 * `open` gives a stored resource's whole model.
 */
export function unchangedSince(
  type: ResourceType,
  identifier: string,
  base: StoredResource,
  open: (stored: StoredResource) => StoredResource,
): (current: StoredResource | undefined) => void {
  const baseJson = JSON.stringify(base.properties);
  return (current) => {
    if (!current || JSON.stringify(open(current).properties) !== baseJson)
      throw new ChangedMeanwhile(type.typeName, identifier);
  };
}

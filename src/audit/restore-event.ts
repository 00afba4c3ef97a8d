/**
 * @module A restore in the audit trail. `typeplane restore` talks to no server: it appends its record
 * to the trail of the store it has just written, chained after the backup's last record, where
 * `GET /v1/audit` serves it once a server runs on that store with `--audit-store`. A refused restore
 * leaves its target as it found it, so it records nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/types.js';
import { chainKey } from './chain.js';
import type { AuditEvent } from './event.js';
import { StoreTrail } from './store-trail.js';

export interface RestoreFacts {
  /** The backup file, as a full path. */
  file: string;
  bytes: number;
  /** What the backup's header says of it. */
  backup: { createdAt: string; typeplaneVersion: string };
  /** Who ran it: `user@host`, as the system names them (a restore has no API token). */
  by: string;
  /** This Typeplane's version. */
  typeplaneVersion: string;
  startedAt: Date;
}

export function restoreEvent(facts: RestoreFacts): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'typeplane.dev/audit/v1',
    level: 'Metadata',
    auditID: randomUUID(),
    stage: 'ResponseComplete',
    requestURI: `typeplane restore ${facts.file}`,
    verb: 'restore',
    user: {},
    sourceIPs: [],
    userAgent: `typeplane/${facts.typeplaneVersion}`,
    objectRef: { resource: 'backup' },
    responseStatus: { code: 200 },
    requestReceivedTimestamp: facts.startedAt.toISOString(),
    stageTimestamp: new Date().toISOString(),
    annotations: {
      'typeplane.dev/restored-by': facts.by,
      'typeplane.dev/backup-file': facts.file,
      'typeplane.dev/backup-bytes': String(facts.bytes),
      'typeplane.dev/backup-taken': facts.backup.createdAt,
      'typeplane.dev/backup-typeplane-version': facts.backup.typeplaneVersion,
    },
  };
}

/** Appends the record of a restore to `store`'s trail, chained under `secretKey`'s chain key. */
export async function recordRestore(
  store: Pick<Store, 'appendAuditRecords' | 'listAuditRecords' | 'expireAuditRecords'>,
  secretKey: Buffer,
  facts: RestoreFacts,
): Promise<void> {
  let failure: unknown;
  const trail = new StoreTrail({ store, key: chainKey(secretKey), onError: (error) => (failure ??= error) });
  trail.append(restoreEvent(facts));
  await trail.close();
  if (failure !== undefined) throw failure;
}

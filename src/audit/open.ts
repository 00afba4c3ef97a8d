/**
 * @module The audit trail as `serve` configures it: the auditor with its backends — the file (or
 * stdout) and the store's trail, each on when asked for, as the Kubernetes API server's log and
 * webhook backends are (no backend, no audit).
 */
import type { Store } from '../store/types.js';
import type { AuditLevel } from './event.js';
import { Auditor } from './auditor.js';
import { chainKey } from './chain.js';
import { FileSink } from './file-sink.js';
import { StoreTrail, type StoreTrailOptions } from './store-trail.js';
import type { Masking } from './request-object.js';
import { tokenDescriptions } from './token-descriptions.js';

/** `serve`'s audit settings; the trail is off without them. */
export interface AuditSettings {
  /** `--audit-log`: a file, or `-` for stdout. */
  log?: string;
  /** `--audit-store`: keep records in the store too, queryable through `GET /v1/audit`. */
  store?: boolean;
  /** `--audit-retention`: how long the store keeps records (default 30 days). */
  retentionMs?: number;
  /** The store trail's batching and bounds (see store-trail.ts; its defaults otherwise). */
  batch?: Pick<StoreTrailOptions, 'maxWaitMs' | 'maxBatch' | 'bufferSize' | 'reserve' | 'admitTimeoutMs'>;
  /** `--audit-level` (default Metadata). */
  level?: AuditLevel;
  /** `--audit-log-max-size` in bytes (default 100 MiB). */
  maxBytes?: number;
  /** `--audit-log-max-files`: rotated files kept (default 5). */
  maxFiles?: number;
}

/** How long the store keeps records by default: 30 days. */
export const DEFAULT_RETENTION_MS = 30 * 24 * 3600_000;

export interface AuditDependencies {
  /** The service's secret key: the chain's key is derived from it. */
  secretKey: Buffer;
  store: Pick<Store, 'appendAuditRecords' | 'listAuditRecords' | 'expireAuditRecords'>;
  masking: Masking;
  listTokens: () => Promise<{ id: string; description?: string }[]>;
  onError: (error: unknown) => void;
}

/** The auditor with the backends `settings` name; undefined when they name none (no audit). */
export function openAuditor(settings: AuditSettings, dependencies: AuditDependencies): Auditor | undefined {
  if (settings.log === undefined && !settings.store) return undefined;
  const key = chainKey(dependencies.secretKey);
  const file =
    settings.log !== undefined
      ? new FileSink({
          path: settings.log,
          key,
          ...(settings.maxBytes !== undefined ? { maxBytes: settings.maxBytes } : {}),
          ...(settings.maxFiles !== undefined ? { maxFiles: settings.maxFiles } : {}),
        })
      : undefined;
  const trail = settings.store
    ? new StoreTrail({
        store: dependencies.store,
        key,
        retentionMs: settings.retentionMs ?? DEFAULT_RETENTION_MS,
        ...settings.batch,
        onError: dependencies.onError,
      })
    : undefined;
  return new Auditor({
    level: settings.level ?? 'Metadata',
    ...(file ? { file } : {}),
    ...(trail ? { trail } : {}),
    masking: dependencies.masking,
    describeToken: tokenDescriptions(dependencies.listTokens),
    onError: dependencies.onError,
  });
}

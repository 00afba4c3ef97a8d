/**
 * @module The audit trail as `serve` configures it: the auditor with its file (or stdout) sink.
 */
import type { AuditLevel } from './event.js';
import { Auditor } from './auditor.js';
import { chainKey } from './chain.js';
import { FileSink } from './file-sink.js';
import type { Masking } from './request-object.js';
import { tokenDescriptions } from './token-descriptions.js';

/** `serve`'s audit settings; the trail is off without them. */
export interface AuditSettings {
  /** `--audit-log`: a file, or `-` for stdout. */
  log: string;
  /** `--audit-level` (default Metadata). */
  level?: AuditLevel;
  /** `--audit-log-max-size` in bytes (default 100 MiB). */
  maxBytes?: number;
  /** `--audit-log-max-files`: rotated files kept (default 5). */
  maxFiles?: number;
}

export interface AuditDependencies {
  /** The service's secret key: the chain's key is derived from it. */
  secretKey: Buffer;
  masking: Masking;
  listTokens: () => Promise<{ id: string; description?: string }[]>;
  onError: (error: unknown) => void;
}

export function openAuditor(settings: AuditSettings, dependencies: AuditDependencies): Auditor {
  const file = new FileSink({
    path: settings.log,
    key: chainKey(dependencies.secretKey),
    ...(settings.maxBytes !== undefined ? { maxBytes: settings.maxBytes } : {}),
    ...(settings.maxFiles !== undefined ? { maxFiles: settings.maxFiles } : {}),
  });
  return new Auditor({
    level: settings.level ?? 'Metadata',
    file,
    masking: dependencies.masking,
    describeToken: tokenDescriptions(dependencies.listTokens),
    onError: dependencies.onError,
  });
}

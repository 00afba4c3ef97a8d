/**
 * @module The store's trail kept for its retention (`serve --audit-retention`): older records are
 * removed hourly, as client tokens are, the last one always kept (the chain goes on from it).
 */
import type { Store } from '../store/types.js';

/** Expire records older than `retentionMs` every hour; the returned function stops it. */
export function expireHourly(
  store: Pick<Store, 'expireAuditRecords'>,
  retentionMs: number,
  onError: (error: unknown) => void,
): () => void {
  const timer = setInterval(() => {
    store.expireAuditRecords(new Date(Date.now() - retentionMs)).catch(onError);
  }, 3600_000);
  timer.unref();
  return () => clearInterval(timer);
}

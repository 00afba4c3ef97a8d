/**
 * @module The PostgreSQL store's audit trail: records appended in batches, each batch one
 * transaction under an advisory lock (the schema's trail's) that every replica's appender takes
 * first, so the chain's head read after it is the last record any replica committed and the trail
 * stays one gap-free chain across replicas.
 */
import type pg from 'pg';
import { AUDIT_COLUMNS, auditListQuery, auditPage, auditRow, expireAuditSql } from '../audit-filter.js';
import type { AuditChainHead, AuditEntry, AuditFilter, AuditLink, Page } from '../types.js';

const TYPES = ['bigint', 'text', 'text', 'text', 'text', 'text', 'integer', 'text', 'text'] as const;

/** One statement for a batch of any size: a column of values a parameter. */
const INSERT = `INSERT INTO audit_records (${AUDIT_COLUMNS.join(', ')})
  SELECT * FROM unnest(${TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})`;

const HEAD = 'SELECT sequence, hash FROM audit_records ORDER BY sequence DESC LIMIT 1';

/** Runs `work` in a transaction that first takes the trail's lock (the store's transaction). */
export type LockedTransaction = <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;

export class PostgresAuditTrail {
  constructor(
    private readonly pool: pg.Pool,
    private readonly locked: LockedTransaction,
  ) {}

  append(entries: readonly AuditEntry[], link: AuditLink): Promise<AuditChainHead> {
    return this.locked(async (client) => {
      const last = (await client.query<{ sequence: string; hash: string }>(HEAD, [])).rows[0];
      let head: AuditChainHead | undefined = last && { sequence: Number(last.sequence), hash: last.hash };
      const columns: unknown[][] = AUDIT_COLUMNS.map(() => []);
      entries.forEach((entry, index) => {
        const linked = link(entry, index, head);
        head = linked.head;
        auditRow(entry, head, linked.record).forEach((value, i) => columns[i]!.push(value));
      });
      if (!head) throw new Error('no audit record to append');
      await client.query(INSERT, columns);
      return head;
    });
  }

  async list(filter: AuditFilter, options: { limit: number; nextToken?: string }): Promise<Page<string>> {
    const { text, values } = auditListQuery(filter, options, (n) => `$${n}`, "(record::json ->> 'stage')");
    const { rows } = await this.pool.query<{ sequence: string; record: string }>(text, values);
    return auditPage(rows, options.limit);
  }

  async expireBefore(before: Date): Promise<number> {
    return (await this.pool.query(expireAuditSql('$1'), [before.toISOString()])).rowCount ?? 0;
  }
}

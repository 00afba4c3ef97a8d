/**
 * @module The SQLite store's audit trail: records appended in batches, each batch one IMMEDIATE
 * transaction whose write lock every process on the file takes, so the chain's head read at its start
 * is the last record anyone wrote and the trail stays one gap-free chain.
 */
import type Database from 'better-sqlite3';
import { AUDIT_COLUMNS, auditListQuery, auditPage, auditRow, expireAuditSql } from '../audit-filter.js';
import type { AuditChainHead, AuditEntry, AuditFilter, AuditLink, Page } from '../types.js';

type Row = { sequence: number; record: string };

export class SqliteAuditTrail {
  private readonly head;
  private readonly insert;
  private readonly expire;
  private readonly appendAll;
  /** Listing statements, one per combination of filters present. */
  private readonly lists = new Map<string, Database.Statement<unknown[], Row>>();

  constructor(private readonly db: Database.Database) {
    this.head = db.prepare<[], AuditChainHead>(
      'SELECT sequence, hash FROM audit_records ORDER BY sequence DESC LIMIT 1',
    );
    this.insert = db.prepare(
      `INSERT INTO audit_records (${AUDIT_COLUMNS.join(', ')}) VALUES (${AUDIT_COLUMNS.map(() => '?').join(', ')})`,
    );
    this.expire = db.prepare(expireAuditSql('?'));
    this.appendAll = db.transaction((entries: readonly AuditEntry[], link: AuditLink): AuditChainHead => {
      let head: AuditChainHead | undefined = this.head.get();
      entries.forEach((entry, index) => {
        const linked = link(entry, index, head);
        head = linked.head;
        this.insert.run(...auditRow(entry, head, linked.record));
      });
      if (!head) throw new Error('no audit record to append');
      return head;
    });
  }

  append(entries: readonly AuditEntry[], link: AuditLink): AuditChainHead {
    return this.appendAll.immediate(entries, link);
  }

  list(filter: AuditFilter, options: { limit: number; nextToken?: string }): Page<string> {
    const { text, values } = auditListQuery(filter, options, () => '?', "json_extract(record, '$.stage')");
    let statement = this.lists.get(text);
    if (!statement) this.lists.set(text, (statement = this.db.prepare<unknown[], Row>(text)));
    return auditPage(statement.all(...values), options.limit);
  }

  expireBefore(before: Date): number {
    return this.expire.run(before.toISOString()).changes;
  }
}

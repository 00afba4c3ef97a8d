/**
 * @module The audit trail's listing as SQL, shared by both stores: a filter's conditions, newest
 * first by sequence, keyset-paged (a page continues below the last sequence it returned).
 */
import { checkLimit, decodeCursor, encodeCursor } from './cursor.js';
import { isoTime, page } from './rows.js';
import type { AuditChainHead, AuditEntry, AuditFilter, Page } from './types.js';

/** Columns of the trail's table, in the order an append writes them. */
export const AUDIT_COLUMNS = [
  'sequence',
  'hash',
  'time',
  'verb',
  'type_name',
  'token_id',
  'code',
  'error_code',
  'record',
] as const;

/** A row's values, in {@link AUDIT_COLUMNS}' order: the entry chained as `record`, at `head`. */
export function auditRow(entry: AuditEntry, head: AuditChainHead, record: string): unknown[] {
  return [
    head.sequence,
    head.hash,
    entry.time,
    entry.verb,
    entry.typeName ?? null,
    entry.tokenId ?? null,
    entry.code,
    entry.errorCode ?? null,
    record,
  ];
}

/**
 * The query for one page of `filter` (values in order; `placeholder(n)` spells the n-th, from 1):
 * a row more than `limit` is asked for, to know whether a page follows. `stageOf` is the store's SQL
 * for the record's top-level `stage` (no column holds it: read from the record's JSON as parsed,
 * which no value within a record can pass for).
 */
export function auditListQuery(
  filter: AuditFilter,
  options: { limit: number; nextToken?: string },
  placeholder: (n: number) => string,
  stageOf: string,
): { text: string; values: unknown[] } {
  checkLimit(options.limit);
  const below = decodeCursor('audit', options.nextToken);
  const conditions: string[] = [];
  const values: unknown[] = [];
  const where = (sql: (p: string) => string, value: unknown) => {
    values.push(value);
    conditions.push(sql(placeholder(values.length)));
  };
  if (below !== undefined) where((p) => `sequence < ${p}`, below);
  if (filter.since !== undefined) where((p) => `time >= ${p}`, isoTime(filter.since, 'since'));
  if (filter.until !== undefined) where((p) => `time < ${p}`, isoTime(filter.until, 'until'));
  if (filter.verb !== undefined) where((p) => `verb = ${p}`, filter.verb);
  if (filter.typeName !== undefined) where((p) => `type_name = ${p}`, filter.typeName);
  if (filter.tokenId !== undefined) where((p) => `token_id = ${p}`, filter.tokenId);
  if (filter.code !== undefined) where((p) => `code = ${p}`, filter.code);
  if (filter.statusClass !== undefined) {
    where((p) => `code >= ${p}`, filter.statusClass * 100);
    where((p) => `code < ${p}`, filter.statusClass * 100 + 100);
  }
  if (filter.errorCode !== undefined) where((p) => `error_code = ${p}`, filter.errorCode);
  if (filter.stage !== undefined) where((p) => `${stageOf} = ${p}`, filter.stage);
  values.push(options.limit + 1);
  const text = `SELECT sequence, record FROM audit_records${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}
    ORDER BY sequence DESC LIMIT ${placeholder(values.length)}`;
  return { text, values };
}

/** The page from the rows of {@link auditListQuery}. */
export function auditPage(
  rows: { sequence: number | string; record: string }[],
  limit: number,
): Page<string> {
  const listed = page(rows, limit, (last) => encodeCursor('audit', Number(last.sequence)));
  return {
    items: listed.items.map((row) => row.record),
    ...(listed.nextToken ? { nextToken: listed.nextToken } : {}),
  };
}

/**
 * Removes the trail's oldest records up to the first made at or after `before` (a placeholder), in
 * sequence order, so that what stays is one unbroken piece of the chain; the last record
 * always stays, the chain going on from it.
 */
export function expireAuditSql(before: string): string {
  return `DELETE FROM audit_records WHERE sequence < COALESCE(
      (SELECT sequence FROM audit_records WHERE time >= ${before} ORDER BY sequence LIMIT 1),
      (SELECT MAX(sequence) FROM audit_records))`;
}

/**
 * @module Checking a chained trail (one file, or a rotated set oldest first): every record's keyed
 * hash, and that each names the one before it. A problem is located by file, line and auditID, and
 * told apart as a change (the record's text no longer matches its hash), a removal (a record names a
 * predecessor that is not there) or an insertion (a record the chain steps over).
 *
 * The records after the last one present cannot be missed by the chain alone: compare the head
 * (`sequence`, `hash`) with the API's trail or a copy kept elsewhere.
 */
import { checkLine, GENESIS_HASH } from './chain.js';

export interface TrailFile {
  name: string;
  text: string;
}

export interface TrailProblem {
  kind: 'changed' | 'removed' | 'inserted' | 'malformed';
  file: string;
  line: number;
  auditID?: string;
  message: string;
}

export interface TrailReport {
  ok: boolean;
  records: number;
  problems: TrailProblem[];
  /** The `previousHash` of the first record: the genesis hash when the trail starts here. */
  continuesFrom?: string;
  /** The last record's sequence and hash. */
  head?: { sequence: number; hash: string };
}

interface Entry {
  file: string;
  line: number;
  hash?: string;
  sealed: boolean;
  previousHash?: string;
  sequence?: number;
  auditID?: string;
}

function entryOf(file: string, line: number, text: string, key: Buffer): Entry {
  const checked = checkLine(key, text);
  let fields: { previousHash?: unknown; sequence?: unknown; auditID?: unknown } = {};
  try {
    fields = JSON.parse(text) as typeof fields;
  } catch {
    /* malformed: reported by the walk */
  }
  return {
    file,
    line,
    sealed: checked?.sealed === true,
    ...(checked ? { hash: checked.hash } : {}),
    ...(typeof fields.previousHash === 'string' ? { previousHash: fields.previousHash } : {}),
    ...(typeof fields.sequence === 'number' ? { sequence: fields.sequence } : {}),
    ...(typeof fields.auditID === 'string' ? { auditID: fields.auditID } : {}),
  };
}

/** Check the trail in `files` (oldest first) under `key` (chain.ts's chainKey). */
export function verifyTrail(files: TrailFile[], key: Buffer): TrailReport {
  const entries: Entry[] = [];
  for (const { name, text } of files) {
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      if (line.trim() !== '') entries.push(entryOf(name, index + 1, line, key));
    });
  }
  const problems: TrailProblem[] = [];
  const at = (e: Entry, kind: TrailProblem['kind'], message: string) =>
    problems.push({
      kind,
      file: e.file,
      line: e.line,
      ...(e.auditID !== undefined ? { auditID: e.auditID } : {}),
      message,
    });
  // The hash of the last record accepted into the chain.
  let last: string | undefined;
  let lastSequence: number | undefined;
  entries.forEach((entry, index) => {
    const next = entries[index + 1];
    if (!entry.sealed) {
      if (entry.hash === undefined && entry.previousHash === undefined) {
        // Not a record at all: inserted if the chain goes on past it.
        if (next?.previousHash !== undefined && next.previousHash === last)
          at(entry, 'inserted', 'a line that is no audit record was inserted here');
        else at(entry, 'malformed', 'this line is not a chained audit record (changed or truncated)');
        return;
      }
      if (last !== undefined && next?.previousHash === last && entry.previousHash !== undefined) {
        at(
          entry,
          'inserted',
          'this record was inserted: its hash is not the key’s and the next record follows the one before it',
        );
        return;
      }
      at(entry, 'changed', 'this record was changed: its text no longer matches its hash');
      last = entry.hash;
      lastSequence = entry.sequence;
      return;
    }
    if (last === undefined || entry.previousHash === last) {
      last = entry.hash;
      lastSequence = entry.sequence;
      return;
    }
    // A genuine record out of place: copied in (the chain resumes after it), or its predecessors removed.
    if (next?.previousHash === last) {
      at(
        entry,
        'inserted',
        'this record was inserted here: it names another predecessor, and the next record follows the one before it',
      );
      return;
    }
    const missing =
      entry.sequence !== undefined && lastSequence !== undefined
        ? entry.sequence - lastSequence - 1
        : undefined;
    at(
      entry,
      'removed',
      missing !== undefined && missing > 0
        ? `${missing} record${missing > 1 ? 's were' : ' was'} removed just before this one (sequence ${lastSequence! + 1}${missing > 1 ? `–${entry.sequence! - 1}` : ''})`
        : 'records were removed just before this one: it does not follow the record before it',
    );
    last = entry.hash;
    lastSequence = entry.sequence;
  });
  const first = entries[0];
  const tail = entries[entries.length - 1];
  return {
    ok: problems.length === 0,
    records: entries.length,
    problems,
    ...(first?.previousHash !== undefined ? { continuesFrom: first.previousHash } : {}),
    ...(tail?.hash !== undefined && tail.sequence !== undefined
      ? { head: { sequence: tail.sequence, hash: tail.hash } }
      : {}),
  };
}

export { GENESIS_HASH };

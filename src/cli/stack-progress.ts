/**
 * @module A stack deployment's progress as it happens: on a terminal, one line per resource (and the
 * stack) redrawn in place as its status changes, as `cdk deploy` shows it; elsewhere (CI logs,
 * pipes), one plain line per event.
 */

import type { StackEvent } from '../stacks/index.js';

export type StackEventView = StackEvent;

const SETTLED = /(_COMPLETE|_FAILED|_SKIPPED)$/;

interface Line {
  logicalId: string;
  type: string;
  status: string;
  reason?: string;
}

export interface StackProgress {
  /** Show events (in time order); ones already shown are ignored. */
  add(events: readonly StackEventView[]): void;
}

export function stackProgress(stream: NodeJS.WriteStream): StackProgress {
  const seen = new Set<string>();
  return stream.isTTY ? terminalProgress(stream, seen) : plainProgress(stream, seen);
}

function plainProgress(stream: NodeJS.WriteStream, seen: Set<string>): StackProgress {
  return {
    add(events) {
      for (const e of events) {
        if (seen.has(e.eventId)) continue;
        seen.add(e.eventId);
        const where = e.identifier !== undefined && e.type !== 'Typeplane::Stack' ? ` (${e.identifier})` : '';
        stream.write(
          `${e.time}  ${e.logicalId}${where}  ${e.type}  ${e.status}${e.reason ? `  ${e.reason}` : ''}\n`,
        );
      }
    },
  };
}

function terminalProgress(stream: NodeJS.WriteStream, seen: Set<string>): StackProgress {
  const lines: Line[] = [];
  const byId = new Map<string, Line>();
  /** Lines above this one are settled and printed for good; the rest is redrawn. */
  let frozen = 0;
  let drawn = 0;
  const render = (l: Line, widths: [number, number]) =>
    `${l.logicalId.padEnd(widths[0])}  ${l.type.padEnd(widths[1])}  ${l.status}${l.reason ? `  ${l.reason}` : ''}`;
  return {
    add(events) {
      let changed = false;
      for (const e of events) {
        if (seen.has(e.eventId)) continue;
        seen.add(e.eventId);
        let line = byId.get(e.logicalId);
        if (!line) {
          line = { logicalId: e.logicalId, type: e.type, status: e.status };
          byId.set(e.logicalId, line);
          lines.push(line);
        }
        line.status = e.status;
        if (e.reason !== undefined) line.reason = e.reason;
        else delete line.reason;
        changed = true;
      }
      if (!changed) return;
      const widths: [number, number] = [
        Math.max(...lines.map((l) => l.logicalId.length)),
        Math.max(...lines.map((l) => l.type.length)),
      ];
      // A live block taller than the screen cannot be redrawn: its top lines are printed for good.
      const room = Math.max(1, (stream.rows || 24) - 1); // a pty may report 0 rows
      let out = drawn > 0 ? `\x1b[${drawn}A` : '';
      let start = frozen;
      while (start < lines.length && (SETTLED.test(lines[start]!.status) || lines.length - start > room))
        start++;
      for (let i = frozen; i < lines.length; i++) out += `\r\x1b[2K${render(lines[i]!, widths)}\n`;
      drawn = lines.length - start;
      frozen = start;
      stream.write(out);
    },
  };
}

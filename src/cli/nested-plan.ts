/**
 * @module A plan's nested stacks in the CLI's table: each nested stack's own changes listed after its
 * change, their logical ids under its (`Shop/Widget`), through every level; one planned only when it
 * is deployed says why.
 */

/** A planned change as the CLI reads it, with what it says of a nested stack's own changes. */
interface Change {
  logicalId: string;
  nested?: { changes: Change[] } | { notPlanned: string };
}

/** `changes` with every nested stack's planned changes after its own, named `<nested>/<logicalId>`. */
export function withNestedChanges<T extends Change>(changes: T[], prefix = ''): T[] {
  return changes.flatMap((c) => {
    const own = { ...c, logicalId: `${prefix}${c.logicalId}` };
    const nested = (c.nested && 'changes' in c.nested ? c.nested.changes : []) as T[];
    return [own, ...withNestedChanges(nested, `${own.logicalId}/`)];
  });
}

/** Lines naming the nested stacks a plan could not plan now, and why. */
export function notPlannedLines(changes: Change[]): string[] {
  const lines = withNestedChanges(changes).flatMap((c) =>
    c.nested && 'notPlanned' in c.nested ? [`  ${c.logicalId}: ${c.nested.notPlanned}`] : [],
  );
  return lines.length > 0 ? ['', 'Nested stacks planned when deployed:', ...lines] : [];
}

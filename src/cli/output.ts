/**
 * @module Terminal output helpers shared by commands.
 */

/** A one-line progress indicator on a TTY; silent elsewhere (CI logs, pipes). */
export function progressLine(
  stream: NodeJS.WriteStream,
  label: string,
): {
  update(done: number, total: number): void;
  clear(): void;
} {
  if (!stream.isTTY) return { update() {}, clear() {} };
  let last = 0;
  let shown = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - last < 50) return;
      last = now;
      shown = true;
      const width = 24;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
    },
    clear() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}

export function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * Two texts shortened to `width` characters each around where they first differ, so that what
 * differs shows: `{"a":1,…,"z":2}` and `{"a":1,…,"z":3}` cut to one prefix would look alike.
 * What is cut is marked `…` at either end.
 */
export function aroundDifference(a: string, b: string, width = 40): [string, string] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  // A little of what they share before the difference, as context.
  const from = Math.max(0, start - Math.floor(width / 4));
  const cut = (text: string) => {
    if (text.length <= width) return text;
    const begin = Math.min(from, text.length - width + 1);
    const head = begin > 0 ? '…' : '';
    const room = width - head.length;
    const rest = text.slice(begin);
    return head + (rest.length > room ? `${rest.slice(0, room - 1)}…` : rest);
  };
  return [cut(a), cut(b)];
}

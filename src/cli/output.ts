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

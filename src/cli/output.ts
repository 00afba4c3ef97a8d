/**
 * @module Terminal output helpers shared by commands.
 */
import type { Command } from 'commander';
import { EXIT, UsageError } from './usage.js';

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

/** A note on stderr for each file a folder held that is no type document, saying what it is. */
export function noteSkipped(skipped: readonly { file: string; reason: string }[]): void {
  for (const { file, reason } of skipped) process.stderr.write(`note: skipped ${file}: ${reason}\n`);
}

export function plural(n: number, word: string): string {
  return `${grouped(n)} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * `1489` → `1,489`, as `toLocaleString('en-US')` writes a whole number, without loading the locale
 * data, which cost `typeplane validate` 15 ms to print its summary.
 */
function grouped(n: number): string {
  return Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ',') : n.toLocaleString('en-US');
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

/** The `--query` of this run, once its expression is known to parse. */
let query: { expression: string; search(value: unknown): unknown; text: boolean; used: boolean } | undefined;

/**
 * `--query <JMESPath>`, as the aws CLI has it: what the command prints is what the expression selects
 * from its data (the JSON that `-o json` prints). With `-o json` or `-o yaml` the selection is printed
 * in that format; otherwise as text, for the shell: a string bare, a list one item a line (a list of
 * lists tab-separated), an object as JSON. The expression is checked before the command sends
 * anything, so a typo never follows a create.
 */
export function withQuery(command: Command): Command {
  return command
    .option(
      '--query <JMESPath>',
      "print what this JMESPath expression selects from the data (e.g. 'properties.Size'); text unless -o json|yaml",
    )
    .hook('preAction', async (_, run) => {
      const options = run.opts<{ query?: string; output?: string }>();
      if (options.query === undefined) return;
      const jmespath = (await import('jmespath')).default as typeof import('jmespath') & {
        compile(expression: string): unknown;
      };
      try {
        jmespath.compile(options.query);
      } catch (e) {
        run.error(
          `error: --query '${options.query}' is not a JMESPath expression: ${(e as Error).message} (see https://jmespath.org/tutorial.html)`,
          { exitCode: EXIT.usage, code: 'typeplane.query' },
        );
      }
      const text = options.output !== 'json' && options.output !== 'yaml';
      // The selection is made from the data, which the table forms do not print.
      if (text) run.setOptionValue('output', 'json');
      query = {
        expression: options.query,
        search: (v) => jmespath.search(v, options.query!),
        text,
        used: false,
      };
    })
    .hook('postAction', () => {
      if (query && !query.used && process.exitCode === EXIT.ok)
        process.stderr.write('note: --query selected nothing: this command printed no data\n');
    });
}

/**
 * What `--query` selects from `value`, printed as `format` says; undefined when there is no
 * `--query` (the command prints `value` as usual). An expression that fails on the data (a function
 * given the wrong type) is a usage error.
 */
export function queried(value: unknown): { text: string } | { value: unknown } | undefined {
  if (!query) return undefined;
  query.used = true;
  let selected: unknown;
  try {
    selected = query.search(value);
  } catch (e) {
    throw new UsageError(`--query '${query.expression}': ${(e as Error).message}`);
  }
  return query.text ? { text: asText(selected) } : { value: selected };
}

function asText(value: unknown): string {
  const scalar = (v: unknown) => (v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  if (!Array.isArray(value)) return scalar(value);
  return value.map((item) => (Array.isArray(item) ? item.map(scalar).join('\t') : scalar(item))).join('\n');
}

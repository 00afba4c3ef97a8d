// The node:test reporter scripts/run-tests.mjs prints with: Node's own (spec on a terminal, else
// TAP), each test located in its .ts file. Tests run from the TypeScript mirror (scripts/ts-mirror.mjs),
// and node:test takes a test's location from V8, without source maps, so it would name the mirror.
import { Readable } from 'node:stream';
import { spec, tap } from 'node:test/reporters';
import { sourceOf } from './ts-source-map.cjs';

async function* located(source) {
  for await (const event of source) {
    const data = event.data;
    yield typeof data?.file === 'string'
      ? { ...event, data: { ...data, ...sourceOf(data.file, data.line, data.column) } }
      : event;
  }
}

export default async function* sourceReporter(source) {
  if (process.stdout.isTTY) yield* Readable.from(located(source)).pipe(new spec());
  else yield* tap(located(source));
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressLine } from '../../src/cli/output.js';

function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  return {
    stream: { isTTY, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream,
    written,
  };
}

test('progress is drawn on a terminal and cleared at the end', () => {
  const { stream, written } = fakeStream(true);
  const progress = progressLine(stream, 'validating');
  progress.update(1, 1500);
  progress.update(1500, 1500);
  progress.clear();
  assert.match(written[0]!, /^\rvalidating \[\.+\] 1\/1500$/);
  assert.match(written.at(-2)!, /^\rvalidating \[#{24}\] 1500\/1500$/);
  assert.equal(written.at(-1), '\r\x1b[2K');
});

test('nothing is drawn when output is not a terminal (CI logs, pipes)', () => {
  const { stream, written } = fakeStream(false);
  const progress = progressLine(stream, 'validating');
  progress.update(1, 2);
  progress.clear();
  assert.deepEqual(written, []);
});

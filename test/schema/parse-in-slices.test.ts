/**
 * A server parses YAML in slices: a document near the token limit costs tens of milliseconds to
 * read (more on a slow machine), and a writer may send many at once, so the server's parse gives the
 * event loop a turn every few milliseconds instead of holding it for the whole document. What it
 * reads, or refuses, is exactly what one uninterrupted parse gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { LIMITS, parseSource, parseSourceYielding } from '../../src/schema/index.js';
import { finish, finishYielding, type Steps } from '../../src/schema/steps.js';
import { loadTemplate, loadTemplateYielding } from '../../src/stacks/template.js';
import { Registry } from '../../src/registry/registry.js';
import { openSqliteStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/service.js';

/** A valid resource schema in YAML with `count` properties: about 9 tokens each. */
function largeSchema(count: number): string {
  const lines = ['typeName: Test::Slices::Wide', 'description: many properties', 'properties:'];
  for (let i = 0; i < count; i++) lines.push(`  P${i}:`, '    type: string', `    description: p ${i}`);
  lines.push('primaryIdentifier: [/properties/P0]', 'additionalProperties: false');
  return `${lines.join('\n')}\n`;
}

/** An anchored list aliased until its expansion passes the value limit: refused after the parse. */
function aliasedBomb(items: number, aliases: number): string {
  const list = Array.from({ length: items }, () => '  - x').join('\n');
  const uses = Array.from({ length: aliases }, (_, i) => `  k${i}: *a`).join('\n');
  return `typeName: Test::Slices::Bomb\nbig: &a\n${list}\nmore:\n${uses}\n`;
}

/** Counts the event loop's turns (setImmediate callbacks) until `work` settles. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), turns };
  } finally {
    done = true;
  }
}

test('the schema near the token limit used below is one the server accepts, and takes several steps', () => {
  const text = largeSchema(1000);
  const parsed = parseSource(text);
  assert.deepEqual(parsed.diagnostics, []);
  assert.ok(text.split(/\s+/).length < LIMITS.maxYamlTokens);
});

test('a large YAML document is parsed in slices with turns of the event loop between them', async () => {
  const text = largeSchema(1000);
  const { result, turns } = await turnsDuring(() => parseSourceYielding(text));
  assert.ok(turns >= 1, `the event loop turned ${turns} times while the document was parsed`);
  const once = parseSource(text);
  assert.deepEqual(result.diagnostics, once.diagnostics);
  assert.deepEqual(result.document?.value, once.document?.value);
  for (const pointer of ['/properties/P999/type', '/primaryIdentifier/0'])
    assert.deepEqual(result.document?.locate(pointer), once.document?.locate(pointer), pointer);
});

test('a document refused after its parse is refused the same, located the same, in slices', async () => {
  for (const text of [aliasedBomb(3000, 40), `${largeSchema(1000)}properties: again\n`]) {
    const sliced = await parseSourceYielding(text);
    const once = parseSource(text);
    assert.equal(once.document, undefined);
    assert.ok(once.diagnostics.length > 0);
    assert.deepEqual(sliced.diagnostics, once.diagnostics);
  }
});

test('steps run to their end at once, or with a turn of the event loop after every slice', async () => {
  function* counted(): Steps<number> {
    let n = 0;
    for (let i = 0; i < 5; i++) {
      n++;
      yield;
    }
    return n;
  }
  assert.equal(finish(counted()), 5);
  // A slice of 0 ms: a turn after every step.
  const { result, turns } = await turnsDuring(() => finishYielding(counted(), 0));
  assert.equal(result, 5);
  assert.ok(turns >= 5, `${turns} turns for 5 steps`);
});

test('registering a large YAML document gives the event loop turns while it is read', async (t) => {
  const store = await openSqliteStore(join(tempDir(), 'store.db'));
  t.after(() => store.close());
  const registry = new Registry(store);
  // Refused once parsed: no store write, so every turn counted is the parse's own.
  const { turns } = await turnsDuring(() =>
    registry.register(aliasedBomb(4000, 40)).then(
      () => assert.fail('the document was accepted'),
      (e: Error) => assert.match(e.message, /aliases expanded/),
    ),
  );
  assert.ok(turns >= 1, `the event loop turned ${turns} times`);
});

test('a stack template is read in slices into the same declarations', async () => {
  const resources = Array.from(
    { length: 400 },
    (_, i) => `  R${i}:\n    Type: Test::Some::Thing\n    Properties: { Name: !Sub "r-${i}", Size: ${i} }`,
  );
  const text = `Resources:\n${resources.join('\n')}\n`;
  const { result, turns } = await turnsDuring(() => loadTemplateYielding(text, 'stack.yaml'));
  assert.ok(turns >= 1, `the event loop turned ${turns} times`);
  const once = loadTemplate(text, 'stack.yaml');
  assert.deepEqual(result.diagnostics, once.diagnostics);
  const { document: sliced, ...read } = result.template!;
  const { document: whole, ...readOnce } = once.template!;
  assert.deepEqual(read, readOnce);
  assert.deepEqual(sliced.value, whole.value);
  assert.equal(read.resources.size, 400);
});

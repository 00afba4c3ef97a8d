/**
 * `serve --types` registers the documents `loadTypes` read and validated together (their cross-file
 * checks included), as they were read: not read from disk a second time, so a file changed in
 * between cannot slip in unvalidated, and not validated a second time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TypeplaneError } from '../../src/errors.js';
import { Registry } from '../../src/registry/registry.js';
import { loadTypes } from '../../src/schema/index.js';
import { tempDir } from '../helpers/service.js';
import { freshStore } from '../store/fixtures.js';

const schema = (typeName: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    typeName,
    description: 'A type read from disk.',
    properties: { Name: { type: 'string' }, ...extra },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
  });

test('documents are registered as loadTypes read them, whatever the files hold later', async (t) => {
  const dir = tempDir();
  writeFileSync(join(dir, 'a.json'), schema('Test::Disk::Alpha'));
  writeFileSync(join(dir, 'b.json'), schema('Test::Disk::Beta', { Size: { type: 'string' } }));
  const loaded = await loadTypes([dir], { keepContents: true });
  assert.ok(loaded.valid);
  assert.equal(loaded.contents?.size, 2);
  // Changed after validation: to another type, and to something invalid.
  writeFileSync(join(dir, 'a.json'), schema('Test::Disk::Other'));
  writeFileSync(join(dir, 'b.json'), '{ not json');

  const { store } = await freshStore(t);
  const registry = new Registry(store);
  const names: string[] = [];
  for (const [result, content] of loaded.contents!) {
    const { registrations } = await registry.registerValidated(content, result, { file: result.file! });
    names.push(...registrations.map((r) => `${r.record.typeName} ${r.outcome}`));
  }
  assert.deepEqual(names, ['Test::Disk::Alpha created', 'Test::Disk::Beta created']);
  const b = await store.getType('Test::Disk::Beta');
  assert.deepEqual(Object.keys((b?.model.schema as { properties: object }).properties), ['Name', 'Size']);
  assert.equal(await store.getType('Test::Disk::Other'), undefined);
});

test('without keepContents nothing is kept; an invalid result is refused with its diagnostics', async (t) => {
  const dir = tempDir();
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ typeName: 'Test::Disk::Bad' }));
  const loaded = await loadTypes([dir]);
  assert.equal(loaded.contents, undefined);
  const [result] = loaded.results;
  assert.equal(result?.valid, false);
  const { store } = await freshStore(t);
  await assert.rejects(
    new Registry(store).registerValidated(Buffer.from('{}'), result!),
    (e: unknown) => e instanceof TypeplaneError && e.code === 'InvalidRequest' && e.details.length > 0,
  );
});

/**
 * re2js is loaded the first time a pattern needs it (schema/re2js.ts): a document whose patterns the
 * native engine's screen vouches for is checked without it, in a process of its own.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';

const validate = new URL('../../src/schema/validate.ts', import.meta.url).href;

const script = `
import { createRequire } from 'node:module';
const { validateDocument } = await import(${JSON.stringify(validate)});
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/re2js/'));
const schema = (pattern) => JSON.stringify({
  typeName: 'Org::Service::Thing',
  description: 'A thing.',
  properties: { Name: { type: 'string', pattern } },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
});
const plain = validateDocument(schema('^[a-z][a-z0-9-]{0,62}$'), { file: 'plain.json' });
const before = loaded();
// RE2's quoting, which the native engine refuses: RE2 itself checks it.
const quoted = validateDocument(schema('^\\\\Qa.b\\\\E$'), { file: 'quoted.json' });
process.stdout.write(JSON.stringify({ plain: plain.valid, before, quoted: quoted.valid, after: loaded() }));
`;

describe('re2js', () => {
  it('is not loaded to check a document the native screen vouches for, and is when a pattern needs it', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    assert.deepEqual(JSON.parse(out), { plain: true, before: false, quoted: true, after: true });
  });
});

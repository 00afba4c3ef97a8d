/**
 * An identifier is in every URL, answer and log line, so it cannot be write-only: validate and
 * registration refuse it (TP2018, at the identifier, with the fix) whether the identifier itself or an
 * object holding it is write-only.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { validateDocument } from '../../src/schema/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

function schema(writeOnly: string[]): string {
  return JSON.stringify(
    {
      typeName: 'Test::Secret::Login',
      description: 'A login.',
      properties: {
        Key: { type: 'string' },
        Owner: {
          type: 'object',
          properties: { Name: { type: 'string' } },
          required: ['Name'],
          additionalProperties: false,
        },
        Password: { type: 'string' },
      },
      additionalProperties: false,
      required: ['Key', 'Owner'],
      primaryIdentifier: ['/properties/Owner/Name', '/properties/Key'],
      createOnlyProperties: ['/properties/Key', '/properties/Owner/Name'],
      writeOnlyProperties: writeOnly,
    },
    null,
    2,
  );
}

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

for (const [writeOnly, pointer] of [
  ['/properties/Key', '/primaryIdentifier/1'],
  ['/properties/Owner', '/primaryIdentifier/0'],
] as const) {
  it(`a primary identifier made write-only by ${writeOnly} is refused by validate and registration`, async () => {
    const text = schema([writeOnly, '/properties/Password']);
    const result = validateDocument(text, { file: 'login.json' });
    assert.equal(result.valid, false);
    const found = result.diagnostics.filter((d) => d.rule === 'TP2018');
    assert.equal(found.length, 1, JSON.stringify(result.diagnostics));
    assert.equal(found[0]!.pointer, pointer);
    assert.equal(found[0]!.severity, 'error');
    assert.equal(typeof found[0]!.line, 'number');
    assert.match(found[0]!.message, /remove '.*' from writeOnlyProperties/);

    const res = await svc.call('POST', '/v1/types', text);
    assert.equal(res.status, 400);
    assert.ok(
      res.body.details.some(
        (d: { rule: string; pointer: string }) => d.rule === 'TP2018' && d.pointer === pointer,
      ),
      JSON.stringify(res.body),
    );
    assert.equal(
      (await svc.call('GET', `/v1/types/${encodeURIComponent('Test::Secret::Login')}`)).status,
      404,
    );
  });
}

it('write-only properties beside the identifier are fine', async () => {
  const text = schema(['/properties/Password']);
  assert.deepEqual(validateDocument(text).diagnostics, []);
  assert.equal((await svc.call('POST', '/v1/types', text)).status, 201);
});

/**
 * Values no store keeps as given are refused in type documents, located, by validate and by
 * registration: a `__proto__` member anywhere (a `default`, a manifest property name), a lone UTF-16
 * surrogate in any string or member name, and a number too large for JSON (`1e400`).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { validateDocument } from '../../src/schema/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

/** A resource schema as JSON text, with `spec` as the schema of its Spec property. */
function schema(spec: string, typeName = 'Test::Values::Thing'): string {
  return `{
  "typeName": "${typeName}",
  "description": "A thing.",
  "properties": {
    "Name": { "type": "string" },
    "Spec": ${spec}
  },
  "additionalProperties": false,
  "required": ["Name"],
  "primaryIdentifier": ["/properties/Name"],
  "createOnlyProperties": ["/properties/Name"]
}
`;
}

async function assertRefused(
  text: string,
  contentType: string,
  expected: { rule: string; pointer: string; line: number },
): Promise<void> {
  const result = validateDocument(text, { file: 'doc' });
  assert.equal(result.valid, false);
  assert.deepEqual(
    result.diagnostics.map((d) => [d.rule, d.pointer, d.line]),
    [[expected.rule, expected.pointer, expected.line]],
  );
  const res = await fetch(`${svc.url}/v1/types`, {
    method: 'POST',
    headers: { 'content-type': contentType, authorization: `Bearer ${svc.token}` },
    body: text,
  });
  const body = (await res.json()) as { errorCode: string; details: { rule: string; pointer: string }[] };
  assert.equal(res.status, 400, JSON.stringify(body));
  assert.deepEqual(
    body.details.map((d) => [d.rule, d.pointer]),
    [[expected.rule, expected.pointer]],
  );
}

it('a default holding __proto__ is refused (it would register as {})', async () => {
  await assertRefused(
    schema('{ "type": "object", "default": { "__proto__": { "admin": true } } }'),
    'application/json',
    { rule: 'TP1015', pointer: '/properties/Spec/default/__proto__', line: 6 },
  );
});

it('a manifest property named __proto__ is refused at its name', async () => {
  const manifest = [
    'namespace: Test.Values',
    'types:',
    '  things:',
    '    description: A thing.',
    '    apiVersions:',
    "      '2025-01-01':",
    '        schema:',
    '          type: object',
    '          properties:',
    '            __proto__: { type: string }',
    '',
  ].join('\n');
  await assertRefused(manifest, 'application/yaml', {
    rule: 'TP1015',
    pointer: '/types/things/apiVersions/2025-01-01/schema/properties/__proto__',
    line: 10,
  });
});

it('a lone surrogate in a string or a member name is refused', async () => {
  await assertRefused(schema('{ "type": "string", "description": "x\\udc00" }'), 'application/json', {
    rule: 'TP1016',
    pointer: '/properties/Spec/description',
    line: 6,
  });
  await assertRefused(schema('{ "type": "string", "enum": ["ok", "\\ud800x"] }'), 'application/json', {
    rule: 'TP1016',
    pointer: '/properties/Spec/enum/1',
    line: 6,
  });
  const yaml = ['namespace: Test.Values', 'types:', '  "x\\udc00": {}', ''].join('\n');
  const result = validateDocument(yaml);
  assert.deepEqual(
    result.diagnostics.map((d) => d.rule),
    ['TP1016'],
  );
});

it('a number too large for JSON is refused rather than kept as null', async () => {
  await assertRefused(schema('{ "type": "number", "maximum": 1e400 }'), 'application/json', {
    rule: 'TP1017',
    pointer: '/properties/Spec/maximum',
    line: 6,
  });
  await assertRefused(
    ['namespace: Test.Values', 'types:', '  things:', '    description: A thing.', '    x: .inf', ''].join(
      '\n',
    ),
    'application/yaml',
    { rule: 'TP1017', pointer: '/types/things/x', line: 5 },
  );
});

it('unstorable values written in a roundabout way are refused too: escaped names, long mantissas', async () => {
  await assertRefused(
    schema('{ "type": "object", "default": { "\\u005f_\\u0070r\\u006fto__": {} } }'),
    'application/json',
    { rule: 'TP1015', pointer: '/properties/Spec/default/__proto__', line: 6 },
  );
  for (const huge of [`${'9'.repeat(250)}e99`, '9'.repeat(320), `${'9'.repeat(310)}.5`])
    await assertRefused(schema(`{ "type": "number", "maximum": ${huge} }`), 'application/json', {
      rule: 'TP1017',
      pointer: '/properties/Spec/maximum',
      line: 6,
    });
});

it('well-formed text (pairs, astral characters) and large finite numbers stay accepted', async () => {
  const text = schema(
    '{ "type": "number", "maximum": 1e300, "description": "ok 😀 \\ud83d\\ude00" }',
    'Test::Values::Fine',
  );
  assert.deepEqual(validateDocument(text).diagnostics, []);
  assert.equal((await svc.call('POST', '/v1/types', text)).status, 201);
});

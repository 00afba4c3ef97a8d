/**
 * Type versions over HTTP, on both stores: a changed schema makes a new version and the same one is a
 * no-op; a breaking change while resources exist is refused with the diff's located changes and the
 * resources that violate it, unless allowed; resources record their version; the default can move
 * (checked for breaking changes as a registration is);
 * a version in use or the default cannot be deregistered; and deregistering one type leaves others be.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { memoryProvider } from '../helpers/providers.js';
import type { TestService } from '../helpers/service.js';

const TYPE = 'Test::Versions::Widget';
const T = encodeURIComponent(TYPE);

function widget(sizes: string[], extra: Record<string, unknown> = {}, typeName = TYPE): string {
  return JSON.stringify(
    {
      typeName,
      description: 'A widget with versions.',
      properties: {
        Name: { type: 'string' },
        Size: { type: 'string', enum: sizes },
        Secret: { type: 'string' },
        ...extra,
      },
      additionalProperties: false,
      required: ['Name'],
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
      writeOnlyProperties: ['/properties/Secret'],
    },
    null,
    2,
  );
}

async function create(svc: TestService, typeName: string, desiredState: Record<string, unknown>) {
  const res = await svc.call('POST', `/v1/resources/${encodeURIComponent(typeName)}?wait=10`, {
    desiredState,
  });
  assert.equal(res.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(res.body));
}

eachStoreService('a changed schema is a new version; the same schema again is a no-op', async (svc) => {
  const first = await svc.call('POST', '/v1/types', widget(['S', 'M']));
  assert.equal(first.status, 201);
  assert.deepEqual(
    first.body.types.map((t: { version: string; outcome: string }) => [t.version, t.outcome]),
    [['1', 'created']],
  );
  const again = await svc.call('POST', '/v1/types', widget(['S', 'M']));
  assert.equal(again.status, 200);
  assert.deepEqual(
    again.body.types.map((t: { version: string; outcome: string }) => [t.version, t.outcome]),
    [['1', 'unchanged']],
  );
  const widened = await svc.call('POST', '/v1/types', widget(['S', 'M', 'L']));
  assert.equal(widened.status, 201);
  assert.equal(widened.body.types[0].version, '2');
  assert.equal(widened.body.types[0].outcome, 'new-version');
  assert.deepEqual(widened.body.types[0].changes.counts, { breaking: 0, dangerous: 0, safe: 1 });
  assert.equal(widened.body.types[0].changes.items[0].rule, 'TP6102');

  const show = await svc.call('GET', `/v1/types/${T}`);
  assert.equal(show.body.defaultVersion, '2');
  assert.equal(show.body.version, '2');
  assert.deepEqual(
    show.body.versions.map((v: { version: string; isDefault: boolean }) => [v.version, v.isDefault]),
    [
      ['1', false],
      ['2', true],
    ],
  );
  const one = await svc.call('GET', `/v1/types/${T}?version=1`);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body.schema.properties.Size.enum, ['S', 'M']);
  const missing = await svc.call('GET', `/v1/types/${T}?version=7`);
  assert.equal(missing.status, 404);
  assert.match(missing.body.message, /no version "7"; its versions are 1, 2/);
  const malformed = await svc.call('GET', `/v1/types/${T}?version=latest`);
  assert.equal(malformed.status, 400);
  assert.match(malformed.body.message, /version must be a version number/);
});

eachStoreService(
  'a breaking change while resources exist is refused with the changes and the violating resources',
  async (svc) => {
    await svc.call('POST', '/v1/types', widget(['S', 'M', 'L']));
    await create(svc, TYPE, { Name: 'a', Size: 'L', Secret: 'hunter2' });
    await create(svc, TYPE, { Name: 'b', Size: 'S' });
    await create(svc, TYPE, { Name: 'c', Size: 'L' });

    const refused = await svc.call('POST', '/v1/types', widget(['S', 'M']));
    assert.equal(refused.status, 409);
    assert.equal(refused.body.errorCode, 'ResourceConflict');
    assert.match(
      refused.body.message,
      /1 breaking change .* while 3 resources exist, 2 of the 3 checked violating the new version \(a, c\)/,
    );
    const change = refused.body.details.find((d: { rule?: string }) => d.rule === 'TP6003');
    assert.equal(change.verdict, 'breaking');
    assert.equal(change.file, 'request body');
    assert.equal(change.line, 10, 'the "enum" member of Size in the new document');
    const violations = refused.body.details.find((d: { violations?: unknown }) => d.violations).violations;
    assert.deepEqual(violations, { count: 2, checked: 3, total: 3, identifiers: ['a', 'c'] });
    // Nothing was registered.
    assert.equal((await svc.call('GET', `/v1/types/${T}`)).body.versions.length, 1);

    const allowed = await svc.call('POST', '/v1/types?allowBreaking=true', widget(['S', 'M']));
    assert.equal(allowed.status, 201, JSON.stringify(allowed.body));
    assert.equal(allowed.body.types[0].version, '2');
    assert.deepEqual(allowed.body.types[0].violations.identifiers, ['a', 'c']);
    // Reads serve the stored model, whatever the new version says of it.
    const read = await svc.call('GET', `/v1/resources/${T}/a`);
    assert.equal(read.body.properties.Size, 'L');
    const badFlag = await svc.call('POST', '/v1/types?allowBreaking=maybe', widget(['S']));
    assert.equal(badFlag.status, 400);
  },
);

eachStoreService(
  'moving the default to a version that breaks what the current one accepts is refused while resources exist, unless allowed',
  async (svc) => {
    await svc.call('POST', '/v1/types', widget(['S', 'M']));
    await svc.call('POST', '/v1/types', widget(['S', 'M', 'L']));
    await create(svc, TYPE, { Name: 'big', Size: 'L' });
    await create(svc, TYPE, { Name: 'small', Size: 'S' });

    // Version 1 takes L away: with resources of the type, that is refused as a registration would be.
    const refused = await svc.call('PUT', `/v1/types/${T}/default-version`, { version: '1' });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.errorCode, 'ResourceConflict');
    assert.match(
      refused.body.message,
      /1 breaking change .*TP6003 .* while 2 resources exist, 1 of the 2 checked violating that version \(big\).*set-default --allow-breaking/,
    );
    const change = refused.body.details.find((d: { rule?: string }) => d.rule === 'TP6003');
    assert.equal(change.verdict, 'breaking');
    assert.equal(change.pointer, '/properties/Size/enum');
    assert.equal(change.line, 10, "located in version 1's document");
    const violations = refused.body.details.find((d: { violations?: unknown }) => d.violations).violations;
    assert.deepEqual(violations, { count: 1, checked: 2, total: 2, identifiers: ['big'] });
    assert.equal((await svc.call('GET', `/v1/types/${T}`)).body.defaultVersion, '2', 'the default stayed');

    const badFlag = await svc.call('PUT', `/v1/types/${T}/default-version?allowBreaking=soon`, {
      version: '1',
    });
    assert.equal(badFlag.status, 400);
    const allowed = await svc.call('PUT', `/v1/types/${T}/default-version?allowBreaking=true`, {
      version: '1',
    });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    assert.equal(allowed.body.defaultVersion, '1');
    assert.deepEqual(allowed.body.changes.counts, { breaking: 1, dangerous: 0, safe: 0 });
    assert.deepEqual(allowed.body.violations.identifiers, ['big']);

    // Back to version 2 only widens the enum: no check stands in the way.
    const back = await svc.call('PUT', `/v1/types/${T}/default-version`, { version: '2' });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.deepEqual(back.body.changes.counts, { breaking: 0, dangerous: 0, safe: 1 });
    assert.equal(back.body.violations, undefined);
  },
);

eachStoreService(
  'a breaking change with no resources, or a write-only value missing, is no refusal',
  async (svc) => {
    await svc.call('POST', '/v1/types', widget(['S', 'M']));
    const breaking = await svc.call('POST', '/v1/types', widget(['S']));
    assert.equal(breaking.status, 201, 'no resource exists to break');
    assert.equal(breaking.body.types[0].changes.counts.breaking, 1);
    await create(svc, TYPE, { Name: 'a', Size: 'S', Secret: 'x' });
    // Secret becomes required: the stored model lacks it (it is sealed apart), which is no violation.
    const doc = JSON.parse(widget(['S'])) as { required: string[] };
    doc.required = ['Name', 'Secret'];
    const refused = await svc.call('POST', '/v1/types', JSON.stringify(doc, null, 2));
    assert.equal(refused.status, 409);
    const violations = refused.body.details.find((d: { violations?: unknown }) => d.violations).violations;
    assert.equal(violations.count, 0);
  },
);

eachStoreService('resources record their version; versions in use and the default cannot go', async (svc) => {
  await svc.call('POST', '/v1/types', widget(['S', 'M']));
  await create(svc, TYPE, { Name: 'old', Size: 'S' });
  await svc.call('POST', '/v1/types', widget(['S', 'M', 'L']));
  await create(svc, TYPE, { Name: 'new', Size: 'L' });
  await svc.call('POST', '/v1/types', widget(['S', 'M', 'L', 'XL']));
  const counts = (await svc.call('GET', `/v1/types/${T}`)).body.versions.map(
    (v: { version: string; resourceCount: number }) => [v.version, v.resourceCount],
  );
  assert.deepEqual(counts, [
    ['1', 1],
    ['2', 1],
    ['3', 0],
  ]);

  const inUse = await svc.call('DELETE', `/v1/types/${T}?version=1`);
  assert.equal(inUse.status, 409);
  assert.match(
    inUse.body.message,
    /Version 1 of Test::Versions::Widget is in use: 1 resource was last written with it/,
  );
  assert.equal(inUse.body.details[0].resourceCount, 1);
  const isDefault = await svc.call('DELETE', `/v1/types/${T}?version=3`);
  assert.equal(isDefault.status, 409);
  assert.match(isDefault.body.message, /default version .* 2 other versions/);
  assert.equal(isDefault.body.details[0].versionCount, 3);

  // An update under the default moves the resource to it; then version 1 is free to go.
  const update = await svc.call('PATCH', `/v1/resources/${T}/old?wait=10`, {
    patchDocument: [{ op: 'replace', path: '/Size', value: 'XL' }],
  });
  assert.equal(update.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(update.body));
  assert.equal((await svc.call('DELETE', `/v1/types/${T}?version=1`)).status, 204);
  assert.deepEqual(
    (await svc.call('GET', `/v1/types/${T}`)).body.versions.map((v: { version: string }) => v.version),
    ['2', '3'],
  );
  assert.equal((await svc.call('DELETE', `/v1/types/${T}?version=1`)).status, 404);
});

eachStoreService('the default version can move back, and requests are checked against it', async (svc) => {
  await svc.call('POST', '/v1/types', widget(['S', 'M']));
  await svc.call('POST', '/v1/types', widget(['S', 'M', 'L']));
  const moved = await svc.call('PUT', `/v1/types/${T}/default-version`, { version: '1' });
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  assert.equal(moved.body.defaultVersion, '1');
  const refused = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'x', Size: 'L' } });
  assert.equal(refused.status, 400);
  assert.match(refused.body.message, /must be one of S, M/);
  await create(svc, TYPE, { Name: 'x', Size: 'M' });
  const show = await svc.call('GET', `/v1/types/${T}`);
  assert.equal(show.body.versions.find((v: { version: string }) => v.version === '1').resourceCount, 1);
  const unknown = await svc.call('PUT', `/v1/types/${T}/default-version`, { version: '5' });
  assert.equal(unknown.status, 404);
  const writer = await svc.call('POST', '/v1/tokens', { role: 'writer' });
  const asWriter = await fetch(`${svc.url}/v1/types/${T}/default-version`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${writer.body.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ version: '2' }),
  });
  assert.equal(asWriter.status, 403);
});

eachStoreService(
  'deregistering one type never touches types of the same namespace or with longer names',
  async (svc) => {
    const manifest = (types: string[]) =>
      [
        'namespace: Test.Versions',
        'types:',
        ...types.flatMap((name) => [
          `  ${name}:`,
          `    description: ${name}.`,
          '    apiVersions:',
          "      '2025-01-01':",
          '        schema:',
          '          type: object',
          '          properties:',
          '            size: { type: string }',
        ]),
      ].join('\n') + '\n';
    const yaml = async (text: string) =>
      fetch(`${svc.url}/v1/types`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/yaml' },
        body: text,
      });
    assert.equal((await yaml(manifest(['widgets', 'widgetsExtra', 'gadgets']))).status, 201);
    // A second version of the longer name, so there is a version to lose.
    assert.equal(
      (
        await yaml(
          manifest(['widgetsExtra']).replace(
            'size: { type: string }',
            'size: { type: string }\n            colour: { type: string }',
          ),
        )
      ).status,
      201,
    );
    await svc.call('POST', '/v1/types', widget(['S'], {}, 'Test::Versions::Part'));
    await svc.call('POST', '/v1/types', widget(['S'], {}, 'Test::Versions::PartList'));
    await create(svc, 'Test.Versions/widgetsExtra', { name: 'e1', size: 'x' });
    await create(svc, 'Test.Versions/gadgets', { name: 'g1' });
    await create(svc, 'Test::Versions::PartList', { Name: 'p1' });

    assert.equal(
      (await svc.call('DELETE', `/v1/types/${encodeURIComponent('Test.Versions/widgets')}`)).status,
      204,
    );
    assert.equal(
      (await svc.call('DELETE', `/v1/types/${encodeURIComponent('Test::Versions::Part')}`)).status,
      204,
    );

    const names = (await svc.call('GET', '/v1/types')).body.types.map(
      (t: { typeName: string }) => t.typeName,
    );
    assert.deepEqual(names.filter((n: string) => n.startsWith('Test')).sort(), [
      'Test.Versions/gadgets',
      'Test.Versions/widgetsExtra',
      'Test::Versions::PartList',
    ]);
    const extra = await svc.call('GET', `/v1/types/${encodeURIComponent('Test.Versions/widgetsExtra')}`);
    assert.deepEqual(
      extra.body.versions.map((v: { version: string }) => v.version),
      ['1', '2'],
    );
    for (const [type, id] of [
      ['Test.Versions/widgetsExtra', 'e1'],
      ['Test.Versions/gadgets', 'g1'],
      ['Test::Versions::PartList', 'p1'],
    ] as const) {
      const read = await svc.call('GET', `/v1/resources/${encodeURIComponent(type)}/${id}`);
      assert.equal(read.status, 200, `${type} ${id}`);
    }
  },
);

for (const provided of [false, true]) {
  eachStoreService(
    `a create or update may name the version it is checked against (${provided ? 'a provider of its own' : 'state provider'})`,
    async (svc) => {
      await svc.call('POST', '/v1/types', widget(['S', 'M']));
      await svc.call('POST', '/v1/types', widget(['S', 'M', 'L']));
      const refused = await svc.call('POST', `/v1/resources/${T}?version=1`, {
        desiredState: { Name: 'v', Size: 'L' },
      });
      assert.equal(refused.status, 400);
      assert.match(refused.body.message, /must be one of S, M/);
      const created = await svc.call('POST', `/v1/resources/${T}?version=1&wait=10`, {
        desiredState: { Name: 'v', Size: 'M' },
      });
      assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
      const counts = async () =>
        (await svc.call('GET', `/v1/types/${T}`)).body.versions.map(
          (v: { version: string; resourceCount: number }) => [v.version, v.resourceCount],
        );
      assert.deepEqual(await counts(), [
        ['1', 1],
        ['2', 0],
      ]);
      const patchL = { patchDocument: [{ op: 'replace', path: '/Size', value: 'L' }] };
      assert.equal((await svc.call('PATCH', `/v1/resources/${T}/v?version=1`, patchL)).status, 400);
      const updated = await svc.call('PATCH', `/v1/resources/${T}/v?wait=10`, patchL);
      assert.equal(updated.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(updated.body));
      assert.deepEqual(await counts(), [
        ['1', 0],
        ['2', 1],
      ]);
      assert.equal(
        (await svc.call('POST', `/v1/resources/${T}?version=9`, { desiredState: { Name: 'x' } })).status,
        404,
      );
      assert.equal(
        (await svc.call('POST', `/v1/resources/${T}?version=one`, { desiredState: { Name: 'x' } })).status,
        400,
      );
    },
    () => (provided ? { providers: new Map([[TYPE, memoryProvider()]]) } : {}),
  );
}

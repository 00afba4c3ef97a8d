/**
 * Radius manifests register on a real server (SQLite, HTTP on loopback): the Radius schema design's
 * sample as written, and a built-in provider's types with empty schemas, whose warning comes back
 * with the registration.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { startTestService, type TestService } from '../helpers/service.js';

const SAMPLE = readFileSync(
  new URL('../fixtures/radius/radius-design-postgresDatabases.yaml', import.meta.url),
  'utf8',
);
const BUILT_IN = readFileSync(
  new URL('../fixtures/radius/built-in-providers/applications_core.yaml', import.meta.url),
  'utf8',
);

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

async function registerYaml(body: string) {
  const res = await fetch(`${svc.url}/v1/types`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml', authorization: `Bearer ${svc.token}` },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const resourcesOf = (typeName: string) => `/v1/resources/${encodeURIComponent(typeName)}?wait=5`;

test("the design's sample registers as written, its warning in the answer, and serves resources", async () => {
  const res = await registerYaml(SAMPLE);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.types.map(
      (t: { typeName: string; apiVersion: string; version: string }) =>
        `${t.typeName}@${t.apiVersion} version ${t.version}`,
    ),
    ['MyCompany.Resources/postgresDatabases@2025-01-01-preview version 1'],
  );
  assert.deepEqual(
    res.body.warnings.map((w: any) => `${w.severity} ${w.rule} ${w.line}:${w.column} ${w.pointer}`),
    ['warning TP3021 10:5 /types/postgresDatabases'],
  );

  const show = await svc.call(
    'GET',
    `/v1/types/${encodeURIComponent('MyCompany.Resources/postgresDatabases')}`,
  );
  assert.equal(show.status, 200);
  assert.deepEqual(show.body.readOnlyProperties, ['/properties/status']);
  assert.equal(
    show.body.schema.properties.status.properties.recipe.$ref,
    '#/definitions/typeplane:RecipeStatus',
  );

  const created = await svc.call('POST', resourcesOf('MyCompany.Resources/postgresDatabases'), {
    desiredState: { name: 'sample-db', size: 'L' },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  assert.equal(created.body.progressEvent.resourceModel.size, 'L');

  const tooBig = await svc.call('POST', resourcesOf('MyCompany.Resources/postgresDatabases'), {
    desiredState: { name: 'big-db', size: 'XXL' },
  });
  assert.equal(tooBig.status, 400, JSON.stringify(tooBig.body));
});

test('types with an empty schema register with a warning each, and take any properties', async () => {
  const res = await registerYaml(BUILT_IN);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.types.length, 7);
  const empty = res.body.warnings.filter((w: any) => w.rule === 'TP3022');
  assert.equal(empty.length, 7, 'one warning for each empty schema');
  assert.match(empty[0].message, /does not validate the properties/);
  assert.equal(empty[0].line, 11);

  const created = await svc.call('POST', resourcesOf('Applications.Core/containers'), {
    desiredState: { name: 'frontend', container: { image: 'frontend:1.25', ports: { web: 8080 } } },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  assert.deepEqual(created.body.progressEvent.resourceModel.container, {
    image: 'frontend:1.25',
    ports: { web: 8080 },
  });
});

test('a registration without warnings answers without a warnings member', async () => {
  const res = await registerYaml(
    [
      'namespace: Test.Quiet',
      'types:',
      '  notes:',
      '    description: A note.',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema:',
      '          type: object',
      '          properties:',
      '            text: { type: string }',
    ].join('\n'),
  );
  assert.equal(res.status, 201);
  assert.equal(res.body.warnings, undefined);
});

test('defaultApiVersion is the API version the type is served in', async () => {
  const manifest = (defaultVersion?: string) =>
    [
      'namespace: Test.Versions',
      'types:',
      '  notes:',
      '    description: A note.',
      ...(defaultVersion ? [`    defaultApiVersion: '${defaultVersion}'`] : []),
      '    apiVersions:',
      ...['2025-01-01', '2025-06-01', '2025-09-01'].flatMap((v) => [
        `      '${v}':`,
        '        schema:',
        '          type: object',
        '          properties:',
        '            text: { type: string }',
      ]),
    ].join('\n');
  const typeOf = async () =>
    (await svc.call('GET', `/v1/types/${encodeURIComponent('Test.Versions/notes')}`)).body;

  assert.equal((await registerYaml(manifest('2025-06-01'))).status, 201);
  const first = await typeOf();
  assert.deepEqual([first.apiVersion, first.defaultVersion], ['2025-06-01', '1']);
  // Without it, the last API version the manifest lists: served from then on, as the type's next version.
  assert.equal((await registerYaml(manifest())).status, 201);
  const second = await typeOf();
  assert.deepEqual([second.apiVersion, second.defaultVersion], ['2025-09-01', '2']);
  // The earlier version still serves the API version it was registered with.
  const earlier = await svc.call('GET', `/v1/types/${encodeURIComponent('Test.Versions/notes')}?version=1`);
  assert.equal(earlier.body.apiVersion, '2025-06-01');
});

test('types registered at start from disk log their warnings', async () => {
  const logged: { rule?: string; file?: string; line?: number; warnings?: number; msg: string }[] = [];
  const service = await startTestService({
    types: [fileURLToPath(new URL('../fixtures/radius/built-in-providers/', import.meta.url))],
    logger: pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
  });
  try {
    const listed = await service.call('GET', '/v1/types');
    assert.ok(listed.body.types.some((t: { typeName: string }) => t.typeName === 'Radius.Core/recipePacks'));
    const empty = logged.filter((l) => l.rule === 'TP3022');
    assert.ok(empty.length > 0, JSON.stringify(logged.slice(0, 3)));
    assert.match(empty[0]!.file!, /applications_core\.yaml$/);
    assert.equal(empty[0]!.line, 11);
    // 23 empty schemas and 21 types without a description: 20 logged, then a count.
    const aboutTypes = logged.filter((l) => l.rule !== undefined || l.warnings !== undefined);
    assert.equal(aboutTypes.length, 21);
    assert.equal(aboutTypes[20]!.warnings, 44);
    assert.match(aboutTypes[20]!.msg, /typeplane validate/);
  } finally {
    await service.close();
  }
});

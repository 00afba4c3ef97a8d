/**
 * Typeplane judges Radius manifests as Radius does. test/fixtures/radius/ holds one manifest per case
 * of Radius's manifest and schema-validator tests, its test data and its built-in providers, each
 * marked with Radius's verdict (`# radius: accepts|refuses`), the entry of docs/radius-differences.md
 * when Typeplane's verdict differs (`# differs: <id>`), and every diagnostic Typeplane gives
 * (`# expect: <rule> <line>:<column> "<pointer>"`; for JSON, in `<file>.expect`).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compileType } from '../../src/registry/compile.js';
import { loadTypes } from '../../src/schema/load-types.js';
import { RULES, type RuleId } from '../../src/schema/diagnostics.js';
import { validateDocument } from '../../src/schema/validate.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/radius/', import.meta.url));
const CORPUS = fileURLToPath(new URL('../../../shared/corpus/radius-manifests/', import.meta.url));
const DIFFERENCES = readFileSync(new URL('../../docs/radius-differences.md', import.meta.url), 'utf8');
// built-in-providers-dev/ holds the same manifests as built-in-providers/ with the addresses of a
// development setup, as Radius ships both.
const FOLDERS = [
  'validator',
  'manifest',
  'testdata',
  'built-in-providers',
  'built-in-providers-dev',
] as const;

interface Fixture {
  folder: string;
  file: string;
  text: string;
  radius: 'accepts' | 'refuses';
  differs?: string;
  expected: string[];
}

function fixtures(folder: string): Fixture[] {
  const dir = join(FIXTURES, folder);
  return readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      const notes = file.endsWith('.json') ? readFileSync(join(dir, `${file}.expect`), 'utf8') : text;
      const radius = /^# radius: (accepts|refuses)$/m.exec(notes)?.[1];
      assert.ok(radius, `${folder}/${file} says how Radius judges it`);
      const differs = /^# differs: (\S+)$/m.exec(notes)?.[1];
      const expected = [...notes.matchAll(/^# expect: (TP\d{4}) (\d+:\d+) (".*")$/gm)].map(
        ([, rule, at, pointer]) =>
          `${rule} ${RULES[rule as RuleId]?.severity ?? '?'} ${at} ${JSON.parse(pointer!) as string}`,
      );
      return {
        folder,
        file,
        text,
        radius: radius as Fixture['radius'],
        ...(differs ? { differs } : {}),
        expected,
      };
    });
}

function judge(fixture: Fixture): void {
  const result = validateDocument(fixture.text, { file: fixture.file });
  // (A document that is not YAML has no dialect.)
  if (!result.diagnostics.some((d) => d.rule === 'TP1006'))
    assert.equal(result.dialect, 'manifest', 'read as a manifest');
  assert.deepEqual(
    result.diagnostics.map((d) => `${d.rule} ${d.severity} ${d.line}:${d.column} ${d.pointer}`).sort(),
    [...fixture.expected].sort(),
    result.diagnostics.map((d) => `${d.line}:${d.column} ${d.rule} ${d.message}`).join('\n'),
  );
  for (const d of result.diagnostics) {
    assert.equal(d.file, fixture.file, 'each diagnostic names its file');
    assert.ok(d.line !== undefined && d.column !== undefined, 'each diagnostic is located');
    assert.ok(d.message.length > 20, 'each diagnostic says what is wrong and how to fix it');
  }
  const typeplane = result.valid ? 'accepts' : 'refuses';
  if (fixture.differs === undefined) {
    assert.equal(typeplane, fixture.radius, 'Typeplane judges it as Radius does');
  } else {
    assert.notEqual(typeplane, fixture.radius, `the difference '${fixture.differs}' is real`);
    assert.ok(
      DIFFERENCES.includes(`(\`${fixture.differs}\`)`),
      `docs/radius-differences.md explains '${fixture.differs}'`,
    );
  }
  if (!result.valid) {
    assert.deepEqual(result.types, [], 'a refused manifest defines no type');
    return;
  }
  // An accepted manifest's types compile into the engine's validators.
  for (const type of result.types) assert.doesNotThrow(() => compileType(type));
}

for (const folder of FOLDERS) {
  describe(`Radius ${folder} cases`, () => {
    for (const fixture of fixtures(folder)) {
      const verdict = fixture.differs ? `Typeplane differs (${fixture.differs})` : 'Typeplane too';
      test(`${fixture.file}: Radius ${fixture.radius}, ${verdict}`, () => judge(fixture));
    }
  });
}

test("CASES.md maps every case of Radius's tests to fixtures that exist, and names every fixture", () => {
  const cases = readFileSync(join(FIXTURES, 'CASES.md'), 'utf8');
  const named = new Set(
    [...cases.matchAll(/`((?:validator|manifest|testdata|built-in-providers)\/[\w.-]+)`/g)].map(
      ([, path]) => path!,
    ),
  );
  for (const path of named)
    assert.ok(existsSync(join(FIXTURES, path)), `CASES.md names ${path}, which exists`);
  for (const folder of ['validator', 'manifest']) {
    for (const file of readdirSync(join(FIXTURES, folder)).filter((f) => /\.(ya?ml|json)$/.test(f)))
      assert.ok(named.has(`${folder}/${file}`), `CASES.md says which case ${folder}/${file} mirrors`);
  }
  // Each row is a case with its fixtures or the reason it has none.
  assert.ok(!/\|\s*\|\s*$/m.test(cases), 'no row is left without a fixture or a reason');
});

describe("Radius's built-in providers", () => {
  // deploy/manifest/built-in-providers/self-hosted and dev/ (which differ in location addresses only).
  const mirrored = [
    'applications_core.yaml',
    'applications_dapr.yaml',
    'applications_datastores.yaml',
    'applications_messaging.yaml',
    'microsoft_resources.yaml',
    'radius_core.yaml',
  ];
  // The same files as radius-project/resource-types-contrib ships, which ../shared/corpus holds.
  const inCorpus = [
    'containerImages.yaml',
    'containers.yaml',
    'kafka.yaml',
    'models.yaml',
    'mongoDatabases.yaml',
    'mySqlDatabases.yaml',
    'objectStorage.yaml',
    'persistentVolumes.yaml',
    'postgreSqlDatabases.yaml',
    'rabbitMQ.yaml',
    'redisCaches.yaml',
    'routes.yaml',
    'search.yaml',
    'secrets.yaml',
    'sqlServerDatabases.yaml',
  ];

  test('the empty-schema providers are mirrored in the fixtures, self-hosted and dev', () => {
    for (const folder of ['built-in-providers', 'built-in-providers-dev']) {
      assert.deepEqual(
        readdirSync(join(FIXTURES, folder))
          .filter((f) => f.endsWith('.yaml'))
          .sort(),
        mirrored,
      );
    }
  });

  const skip = existsSync(CORPUS) ? false : `corpus not found at ${CORPUS}`;
  for (const file of inCorpus) {
    test(`${file} (in the corpus) is accepted`, { skip }, () => {
      const result = validateDocument(readFileSync(join(CORPUS, file)), { file });
      assert.deepEqual(
        result.diagnostics.filter((d) => d.severity === 'error'),
        [],
      );
      assert.ok(result.types.length > 0);
    });
  }

  test('a folder of manifests with an icon beside them validates, the icon ignored', async () => {
    const folder = join(FIXTURES, 'built-in-providers');
    assert.ok(
      readdirSync(folder).some((f) => f.endsWith('.svg')),
      'the folder holds an icon',
    );
    const loaded = await loadTypes([folder]);
    assert.equal(loaded.valid, true);
    assert.deepEqual(
      loaded.results.map((r) => r.file!.slice(folder.length + 1)),
      mirrored,
    );
    // 7 + 4 + 3 + 1 + 3 versions of deployments + 5.
    assert.equal(loaded.types.length, 23);
    assert.ok(
      loaded.types.some(
        (t) => t.typeName === 'Microsoft.Resources/deployments' && t.apiVersion === '2020-10-01',
      ),
    );
  });
});

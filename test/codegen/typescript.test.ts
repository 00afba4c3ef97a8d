/**
 * `typeplane generate`: TypeScript interfaces for resource models. The generated text is checked rule by
 * rule, then compiled with the TypeScript compiler (strict) next to code that uses it: a valid model
 * must compile and an invalid one must not, so the types are real. The whole AWS corpus (when present)
 * must generate a module that type-checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import * as prettier from 'prettier';
import { generateTypeScript, interfaceName } from '../../src/codegen/index.js';
import { loadTypes, validateDocument, type JsonSchema, type ResourceType } from '../../src/schema/index.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';
import { CLI } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function typeFrom(text: string, file = 'x.json'): ResourceType {
  const result = validateDocument(text, { file });
  assert.equal(result.valid, true, JSON.stringify(result.diagnostics));
  return result.types[0]!;
}

/** A hand-made normalised type, for schema shapes the dialects' validators would refuse. */
function model(schema: JsonSchema, extra: Partial<ResourceType> = {}): ResourceType {
  return {
    typeName: 'Acme::Edge::Case',
    dialect: 'resource-schema',
    description: 'Edge cases.',
    schema,
    primaryIdentifier: ['/properties/Id'],
    additionalIdentifiers: [],
    readOnlyProperties: [],
    writeOnlyProperties: [],
    createOnlyProperties: [],
    conditionalCreateOnlyProperties: [],
    deprecatedProperties: [],
    handlers: {},
    traits: { noReplace: false, references: [] },
    ...extra,
  };
}

/**
 * Type-check the generated module (`types.ts`) and a snippet using it (`use.ts`, which sees the module
 * as `T`) with a real program over a temp folder, strict options as in this repository. Returns the
 * diagnostics as `file:line message`.
 */
const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: false,
  noEmit: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  skipLibCheck: true,
  // The SDK a snippet imports is Node code: it needs Node's types, from this repository.
  typeRoots: [join(root, 'node_modules', '@types')],
  types: ['node'],
};

/**
 * One compiler host for every check: files outside the temp folders (TypeScript's libs, Node's types,
 * the SDK's sources) do not change during the run, so each is parsed once, not once per program.
 */
const host = ts.createCompilerHost(COMPILER_OPTIONS);
const parsed = new Map<string, ts.SourceFile | undefined>();
const parse = host.getSourceFile.bind(host);
host.getSourceFile = (fileName, languageVersion, ...rest) => {
  if (fileName.startsWith(join(tmpdir(), 'typeplane-codegen-')))
    return parse(fileName, languageVersion, ...rest);
  if (!parsed.has(fileName)) parsed.set(fileName, parse(fileName, languageVersion, ...rest));
  return parsed.get(fileName);
};

function typeCheck(code: string, snippet = ''): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-codegen-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(join(dir, 'types.ts'), code);
    writeFileSync(join(dir, 'use.ts'), `import type * as T from './types.js';\n${snippet}\nexport {};\n`);
    const program = ts.createProgram([join(dir, 'types.ts'), join(dir, 'use.ts')], COMPILER_OPTIONS, host);
    return ts.getPreEmitDiagnostics(program).map((d) => {
      // Files outside the temp folder (the SDK) keep their path, so they are never taken for ours.
      const name = d.file && relative(dir, d.file.fileName);
      const where = d.file
        ? `${name!.startsWith('..') ? d.file.fileName : name}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} `
        : '';
      return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const DB = JSON.stringify({
  typeName: 'Acme::Data::Db',
  description: 'A database.',
  definitions: {
    Endpoint: {
      type: 'object',
      description: 'Where to connect.',
      additionalProperties: false,
      properties: { Host: { type: 'string' }, Port: { type: 'integer' } },
    },
    Node: {
      type: 'object',
      additionalProperties: false,
      properties: {
        Name: { type: 'string' },
        Children: { type: 'array', items: { $ref: '#/definitions/Node' } },
      },
      required: ['Name'],
    },
    Rule: {
      type: 'object',
      additionalProperties: false,
      properties: { Id: { type: 'string' }, Action: { type: 'string', enum: ['allow', 'deny'] } },
      required: ['Action'],
    },
  },
  properties: {
    Name: { type: 'string', description: 'The name.' },
    Size: { type: 'string', enum: ['S', 'M', 'L', 'XL'], default: 'S' },
    Version: { type: 'string', const: 'v1' },
    Port: { type: 'integer' },
    Ratio: { type: 'number' },
    Password: { type: 'string' },
    Endpoint: { $ref: '#/definitions/Endpoint' },
    Labels: {
      type: 'object',
      additionalProperties: false,
      patternProperties: { '^[a-z]+$': { type: 'string' } },
    },
    Limits: {
      type: 'object',
      additionalProperties: false,
      patternProperties: { '^cpu': { type: 'integer' }, '^note': { type: 'string' } },
    },
    Ports: { type: 'array', items: { type: 'integer' } },
    Either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    Any: { anyOf: [{ type: 'boolean' }, { $ref: '#/definitions/Endpoint' }] },
    Both: {
      allOf: [
        { $ref: '#/definitions/Endpoint' },
        { type: 'object', additionalProperties: false, properties: { Zone: { type: 'string' } } },
      ],
    },
    Free: { type: 'object' },
    Untyped: { description: 'Anything at all.' },
    Tree: { $ref: '#/definitions/Node' },
    Rules: { type: 'array', items: { $ref: '#/definitions/Rule' } },
    Tags: { $ref: 'typeplane:Tags' },
    Nullable: { type: ['string', 'null'] },
    Mixed: { type: ['string', 'integer', 'boolean'] },
    Old: { type: 'string' },
  },
  additionalProperties: false,
  required: ['Name', 'Size'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name', '/properties/Endpoint/Host'],
  writeOnlyProperties: ['/properties/Password'],
  readOnlyProperties: ['/properties/Port', '/properties/Rules/*/Id'],
  deprecatedProperties: ['/properties/Old'],
});

test('interface names come from type names', () => {
  assert.equal(interfaceName('Typeplane::PostgreSQL::Database'), 'TypeplanePostgreSQLDatabase');
  assert.equal(interfaceName('Typeplane.Data/postgresDatabases'), 'TypeplaneDataPostgresDatabases');
  assert.equal(interfaceName('AWS::EC2::VPC'), 'AWSEC2VPC');
});

test('each schema construct maps to its TypeScript form', () => {
  const code = generateTypeScript([typeFrom(DB)], ['db.json']);
  const has = (text: string) => assert.ok(code.includes(text), `missing:\n${text}\n--- in ---\n${code}`);
  has('export interface AcmeDataDb {');
  has('  Name: string;'); // required
  has("  Size: 'S' | 'M' | 'L' | 'XL';"); // required enum
  has("  Version?: 'v1';"); // const
  has('  Port?: number;'); // integer
  has('  Ratio?: number;');
  has('  Endpoint?: AcmeDataDbEndpoint;');
  has('  Labels?: Record<string, string>;'); // patternProperties
  has('  Limits?: Record<string, number | string>;'); // several patterns
  has('  Ports?: number[];');
  has('  Either?: string | number;'); // oneOf
  has('  Any?: boolean | AcmeDataDbEndpoint;'); // anyOf
  has('  Both?: AcmeDataDbEndpoint & {\n    Zone?: string;\n  };'); // allOf
  has('  Free?: Record<string, unknown>;');
  has('  Untyped?: unknown;');
  has('  Tree?: AcmeDataDbNode;');
  has('  Rules?: AcmeDataDbRule[];');
  has('  Tags?: AcmeDataDbTags;');
  has('  Nullable?: string | null;'); // type array
  has('  Mixed?: string | number | boolean;');
  // One interface per definition used, prefixed; recursion refers to itself; built-ins by their short name.
  has('export interface AcmeDataDbNode {\n  Name: string;\n  Children?: AcmeDataDbNode[];\n}');
  has('export type AcmeDataDbTags = AcmeDataDbTag[];');
  has('export interface AcmeDataDbTag {\n  Key: string;\n  Value: string;\n}');
  has("export type AcmeDataDbIdentifier = Pick<AcmeDataDb, 'Name'>;");
  // Definitions come in the order they are first used, after the model and its identifier.
  const positions = [
    'export interface AcmeDataDb {',
    'export type AcmeDataDbIdentifier',
    'export interface AcmeDataDbEndpoint',
    'export interface AcmeDataDbNode',
    'export interface AcmeDataDbRule',
    'export type AcmeDataDbTags',
    'export interface AcmeDataDbTag',
  ].map((s) => code.indexOf(s));
  assert.ok(positions.every((p) => p >= 0));
  assert.deepEqual(
    positions,
    [...positions].sort((a, b) => a - b),
  );
});

test('TSDoc carries descriptions, read-only / write-only / create-only notes (nested ones too) and defaults', () => {
  const code = generateTypeScript([typeFrom(DB)], ['db.json']);
  const has = (text: string) => assert.ok(code.includes(text), `missing:\n${text}\n--- in ---\n${code}`);
  assert.match(code, /^\/\*\*\n \* Generated by `typeplane generate` from db\.json\.\n \* Do not edit/);
  has(
    '/**\n * A database.\n *\n * Model of the resource type `Acme::Data::Db`.\n * Primary identifier: `Name`.\n */\nexport interface AcmeDataDb {',
  );
  has('  /**\n   * The name.\n   * Create-only: cannot change after creation.\n   */\n  Name: string;');
  has("  /** @defaultValue 'S' */\n  Size: 'S' | 'M' | 'L' | 'XL';");
  has('  /** Read-only: set by the provider. */\n  Port?: number;');
  has('  /** Write-only: never returned. */\n  Password?: string;');
  has('  /** Anything at all. */\n  Untyped?: unknown;');
  has('  /** @deprecated */\n  Old?: string;');
  // Through `*` into a definition used in one place: the plain note.
  has('export interface AcmeDataDbRule {\n  /** Read-only: set by the provider. */\n  Id?: string;');
  // Into a definition used in several places: the note says where it applies.
  has(
    '/** Where to connect. */\nexport interface AcmeDataDbEndpoint {\n  /** Create-only: cannot change after creation. Applies at `/properties/Endpoint/Host`. */\n  Host?: string;',
  );
});

test('the generated module compiles, accepts a valid model and refuses invalid ones', () => {
  const code = generateTypeScript([typeFrom(DB)], ['db.json']);
  const valid = `
    export const db: T.AcmeDataDb = {
      Name: 'orders', Size: 'XL', Version: 'v1', Port: 5432, Ratio: 0.5, Password: 'secret',
      Endpoint: { Host: 'db', Port: 5432 }, Labels: { team: 'a' }, Limits: { cpu: 2, note: 'n' }, Ports: [1, 2],
      Either: 3, Any: { Host: 'h' }, Both: { Host: 'h', Zone: 'z' }, Free: { anything: [1, 'x'] },
      Untyped: 42, Tree: { Name: 'root', Children: [{ Name: 'leaf', Children: [] }] },
      Rules: [{ Id: 'r1', Action: 'deny' }], Tags: [{ Key: 'k', Value: 'v' }], Nullable: null, Mixed: true,
    };
    export const id: T.AcmeDataDbIdentifier = { Name: 'orders' };`;
  assert.deepEqual(typeCheck(code, valid), []);

  const invalid: Record<string, string> = {
    'wrong enum literal': `{ Name: 'n', Size: 'XXL' }`,
    'missing required property': `{ Size: 'S' }`,
    'wrong const': `{ Name: 'n', Size: 'S', Version: 'v2' }`,
    'unknown property': `{ Name: 'n', Size: 'S', Colour: 'red' }`,
    'wrong map value': `{ Name: 'n', Size: 'S', Limits: { cpu: true } }`,
    'wrong nested enum': `{ Name: 'n', Size: 'S', Rules: [{ Action: 'maybe' }] }`,
    'wrong recursive member': `{ Name: 'n', Size: 'S', Tree: { Name: 'r', Children: [{ Name: 1 }] } }`,
    'wrong union member': `{ Name: 'n', Size: 'S', Either: true }`,
  };
  for (const [what, literal] of Object.entries(invalid)) {
    const diagnostics = typeCheck(code, `export const db: T.AcmeDataDb = ${literal};`);
    assert.equal(diagnostics.length, 1, `${what}: ${diagnostics.join('\n')}`);
    assert.match(diagnostics[0]!, /^use\.ts:2 /, what);
  }
  assert.match(
    typeCheck(code, `export const db: T.AcmeDataDb = ${invalid['wrong enum literal']};`)[0]!,
    /"XXL"/,
  );
});

test('manifests generate too: quoted names, nested read-only, sensitive as write-only', () => {
  const manifest = `namespace: Typeplane.Data
types:
  postgresDatabases:
    description: A PostgreSQL database.
    apiVersions:
      '2025-01-01-preview':
        schema:
          type: object
          properties:
            size: { type: string, enum: [S, M, L, XL], default: S }
            password: { type: string, x-radius-sensitive: true }
            labels: { type: object, additionalProperties: { type: string } }
            connection-string: { type: string, readOnly: true }
            status:
              type: object
              properties:
                ready: { type: boolean, readOnly: true }
          required: [size]
`;
  const type = typeFrom(manifest, 'db.yaml');
  const code = generateTypeScript([type], ['db.yaml']);
  const has = (text: string) => assert.ok(code.includes(text), `missing:\n${text}\n--- in ---\n${code}`);
  has('export interface TypeplaneDataPostgresDatabases {');
  has('Model of the resource type `Typeplane.Data/postgresDatabases` (API version 2025-01-01-preview).');
  has("  size: 'S' | 'M' | 'L' | 'XL';");
  has('  /** Write-only: never returned. */\n  password?: string;');
  has('  labels?: Record<string, string>;'); // additionalProperties schema
  has("  /** Read-only: set by the provider. */\n  'connection-string'?: string;");
  has('    /** Read-only: set by the provider. */\n    ready?: boolean;');
  has("export type TypeplaneDataPostgresDatabasesIdentifier = Pick<TypeplaneDataPostgresDatabases, 'name'>;");
  assert.deepEqual(
    typeCheck(
      code,
      `export const a: T.TypeplaneDataPostgresDatabases = { name: 'db', size: 'M', 'connection-string': 'x', status: { ready: true } };`,
    ),
    [],
  );
  const bad = typeCheck(
    code,
    `export const a: T.TypeplaneDataPostgresDatabases = { name: 'db', size: 'XXL' };`,
  );
  assert.equal(bad.length, 1, bad.join('\n'));
  assert.match(bad[0]!, /"XXL"/);
});

test('types whose names collide get their API version; without one, a number', () => {
  const manifest = (version: string) =>
    `namespace: Acme.Apps\ntypes:\n  apps:\n    description: An app.\n    apiVersions:\n      '${version}':\n        schema:\n          type: object\n          properties:\n            size: { type: string, enum: [S, M] }\n`;
  const a = typeFrom(manifest('2025-01-01'), 'a.yaml');
  const b = typeFrom(manifest('2025-02-01-preview'), 'b.yaml');
  const single = generateTypeScript([a], ['a.yaml']);
  assert.match(single, /export interface AcmeAppsApps \{/);
  const code = generateTypeScript([a, b], ['a.yaml', 'b.yaml']);
  assert.match(code, /export interface AcmeAppsApps20250101 \{/);
  assert.match(code, /export interface AcmeAppsApps20250201Preview \{/);
  assert.match(code, /export type AcmeAppsApps20250201PreviewIdentifier = /);
  assert.match(code, /Generated by `typeplane generate` from:\n \* {3}a\.yaml\n \* {3}b\.yaml\n/);
  const twins = generateTypeScript(
    [
      model({ properties: {} }, { typeName: 'Acme::Apps::Apps' }),
      model({ properties: {} }, { typeName: 'Acme.Apps/apps' }),
    ],
    ['x'],
  );
  assert.match(twins, /export interface AcmeAppsApps \{/);
  assert.match(twins, /export interface AcmeAppsApps2 \{/);
  assert.deepEqual(typeCheck(code + twins.replace(/^\/\*\*[\s\S]*?\*\/\n/, '')), []);
});

test('edge cases: tuples, local refs, recursive maps, literals, odd names, comments, identifiers', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      Id: { type: 'string' },
      Pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
      Parent: { $ref: '#' },
      Copy: { $ref: '#/properties/Id' },
      Deep: { $ref: '#/definitions/Wrapper/properties/Inner' },
      Json: { $ref: '#/definitions/Json' },
      Headers: { $ref: '#/definitions/Headers' },
      Choice: { enum: [1, "it's", true, null] },
      Shape: { type: 'object', const: { kind: 'circle', 'r-1': [1, 2] } },
      Nothing: { type: 'object', additionalProperties: false },
      Constrained: { type: 'string', anyOf: [{ pattern: '^a' }, { enum: ['b'] }] },
      Narrowed: { type: 'string', oneOf: [{ enum: ['a', 'b'] }, { enum: ['c'] }] },
      Comment: { type: 'string', description: 'Ends a comment */ early, not.\nSecond line.' },
      Impossible: false,
      Under: { $ref: '#/definitions/a_b' },
      Collide: { $ref: '#/definitions/AB' },
      Mixed: {
        type: 'object',
        properties: { Fixed: { type: 'string' } },
        additionalProperties: { type: 'number' },
      },
    },
    required: ['Id'],
    definitions: {
      Wrapper: { type: 'object', properties: { Inner: { type: 'boolean' } } },
      Json: {
        type: ['string', 'number', 'boolean', 'null', 'array', 'object'],
        items: { $ref: '#/definitions/Json' },
        additionalProperties: { $ref: '#/definitions/Json' },
      },
      Headers: { type: 'object', additionalProperties: { type: 'string' } },
      a_b: { type: 'string' },
      AB: { type: 'integer' },
      Unused: { type: 'string' },
    },
  };
  const type = model(schema, {
    primaryIdentifier: ['/properties/Id', '/properties/Parent/Id'],
    readOnlyProperties: ['/properties/Id'],
  });
  const code = generateTypeScript([type], ['edge.json']);
  const has = (text: string) => assert.ok(code.includes(text), `missing:\n${text}\n--- in ---\n${code}`);
  has('  Pair?: Array<string | number>;');
  has('  Parent?: AcmeEdgeCase;');
  has('  Copy?: string;');
  has('  Deep?: boolean;');
  has('  Json?: AcmeEdgeCaseJson;');
  has(
    'export type AcmeEdgeCaseJson =\n  string | number | boolean | null | AcmeEdgeCaseJson[] | { [key: string]: AcmeEdgeCaseJson };',
  );
  has('export interface AcmeEdgeCaseHeaders {\n  [key: string]: string;\n}');
  has("  Choice?: 1 | 'it\\'s' | true | null;");
  has("  Shape?: { kind: 'circle'; 'r-1': [1, 2] };");
  has('  Nothing?: Record<string, never>;');
  has('  Constrained?: string;');
  has("  Narrowed?: 'a' | 'b' | 'c';");
  has('   * Ends a comment *\\/ early, not.\n   * Second line.');
  has('  Impossible?: never;');
  has('  Under?: AcmeEdgeCaseAB;');
  has('  Collide?: AcmeEdgeCaseABDefinition;');
  has('  Mixed?: {\n    Fixed?: string;\n    [key: string]: unknown;\n  };');
  assert.doesNotMatch(code, /Unused/);
  has(
    "export type AcmeEdgeCaseIdentifier = Pick<AcmeEdgeCase, 'Id'> & {\n  Parent: {\n    Id: NonNullable<NonNullable<AcmeEdgeCase['Parent']>['Id']>;\n  };\n};",
  );
  assert.deepEqual(
    typeCheck(
      code,
      `export const a: T.AcmeEdgeCase = { Id: 'x', Pair: ['a', 1], Parent: { Id: 'p' }, Json: { a: [1, 'b', null, { c: true }] }, Headers: { h: 'v' }, Choice: "it's", Shape: { kind: 'circle', 'r-1': [1, 2] }, Nothing: {}, Narrowed: 'c', Mixed: { Fixed: 'f', other: 1 } };
       export const id: T.AcmeEdgeCaseIdentifier = { Id: 'x', Parent: { Id: 'p' } };`,
    ),
    [],
  );
  // An identifier only a composition branch declares cannot be picked; it is still required.
  const branchOnly = generateTypeScript(
    [
      model(
        {
          type: 'object',
          properties: { A: { type: 'string' } },
          required: ['A'],
          oneOf: [{ properties: { Ghost: { type: 'string' } } }, { type: 'object', required: ['A'] }],
        },
        { primaryIdentifier: ['/properties/A', '/properties/Ghost'] },
      ),
    ],
    ['edge.json'],
  );
  assert.match(branchOnly, /export interface AcmeEdgeCase \{\n {2}A: string;\n\}/);
  assert.match(
    branchOnly,
    /export type AcmeEdgeCaseIdentifier = Pick<AcmeEdgeCase, 'A'> & \{\n {2}Ghost: unknown;\n\};/,
  );
  assert.deepEqual(
    typeCheck(branchOnly, `export const id: T.AcmeEdgeCaseIdentifier = { A: 'a', Ghost: 'g' };`),
    [],
  );
  // A provider-set identifier is optional in the model but not in the identifier.
  const optional = generateTypeScript(
    [model(schema, { primaryIdentifier: ['/properties/Copy'] })],
    ['edge.json'],
  );
  assert.match(optional, /export type AcmeEdgeCaseIdentifier = Required<Pick<AcmeEdgeCase, 'Copy'>>;/);
});

test('output is deterministic and already formatted (prettier leaves it as it is)', async () => {
  const { types, valid } = await loadTypes([join(root, 'examples')], { cwd: root });
  assert.equal(valid, true);
  const code = generateTypeScript(types, ['examples']);
  assert.equal(generateTypeScript(types, ['examples']), code);
  assert.doesNotMatch(code, /\t| +\n/);
  const config = JSON.parse(readFileSync(join(root, '.prettierrc.json'), 'utf8')) as prettier.Options;
  assert.equal(await prettier.format(code, { ...config, parser: 'typescript' }), code);
  for (const name of [
    'TypeplanePostgreSQLDatabase',
    'TypeplaneDataPostgresDatabases',
    'TypeplaneMessagingQueues',
    'TypeplaneLocalFile',
  ]) {
    assert.match(code, new RegExp(`export interface ${name} \\{`));
    assert.match(code, new RegExp(`export type ${name}Identifier = Pick<${name}, '`));
  }
});

test('handlers can use the generated types with the provider SDK', () => {
  const code = generateTypeScript([typeFrom(DB)], ['db.json']);
  const sdk = join(root, 'src/providers/sdk.js');
  // defineProvider<T> types every handler's desiredState; the progress builders take the interface.
  const provider = (body: string) => `
    import { defineProvider, progress } from ${JSON.stringify(sdk)};
    export default defineProvider<T.AcmeDataDb>({
      name: 'dbs',
      types: ['Acme::Data::Db'],
      async create({ desiredState }) {
        const size: 'S' | 'M' | 'L' | 'XL' = desiredState.Size;
        const made: T.AcmeDataDb = { ...desiredState, Port: size === 'XL' ? 6432 : 5432 };
        if (size === 'S') return progress.inProgress(made, { callbackContext: { step: 1 } });
        return progress.success(made);
      },
      async read({ desiredState }) {
        ${body}
        return progress.success(desiredState);
      },
      async update({ desiredState, previousState }) {
        return progress.success({ ...previousState, ...desiredState });
      },
      async delete() {
        return progress.success();
      },
      async list() {
        return progress.list([] as T.AcmeDataDb[], null);
      },
    });`;
  // Everything the snippet pulls in type-checks, the SDK's own files included.
  assert.deepEqual(typeCheck(code, provider('const name: string | undefined = desiredState.Name;')), []);
  // A read gets a model holding at least the identifier: other properties may be absent.
  const partial = typeCheck(code, provider("const size: 'S' | 'M' | 'L' | 'XL' = desiredState.Size;"));
  assert.equal(partial.length, 1, partial.join('\n'));
  assert.match(partial[0]!, /^use\.ts:\d+ Type .*undefined.* is not assignable/s);
  // A property the schema does not declare is an error.
  const unknown = typeCheck(code, provider('const x = desiredState.NoSuchProperty;'));
  assert.equal(unknown.length, 1, unknown.join('\n'));
  assert.match(unknown[0]!, /Property 'NoSuchProperty' does not exist/);
});

test(
  'the whole AWS corpus generates a module that type-checks',
  { timeout: 300_000, skip: corpusSkip() },
  async () => {
    const { types, valid, results } = await loadTypes([AWS_CORPUS]);
    assert.equal(valid, true);
    assert.equal(types.length, results.length);
    const code = generateTypeScript(types, ['aws-resource-schemas']);
    assert.equal((code.match(/^ \* Model of the resource type /gm) ?? []).length, types.length);
    assert.deepEqual(typeCheck(code).slice(0, 20), []);
  },
);

test('the CLI writes a file, refuses invalid input without writing, and reports usage errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-generate-'));
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [...CLI, 'generate', ...args], {
      encoding: 'utf8',
      cwd: root,
    });
  try {
    const out = join(dir, 'types.ts');
    const ok = cli('examples', '--out', out);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout, '');
    assert.match(ok.stderr, /wrote 8 types to /);
    const written = readFileSync(out, 'utf8');
    assert.match(written, /export interface TypeplaneDataPostgresDatabases \{/);
    assert.match(written, /export interface TypeplanePostgreSQLDatabase \{/);
    assert.match(written, /from:\n \* {3}examples\/postgresDatabases\.yaml\n/);
    assert.deepEqual(typeCheck(written), []);

    // Without --out: the module on standard output.
    const toStdout = cli('examples/queues.yaml');
    assert.equal(toStdout.status, 0, toStdout.stderr);
    assert.match(
      toStdout.stdout,
      /^\/\*\*\n \* Generated by `typeplane generate` from examples\/queues\.yaml\./,
    );
    assert.match(toStdout.stdout, /export interface TypeplaneMessagingQueues \{/);

    // An invalid input: diagnostics as `validate` prints them, exit 1, the old file left alone.
    writeFileSync(join(dir, 'bad.json'), '{"typeName": "x"}');
    writeFileSync(join(dir, 'keep.ts'), 'previous\n');
    const bad = cli('examples', join(dir, 'bad.json'), '--out', join(dir, 'keep.ts'));
    assert.equal(bad.status, 1);
    assert.match(
      bad.stderr,
      /bad\.json:1:1 {2}error {4}TP2002 {2}the resource schema must have 'description'/,
    );
    assert.match(bad.stderr, /nothing generated/);
    assert.equal(bad.stdout, '');
    assert.equal(readFileSync(join(dir, 'keep.ts'), 'utf8'), 'previous\n');
    const fresh = cli(join(dir, 'bad.json'), '--out', join(dir, 'new.ts'));
    assert.equal(fresh.status, 1);
    assert.equal(existsSync(join(dir, 'new.ts')), false);
    assert.equal(cli(join(dir, 'missing.json')).status, 1);

    // Usage errors.
    assert.equal(cli().status, 2);
    assert.equal(cli('examples', '--out').status, 2);
    assert.equal(cli('examples', '--bogus').status, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Hook schemas are checked like resource schemas (every problem at once, each with its rule, pointer,
 * line and column); configurations are checked against the hook's schema, every problem by pointer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkHookSchema,
  hookApplies,
  parseHookConfiguration,
  pathOf,
  targetMatches,
  type HookDefinition,
} from '../../src/policy/hooks/index.js';
import { TypeplaneError } from '../../src/errors.js';

const SCHEMA = {
  typeName: 'Acme::Policy::RequireTags',
  description: 'Resources must carry a tag',
  typeConfiguration: {
    properties: {
      Tag: { type: 'string', default: 'costCenter' },
      ApiKey: { type: 'string' },
    },
    additionalProperties: false,
  },
  additionalProperties: false,
  handlers: {
    preCreate: { targetNames: ['Acme::Storage::*'], permissions: [] },
    preDelete: { targetNames: ['Acme::Storage::Buck?t'], permissions: [] },
  },
};

function hook(): HookDefinition {
  const checked = checkHookSchema(JSON.stringify(SCHEMA));
  assert.equal(checked.valid, true, JSON.stringify(checked.diagnostics));
  return checked.hook!;
}

const configured = (hookConfiguration: Record<string, unknown>) => ({
  CloudFormationConfiguration: { HookConfiguration: hookConfiguration },
});

test('a hook schema in CloudFormation shape is valid and keeps its handlers and settings schema', () => {
  const h = hook();
  assert.equal(h.typeName, 'Acme::Policy::RequireTags');
  assert.deepEqual(h.handlers.preCreate, { targetNames: ['Acme::Storage::*'], permissions: [] });
  assert.equal(h.handlers.preUpdate, undefined);
  assert.equal(h.typeConfiguration.type, 'object');
});

test('every problem of a hook schema is reported at once, located', () => {
  const text = `{
  "typeName": "Acme::Policy",
  "description": "d",
  "properties": {},
  "typeConfiguration": { "properties": { "Tag": { "type": "strin" } } },
  "additionalProperties": false,
  "handlers": { "create": {}, "preUpdate": { "targetNames": ["a b"] } }
}`;
  const { valid, diagnostics } = checkHookSchema(text, { file: 'hook.json' });
  assert.equal(valid, false);
  const seen = diagnostics.map((d) => `${d.line}:${d.column} ${d.rule} ${d.pointer}`);
  assert.deepEqual(seen, [
    '2:15 TP2001 /typeName',
    '4:3 TP8002 /properties',
    '5:24 TP2035 /typeConfiguration',
    '5:59 TP1010 /typeConfiguration/properties/Tag/type',
    '7:17 TP8003 /handlers/create',
    '7:44 TP8003 /handlers/preUpdate',
    '7:62 TP8004 /handlers/preUpdate/targetNames/0',
  ]);
  assert.ok(diagnostics.every((d) => d.file === 'hook.json'));
  assert.match(diagnostics[4]!.message, /did you mean 'preCreate'/);
  assert.match(diagnostics[2]!.message, /additionalProperties/);
});

test('a hook schema without handlers or typeConfiguration says what to add', () => {
  const { diagnostics } = checkHookSchema(
    JSON.stringify({ typeName: 'Acme::Policy::Empty', description: 'd', additionalProperties: false }),
  );
  assert.deepEqual(
    diagnostics.map((d) => d.rule),
    ['TP8001', 'TP8001'],
  );
  assert.match(diagnostics.map((d) => d.message).join('\n'), /typeConfiguration.*\n.*handlers/);
  const none = checkHookSchema(JSON.stringify({ ...SCHEMA, handlers: {} }));
  assert.deepEqual(
    none.diagnostics.map((d) => d.rule),
    ['TP8005'],
  );
});

test('a configuration is read in CloudFormation shape, with defaults applied to its Properties', () => {
  const settings = parseHookConfiguration(
    hook(),
    configured({
      HookInvocationStatus: 'ENABLED',
      FailureMode: 'WARN',
      TargetOperations: ['RESOURCE', 'STACK'],
      TargetFilters: { Actions: ['CREATE'], TargetNames: ['Acme::Storage::Bucket'] },
      TimeoutInSeconds: 3,
    }),
  );
  assert.deepEqual(settings, {
    enabled: true,
    failureMode: 'WARN',
    properties: { Tag: 'costCenter' },
    actions: ['CREATE'],
    targetNames: ['Acme::Storage::Bucket'],
    targetOperations: ['RESOURCE', 'STACK'],
    timeoutMs: 3000,
    includeWriteOnlyValues: false,
  });
  // CloudFormation's older switch.
  assert.equal(
    parseHookConfiguration(hook(), configured({ TargetStacks: 'NONE', FailureMode: 'FAIL' })).enabled,
    false,
  );
});

test('every problem of a configuration is named by its pointer, never by the value given', () => {
  const secret = 'sk-very-secret-value';
  let error: unknown;
  try {
    parseHookConfiguration(
      hook(),
      configured({
        HookInvocationStatus: 'ON',
        FailureMode: 'fail',
        Properties: { Tag: 5, ApiKey: 7, Other: secret },
        TargetFilters: { Actions: ['MAKE'] },
        TimeoutInSeconds: 600,
        TargetOperations: ['STACKS'],
      }),
    );
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof TypeplaneError);
  assert.equal(error.code, 'InvalidRequest');
  const root = '/CloudFormationConfiguration/HookConfiguration';
  const pointers = error.details.map((d) => d.pointer);
  for (const p of [
    `${root}/HookInvocationStatus`,
    `${root}/FailureMode`,
    `${root}/TargetOperations`,
    `${root}/Properties/Tag`,
    `${root}/Properties/ApiKey`,
    `${root}/TargetFilters/Actions`,
    `${root}/TimeoutInSeconds`,
  ])
    assert.ok(pointers.includes(p), `${p} among ${pointers.join(', ')}`);
  assert.ok(!error.message.includes(secret));
  assert.ok(!JSON.stringify(error.details).includes(secret));
});

test('targetNames match with * and ?, and the configuration narrows them', () => {
  assert.equal(targetMatches('Acme::Storage::*', 'Acme::Storage::Bucket'), true);
  assert.equal(targetMatches('Acme::*::Bucket', 'Acme::Storage::Bucket'), true);
  assert.equal(targetMatches('Acme::Storage::Buck?t', 'Acme::Storage::Bucket'), true);
  assert.equal(targetMatches('Acme::Storage::Buck?t', 'Acme::Storage::Buckt'), false);
  assert.equal(targetMatches('Acme::Storage::*', 'Acme::Queue::Queue'), false);
  assert.equal(targetMatches('*', 'Applications.Datastores/redisCaches'), true);
  assert.equal(targetMatches('*a*a*a*a*b', 'a'.repeat(256)), false);

  const h = hook();
  const on = parseHookConfiguration(h, configured({ HookInvocationStatus: 'ENABLED', FailureMode: 'FAIL' }));
  assert.equal(hookApplies(h, on, 'CREATE', 'Acme::Storage::Bucket', 'RESOURCE'), true);
  assert.equal(
    hookApplies(h, on, 'UPDATE', 'Acme::Storage::Bucket', 'RESOURCE'),
    false,
    'no preUpdate handler',
  );
  assert.equal(hookApplies(h, on, 'DELETE', 'Acme::Storage::Bucket', 'RESOURCE'), true);
  assert.equal(hookApplies(h, on, 'DELETE', 'Acme::Storage::Volume', 'RESOURCE'), false);
  const narrowed = parseHookConfiguration(
    h,
    configured({
      HookInvocationStatus: 'ENABLED',
      FailureMode: 'FAIL',
      TargetFilters: { Actions: ['DELETE'] },
    }),
  );
  assert.equal(hookApplies(h, narrowed, 'CREATE', 'Acme::Storage::Bucket', 'RESOURCE'), false);
  assert.equal(hookApplies(h, narrowed, 'DELETE', 'Acme::Storage::Bucket', 'RESOURCE'), true);
  const off = parseHookConfiguration(
    h,
    configured({ HookInvocationStatus: 'DISABLED', FailureMode: 'FAIL' }),
  );
  assert.equal(hookApplies(h, off, 'CREATE', 'Acme::Storage::Bucket', 'RESOURCE'), false);
});

test('TargetOperations name the paths a hook judges: RESOURCE by default, as CloudFormation', () => {
  const h = hook();
  const paths = ['RESOURCE', 'STACK', 'CHANGE_SET', 'CLOUD_CONTROL'] as const;
  const judged = (targetOperations?: string[]) => {
    const settings = parseHookConfiguration(
      h,
      configured({
        HookInvocationStatus: 'ENABLED',
        FailureMode: 'FAIL',
        ...(targetOperations ? { TargetOperations: targetOperations } : {}),
      }),
    );
    return paths.filter((path) => hookApplies(h, settings, 'CREATE', 'Acme::Storage::Bucket', path));
  };
  // A stack's resources are resources; a plan previews the hooks its deployment will meet.
  assert.deepEqual(judged(), ['RESOURCE', 'STACK', 'CHANGE_SET']);
  assert.deepEqual(judged(['RESOURCE']), ['RESOURCE', 'STACK', 'CHANGE_SET']);
  assert.deepEqual(judged(['STACK']), ['STACK', 'CHANGE_SET']);
  assert.deepEqual(judged(['CHANGE_SET']), ['CHANGE_SET']);
  assert.deepEqual(judged(['CLOUD_CONTROL']), ['CLOUD_CONTROL']);
  assert.deepEqual(judged(['RESOURCE', 'CLOUD_CONTROL']), [
    'RESOURCE',
    'STACK',
    'CHANGE_SET',
    'CLOUD_CONTROL',
  ]);
  for (const wrong of [[], ['STACKS'], 'RESOURCE'])
    assert.throws(
      () => judged(wrong as string[]),
      (e: TypeplaneError) =>
        e.details.some(
          (d) => d.pointer === '/CloudFormationConfiguration/HookConfiguration/TargetOperations',
        ),
    );

  // The path of a review: its caller says where the change comes from.
  const caller = { id: 't', canSee: () => true };
  assert.equal(pathOf({ caller }), 'RESOURCE');
  assert.equal(pathOf({}), 'RESOURCE');
  assert.equal(pathOf({ caller: { ...caller, stack: 'shop' } }), 'STACK');
  assert.equal(pathOf({ caller: { ...caller, stack: 'shop' }, dryRun: true }), 'CHANGE_SET');
  assert.equal(pathOf({ caller: { ...caller, cloudControl: true } }), 'CLOUD_CONTROL');
});

test('a hook may take no settings; then any Properties given are refused by name', () => {
  const checked = checkHookSchema(
    JSON.stringify({ ...SCHEMA, typeConfiguration: { properties: {}, additionalProperties: false } }),
  );
  assert.equal(checked.valid, true, JSON.stringify(checked.diagnostics));
  const none = parseHookConfiguration(
    checked.hook!,
    configured({ HookInvocationStatus: 'ENABLED', FailureMode: 'FAIL' }),
  );
  assert.deepEqual(none.properties, {});
  assert.throws(
    () =>
      parseHookConfiguration(
        checked.hook!,
        configured({ HookInvocationStatus: 'ENABLED', FailureMode: 'FAIL', Properties: { Tag: 'x' } }),
      ),
    (e: TypeplaneError) =>
      e.details[0]!.pointer === '/CloudFormationConfiguration/HookConfiguration/Properties/Tag',
  );
});

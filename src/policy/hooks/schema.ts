/**
 * @module A hook's schema: CloudFormation's hook definition (`typeName`, `description`,
 * `typeConfiguration`, `handlers.preCreate|preUpdate|preDelete` with `targetNames` and
 * `permissions`), checked with located diagnostics, every problem at once.
 *
 * The hook-level keys are checked here; `typeConfiguration` (with the `definitions` its `$ref`s
 * point into) is checked by the resource schema dialect itself, as a resource schema's
 * `typeConfiguration` is, so both take the same settings schemas with the same rules.
 */
import { HOOK_ACTIONS, type HookAction } from '../../handler/index.js';
import { compileType } from '../../registry/index.js';
import { diagnostic, hasErrors, type Diagnostic, type RuleId } from '../../schema/diagnostics.js';
import { placeFindings, type Finding } from '../../schema/finding.js';
import { checkResourceSchema } from '../../schema/resource-schema/index.js';
import { parseSource, type SourceFormat } from '../../schema/source.js';
import type { JsonSchema } from '../../schema/index.js';
import type { ErrorDetail } from '../../errors.js';
import type { Model } from '../../model/index.js';

export interface HookHandlerDefinition {
  /** Globs of the resource type names the handler judges (`*` any run, `?` one character). */
  targetNames: string[];
  permissions: string[];
}

export interface HookDefinition {
  typeName: string;
  description: string;
  handlers: Partial<Record<HookAction, HookHandlerDefinition>>;
  /** The settings' schema; `{}`-like (no properties) hooks take an empty `Properties`. */
  typeConfiguration: JsonSchema;
  /** The document as registered, to show back. */
  document: Record<string, unknown>;
}

export interface HookSchemaCheck {
  valid: boolean;
  diagnostics: Diagnostic[];
  /** Present only when valid. */
  hook?: HookDefinition;
}

/** Keys CloudFormation's hook meta-schema allows at the top. */
const KNOWN_KEYS = new Set([
  '$schema',
  '$id',
  '$comment',
  'type',
  'typeName',
  'title',
  'description',
  'sourceUrl',
  'documentationUrl',
  'additionalProperties',
  'definitions',
  'handlers',
  'remote',
  'deprecatedProperties',
  'required',
  'allOf',
  'anyOf',
  'oneOf',
  'typeConfiguration',
]);
const REQUIRED_KEYS = ['typeName', 'description', 'typeConfiguration', 'additionalProperties', 'handlers'];

export const HOOK_TYPE_NAME = /^[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}$/;

/** Characters of type names, `*` and `?`: CloudFormation's target name wildcards. */
const TARGET_GLOB = /^[A-Za-z0-9_.:/*?-]{1,256}$/;
export const MAX_TARGET_NAMES = 64;

/**
 * Check a hook schema (JSON or YAML text); diagnostics carry line and column.
 *
 * @example
 * const { valid, diagnostics, hook } = checkHookSchema(text, { file: 'require-tags.json' });
 */
export function checkHookSchema(
  input: string | Uint8Array,
  options: { file?: string; format?: SourceFormat } = {},
): HookSchemaCheck {
  const parsed = parseSource(input, options);
  if (!parsed.document) return { valid: false, diagnostics: parsed.diagnostics };
  const document = parsed.document;
  const findings = hookFindings(document.value);
  const diagnostics = placeFindings(findings, document);
  if (hasErrors(diagnostics)) return { valid: false, diagnostics };
  return { valid: true, diagnostics, hook: hookDefinition(document.value as Record<string, unknown>) };
}

function hookFindings(value: unknown): Finding[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [
      diagnostic(
        'TP1010',
        '',
        'a hook schema is an object: typeName, description, typeConfiguration, handlers',
      ),
    ];
  const doc = value as Record<string, unknown>;
  const findings: Finding[] = [];
  const add = (rule: RuleId, pointer: string, message: string, target?: 'key') =>
    findings.push({ ...diagnostic(rule, pointer, message), ...(target ? { target } : {}) });
  for (const key of REQUIRED_KEYS)
    if (!(key in doc)) add('TP8001', '', `a hook schema must have '${key}'${requiredAdvice(key)}`);
  for (const key of Object.keys(doc))
    if (!KNOWN_KEYS.has(key))
      add(
        'TP8002',
        `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        key === 'properties'
          ? "a hook has no properties of its own: its settings go in 'typeConfiguration.properties'"
          : `unknown key '${key}' in a hook schema (see CloudFormation's hook definition: typeName, description, typeConfiguration, handlers, …)`,
        'key',
      );
  if ('typeName' in doc && (typeof doc.typeName !== 'string' || !HOOK_TYPE_NAME.test(doc.typeName)))
    add(
      'TP2001',
      '/typeName',
      "a hook's typeName must be three parts of 2 to 64 letters or digits joined by '::', like 'Acme::Policy::RequireTags'",
    );
  if ('type' in doc && doc.type !== 'HOOK')
    add('TP1010', '/type', '\'type\' of a hook schema must be "HOOK"');
  if ('description' in doc && typeof doc.description !== 'string')
    add('TP1010', '/description', "'description' must be a string: what the hook checks");
  if ('additionalProperties' in doc && doc.additionalProperties !== false)
    add('TP1010', '/additionalProperties', "top-level 'additionalProperties' must be false");
  findings.push(...handlerFindings(doc.handlers));
  findings.push(...configurationFindings(doc));
  return findings;
}

function requiredAdvice(key: string): string {
  switch (key) {
    case 'typeConfiguration':
      return ': the settings an admin configures, e.g. { "properties": {}, "additionalProperties": false }';
    case 'handlers':
      return ': preCreate, preUpdate and/or preDelete, each with targetNames and permissions';
    case 'additionalProperties':
      return ': add "additionalProperties": false';
    default:
      return '';
  }
}

function handlerFindings(handlers: unknown): Finding[] {
  if (handlers === undefined) return [];
  const findings: Finding[] = [];
  const add = (rule: RuleId, pointer: string, message: string, target?: 'key') =>
    findings.push({ ...diagnostic(rule, pointer, message), ...(target ? { target } : {}) });
  if (typeof handlers !== 'object' || handlers === null || Array.isArray(handlers)) {
    add('TP8003', '/handlers', "'handlers' must be an object of preCreate, preUpdate and/or preDelete");
    return findings;
  }
  const entries = Object.entries(handlers as Record<string, unknown>);
  if (entries.length === 0)
    add('TP8005', '/handlers', 'a hook needs at least one handler: preCreate, preUpdate or preDelete');
  for (const [action, handler] of entries) {
    const at = `/handlers/${action.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!(HOOK_ACTIONS as readonly string[]).includes(action)) {
      add(
        'TP8003',
        at,
        `'${action}' is not a hook handler (a hook has preCreate, preUpdate and preDelete)${/^(create|update|delete)$/.test(action) ? `; did you mean 'pre${action[0]!.toUpperCase()}${action.slice(1)}'?` : ''}`,
        'key',
      );
      continue;
    }
    if (typeof handler !== 'object' || handler === null || Array.isArray(handler)) {
      add('TP8003', at, `${action} must be an object with targetNames and permissions`);
      continue;
    }
    const h = handler as Record<string, unknown>;
    for (const key of Object.keys(h))
      if (key !== 'targetNames' && key !== 'permissions')
        add(
          'TP8003',
          `${at}/${key}`,
          `unknown key '${key}' in ${action} (it takes targetNames and permissions)`,
          'key',
        );
    for (const key of ['targetNames', 'permissions'])
      if (!(key in h))
        add('TP8003', at, `${action} must have '${key}'${key === 'permissions' ? ' (may be [])' : ''}`);
    if (
      'permissions' in h &&
      !(Array.isArray(h.permissions) && h.permissions.every((p) => typeof p === 'string'))
    )
      add('TP8003', `${at}/permissions`, `${action}.permissions must be a list of strings (may be [])`);
    if ('targetNames' in h) {
      const names = h.targetNames;
      if (!Array.isArray(names) || names.length === 0) {
        add(
          'TP8003',
          `${at}/targetNames`,
          `${action}.targetNames must list at least one resource type name or glob, like 'Acme::Storage::*'`,
        );
      } else if (names.length > MAX_TARGET_NAMES) {
        add(
          'TP8003',
          `${at}/targetNames`,
          `${action}.targetNames may list at most ${MAX_TARGET_NAMES} names`,
        );
      } else {
        names.forEach((name, i) => {
          if (typeof name !== 'string' || !TARGET_GLOB.test(name))
            add(
              'TP8004',
              `${at}/targetNames/${i}`,
              `${typeof name === 'string' ? `'${name.slice(0, 80)}'` : 'a target name'} is not a type name or glob: use the characters of type names with '*' (any run) and '?' (one character), like 'Acme::Storage::*'`,
            );
        });
      }
    }
  }
  return findings;
}

/**
 * `typeConfiguration` (and the `definitions` it refers to) checked by the resource schema dialect:
 * a stand-in resource schema around them, whose findings at those two keys point at the same places
 * in the hook's document.
 */
function configurationFindings(doc: Record<string, unknown>): Finding[] {
  if (!('typeConfiguration' in doc)) return [];
  const standIn = standInSchema(doc);
  const { findings } = checkResourceSchema(standIn);
  return findings.filter(
    (f) =>
      /^\/(typeConfiguration|definitions)(\/|$)/.test(f.pointer) &&
      // A hook may take no settings (`"properties": {}`), as many of CloudFormation's do.
      !(f.rule === 'TP2035' && f.pointer === '/typeConfiguration/properties' && takesNoSettings(doc)),
  );
}

function takesNoSettings(doc: Record<string, unknown>): boolean {
  const configuration = doc.typeConfiguration as { properties?: unknown } | undefined;
  const settings = configuration?.properties;
  // An empty object only: `[]` is not a settings' schema, and the dialect's rules say so.
  return (
    typeof settings === 'object' &&
    settings !== null &&
    !Array.isArray(settings) &&
    Object.keys(settings).length === 0
  );
}

function standInSchema(doc: Record<string, unknown>): Record<string, unknown> {
  return {
    typeName: 'Typeplane::Hook::Settings',
    description: 'the settings of a hook',
    properties: { Id: { type: 'string' } },
    primaryIdentifier: ['/properties/Id'],
    readOnlyProperties: ['/properties/Id'],
    additionalProperties: false,
    ...(takesNoSettings(doc) ? {} : { typeConfiguration: doc.typeConfiguration }),
    ...('definitions' in doc ? { definitions: doc.definitions } : {}),
  };
}

/** The definition of a schema that passed {@link checkHookSchema} (as registered, or read back). */
export function hookDefinition(doc: Record<string, unknown>): HookDefinition {
  const handlers: HookDefinition['handlers'] = {};
  for (const [action, handler] of Object.entries(doc.handlers as Record<string, HookHandlerDefinition>))
    handlers[action as HookAction] = {
      targetNames: [...handler.targetNames],
      permissions: [...handler.permissions],
    };
  const { types } = checkResourceSchema(standInSchema(doc));
  return {
    typeName: doc.typeName as string,
    description: doc.description as string,
    handlers,
    typeConfiguration: types[0]!.typeConfiguration ?? NO_SETTINGS,
    document: doc,
  };
}

const NO_SETTINGS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

const settingsTypes = new WeakMap<HookDefinition, (value: Model) => ErrorDetail[]>();

/** The problems of `properties` against the hook's `typeConfiguration` (defaults applied in place). */
export function settingsProblems(hook: HookDefinition, properties: Model): ErrorDetail[] {
  let validate = settingsTypes.get(hook);
  if (!validate) {
    const type = checkResourceSchema(standInSchema(hook.document)).types[0]!;
    validate =
      compileType(type).validateConfiguration ??
      ((value) =>
        Object.keys(value).map((name) => ({
          pointer: `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
          message: 'is not a setting of this hook: it declares none',
        })));
    settingsTypes.set(hook, validate);
  }
  return validate(properties);
}

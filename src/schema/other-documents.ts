/**
 * @module What a JSON or YAML file that is no type document is, when it is something Typeplane knows
 * or plainly not a type: folders of types also hold stack templates, hook schemas, the output of
 * `typeplane generate`, a type's configuration. A folder walk skips them; named on their own, they
 * are still errors (TP1008), saying what they are.
 */
import { yaml } from './packages.js';

/** Keys only type documents have (not `name`, `description` or `required`, which many files do). */
const TYPE_DOCUMENT_KEYS = new Set([
  'properties',
  'definitions',
  'primaryIdentifier',
  'additionalIdentifiers',
  'readOnlyProperties',
  'writeOnlyProperties',
  'createOnlyProperties',
  'handlers',
  'typeConfiguration',
  'tagging',
  'namespace',
  'apiVersions',
]);

/** A hook's handlers (CloudFormation's hook definition); a resource schema's are create, read, …. */
const HOOK_HANDLERS = new Set(['preCreate', 'preUpdate', 'preDelete']);

/** What a hook schema is said to be where types are looked for. */
export const HOOK_SCHEMA =
  'a hook schema, not a type document: register it with `typeplane hook register` (`typeplane validate` checks it)';

/**
 * Whether `value` has a hook schema's shape: `"type": "HOOK"`, or a handler named preCreate,
 * preUpdate or preDelete. It has a `typeName` too, but is no resource type.
 */
export function isHookSchema(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { type, handlers } = value as Record<string, unknown>;
  if (type === 'HOOK') return true;
  return (
    typeof handlers === 'object' &&
    handlers !== null &&
    !Array.isArray(handlers) &&
    Object.keys(handlers).some((name) => HOOK_HANDLERS.has(name))
  );
}

/** What a stack template is said to be where types are looked for. */
export const STACK_TEMPLATE = 'this is a stack template: use `typeplane stack validate`';

/** What `text` is instead of a type document, or undefined when it may be a broken one. */
export function otherDocument(text: string): string | undefined {
  let value: unknown;
  try {
    // Tags such as !Ref are a template's own: read past them quietly.
    value = yaml().parse(text, { logLevel: 'silent' });
  } catch {
    return undefined;
  }
  if (Array.isArray(value))
    return value.every((t) => typeof t === 'object' && t !== null && '$type' in t)
      ? 'Bicep types (as `typeplane generate bicep` writes), not a type document'
      : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const doc = value as Record<string, unknown>;
  if (isHookSchema(doc)) return HOOK_SCHEMA;
  // What names a dialect is a type document, however broken.
  if ('typeName' in doc || 'types' in doc || 'namespace' in doc) return undefined;
  if ('AWSTemplateFormatVersion' in doc || (typeof doc.Resources === 'object' && doc.Resources !== null))
    return STACK_TEMPLATE;
  if ('resources' in doc && 'settings' in doc)
    return 'a Bicep extension index (as `typeplane generate bicep` writes), not a type document';
  if (typeof doc.$schema === 'string' && /json-schema\.org/.test(doc.$schema))
    return 'a JSON Schema (as `typeplane generate json-schema` writes), not a type document';
  // Settings and the like (a type configuration, package.json); a type document with a misspelt
  // key still has others of its dialect, and stays an error.
  if (!Object.keys(doc).some((key) => TYPE_DOCUMENT_KEYS.has(key)))
    return 'no key of a resource schema or a manifest, not a type document';
  return undefined;
}

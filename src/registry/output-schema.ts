/**
 * @module The schema a provider's answer is checked against: the model's shape with every presence
 * rule taken out, as the handler contract says ("every keyword EXCEPT required, dependencies,
 * propertyNames").
 *
 * A provider may leave out any property (write-only ones are never returned, optional ones may be
 * unset), so `required` goes everywhere, nested too, and with it `dependencies` (both forms) and
 * `propertyNames`, which the contract leaves out as well. So do the other rules that only say which
 * members must or must not be present, because they stop making sense once `required` is gone:
 * - `oneOf` becomes `anyOf`: branches told apart by `required` would all match an answer now, and
 *   "exactly one" would fail every time;
 * - `not`, and `if`/`then`/`else`, whose subschema uses `required`: removing it would invert their
 *   meaning (`not: { required: [A] }` would refuse everything).
 * Everything about the shape of values (types, enums, patterns, lengths, `additionalProperties`) stays.
 */
import type { JsonSchema } from '../schema/model.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose value is one subschema. */
const SINGLE = ['additionalProperties', 'additionalItems', 'contains', 'not', 'if', 'then', 'else'];
/** Keywords whose value is a list of subschemas. */
const LISTS = ['allOf', 'anyOf', 'oneOf'];
/** Keywords whose value maps names to subschemas. */
const MAPS = ['properties', 'patternProperties', 'definitions', '$defs'];

/** A new schema: `schema` without presence rules. The input is not modified. */
export function outputSchema(schema: JsonSchema): JsonSchema {
  return relax(schema) as JsonSchema;
}

function relax(node: unknown): unknown {
  if (!isObject(node)) return node; // `true`/`false` schemas, or a malformed value ajv will report
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'required' || key === 'dependencies' || key === 'propertyNames') continue;
    if (SINGLE.includes(key)) setOwn(out, key, relax(value));
    else if (LISTS.includes(key)) setOwn(out, key, Array.isArray(value) ? value.map(relax) : value);
    else if (MAPS.includes(key)) setOwn(out, key, isObject(value) ? mapValues(value, relax) : value);
    else if (key === 'items') setOwn(out, key, Array.isArray(value) ? value.map(relax) : relax(value));
    // Data, not schemas: `enum`, `const`, `default`, `examples` and annotations are kept as they are.
    else setOwn(out, key, value);
  }
  if (node.not !== undefined && mentionsRequired(node.not)) delete out.not;
  if (node.if !== undefined && mentionsRequired(node.if)) {
    delete out.if;
    delete out.then;
    delete out.else;
  }
  if (out.oneOf !== undefined) {
    const branches = out.oneOf;
    delete out.oneOf;
    if (out.anyOf === undefined) out.anyOf = branches;
    else out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { anyOf: branches }];
  }
  return out;
}

function mapValues(map: Schema, fn: (v: unknown) => unknown): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(map)) setOwn(out, key, fn(value));
  return out;
}

/** Whether a subschema uses `required` anywhere (not counting data keywords). */
function mentionsRequired(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsRequired);
  if (!isObject(node)) return false;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'required') return true;
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples' || key === 'example')
      continue;
    if (MAPS.includes(key) || key === 'dependencies') {
      if (isObject(value) && Object.values(value).some((v) => !Array.isArray(v) && mentionsRequired(v)))
        return true;
      if (key === 'dependencies' && isObject(value) && Object.values(value).some(Array.isArray)) return true;
    } else if (mentionsRequired(value)) return true;
  }
  return false;
}

/** Assignment that creates an own member even for the name `__proto__`. */
function setOwn(target: Schema, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

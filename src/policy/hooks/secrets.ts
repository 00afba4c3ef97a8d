/**
 * @module What no hook verdict's message may carry: the change's write-only values (granted to the
 * hook or not), and the hook's own write-only settings — those its `typeConfiguration` marks
 * `"writeOnly": true` anywhere (under properties, items, additionalProperties, patternProperties, a
 * `$ref`, any branch of allOf/anyOf/oneOf), such as an API key for the hook's backend. A hook
 * echoing one in its message (an error from its backend, say) would tell it to whoever made the
 * change. Other settings are not masked: a hook's messages name them ("lacks the tag costCenter").
 */
import type { ReviewRequest } from '../../engine/index.js';
import { splitWriteOnly, type Model } from '../../model/index.js';
import type { JsonSchema, ResourceType } from '../../schema/index.js';

/** Shorter values are not masked in messages: they would mask ordinary words. */
const MIN_MASKED_LENGTH = 4;
/** The most `$ref`s followed from one node: a settings schema's definitions may refer in a cycle. */
const MAX_REFS = 16;
/** The most allOf/anyOf/oneOf entered at one value, for the same reason. */
const MAX_HOPS = 16;
const COMBINATORS = ['allOf', 'anyOf', 'oneOf'] as const;

/** The write-only values of the change, as text. */
export function changeSecrets(type: ResourceType, request: ReviewRequest): string[] {
  if (type.writeOnlyProperties.length === 0) return [];
  const secrets = new Set<string>();
  for (const model of [request.object, request.oldObject]) {
    if (!model) continue;
    for (const [, value] of splitWriteOnly(type, model).values) collect(value, secrets);
  }
  return [...secrets];
}

/**
 * The values of the settings `configuration` (a hook's `typeConfiguration`, its definitions with it)
 * marks write-only, as text: every scalar at or under such a setting.
 */
export function settingSecrets(configuration: JsonSchema, settings: Model): string[] {
  const secrets = new Set<string>();
  const definitions = isSchema(configuration.definitions) ? configuration.definitions : {};
  // `hops`: subschemas (allOf, anyOf, oneOf) entered without going down the value: bounded, as
  // definitions may hold one another in a cycle.
  const visit = (schema: unknown, value: unknown, hops = 0): void => {
    const node = resolved(schema, definitions);
    if (!node) return;
    if (node.writeOnly === true) return collect(value, secrets);
    // A value may match any of them: what one marks write-only is masked whichever it matched.
    if (hops < MAX_HOPS)
      for (const key of COMBINATORS) {
        const subschemas = node[key];
        if (Array.isArray(subschemas)) for (const sub of subschemas) visit(sub, value, hops + 1);
      }
    if (Array.isArray(value)) {
      for (const item of value) visit(node.items, item);
    } else if (isSchema(value)) {
      const properties = isSchema(node.properties) ? node.properties : {};
      const patterns = isSchema(node.patternProperties) ? Object.entries(node.patternProperties) : [];
      for (const [name, member] of Object.entries(value)) {
        if (Object.hasOwn(properties, name)) visit(properties[name], member);
        const matched = patterns.filter(([pattern]) => matchesPattern(pattern, name));
        for (const [, sub] of matched) visit(sub, member);
        if (!Object.hasOwn(properties, name) && matched.length === 0)
          visit(node.additionalProperties, member);
      }
    }
  };
  visit(configuration, settings);
  return [...secrets];
}

/** Whether a property name matches a patternProperties pattern (one that does not compile matches nothing). */
function matchesPattern(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(name);
  } catch {
    return false;
  }
}

const isSchema = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `schema` with its `$ref`s into `#/definitions/` followed; undefined when one leads nowhere. */
function resolved(schema: unknown, definitions: JsonSchema): JsonSchema | undefined {
  let node = schema;
  for (let i = 0; isSchema(node) && typeof node.$ref === 'string'; i++) {
    const name = i < MAX_REFS ? /^#\/definitions\/([^/]+)$/.exec(node.$ref)?.[1] : undefined;
    node = name !== undefined && Object.hasOwn(definitions, name) ? definitions[name] : undefined;
  }
  return isSchema(node) ? node : undefined;
}

function collect(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') into.add(value);
  else if (typeof value === 'number' || typeof value === 'boolean') into.add(String(value));
  else if (typeof value === 'object' && value !== null)
    for (const member of Object.values(value)) collect(member, into);
}

/** `message` with every secret (of 4 characters or more; the longest first) replaced by `***`. */
export function mask(message: string, secrets: readonly string[]): string {
  const masked = secrets.filter((s) => s.length >= MIN_MASKED_LENGTH).sort((a, b) => b.length - a.length);
  let text = message;
  for (const secret of masked) if (text.includes(secret)) text = text.split(secret).join('***');
  return text;
}

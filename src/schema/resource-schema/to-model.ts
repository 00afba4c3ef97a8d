/**
 * @module Resource schema → `ResourceType`. Called only on documents without errors.
 */
import { COMMON_REF_PREFIX, inlineCommonSchemas } from '../common.js';
import { escapePointerToken } from '../diagnostics.js';
import {
  DEFAULT_TIMEOUT_MINUTES,
  type HandlerAction,
  type HandlerSettings,
  type JsonSchema,
  type Reference,
  type ResourceType,
} from '../model.js';
import { smithyMembers, withOrigin } from './reference-origins.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);

/** Top-level keys that describe the model itself; everything else is CloudFormation metadata. */
const MODEL_KEYS = [
  'description',
  'properties',
  'definitions',
  'required',
  'allOf',
  'anyOf',
  'oneOf',
  // Validation rules on the resource as a whole (../validations.ts).
  'x-typeplane-validations',
  'x-kubernetes-validations',
] as const;

export interface ModelHints {
  usesCommonSchemas: boolean;
  hasRelationshipRefs: boolean;
}

/** `hints` come from the semantic pass, which has already seen every node: no need to walk again. */
export function resourceSchemaToModel(doc: Schema, hints: ModelHints, source?: string): ResourceType {
  const schema: JsonSchema = { type: 'object', additionalProperties: false };
  // The document is ours (freshly parsed), so the model shares its subtrees instead of copying them.
  for (const key of MODEL_KEYS) if (doc[key] !== undefined) schema[key] = doc[key];
  if (hints.usesCommonSchemas) inlineCommonSchemas(schema);

  const handlers: Partial<Record<HandlerAction, HandlerSettings>> = {};
  if (isObject(doc.handlers)) {
    for (const [action, h] of Object.entries(doc.handlers)) {
      if (!isObject(h)) continue;
      handlers[action as HandlerAction] = {
        permissions: strings(h.permissions),
        timeoutInMinutes:
          typeof h.timeoutInMinutes === 'number' ? h.timeoutInMinutes : DEFAULT_TIMEOUT_MINUTES,
      };
    }
  }

  const type: ResourceType = {
    typeName: String(doc.typeName),
    dialect: 'resource-schema',
    description: String(doc.description),
    schema,
    primaryIdentifier: strings(doc.primaryIdentifier),
    additionalIdentifiers: Array.isArray(doc.additionalIdentifiers)
      ? doc.additionalIdentifiers.map(strings)
      : [],
    readOnlyProperties: strings(doc.readOnlyProperties),
    writeOnlyProperties: strings(doc.writeOnlyProperties),
    createOnlyProperties: strings(doc.createOnlyProperties),
    conditionalCreateOnlyProperties: strings(doc.conditionalCreateOnlyProperties),
    deprecatedProperties: strings(doc.deprecatedProperties),
    handlers,
    traits: {
      noReplace: isObject(doc.traits) && doc.traits.noReplace === true,
      references: hints.hasRelationshipRefs
        ? declaredReferences(doc).concat(collectReferences(doc))
        : declaredReferences(doc),
    },
  };
  if (isObject(doc.typeConfiguration)) {
    // Its $refs point at the document's definitions: they go with it. `deprecatedProperties` is metadata.
    const { deprecatedProperties: _, ...settings } = doc.typeConfiguration;
    type.typeConfiguration = {
      ...settings,
      type: 'object',
      ...(isObject(schema.definitions) ? { definitions: schema.definitions } : {}),
    };
  }
  if (source !== undefined) type.source = source;
  return type;
}

/**
 * `traits.references`: `ids` keys are the referenced type's properties (a name or a pointer, made a
 * pointer here). Without `ids` the mapping is implicit: `ids: []`, see `Reference.ids`.
 */
function declaredReferences(doc: Schema): Reference[] {
  const list = isObject(doc.traits) && Array.isArray(doc.traits.references) ? doc.traits.references : [];
  return list.filter(isObject).map((ref, i) => {
    const at = `/traits/references/${i}`;
    const ids = Object.entries(isObject(ref.ids) ? ref.ids : {}).map(([target, member]) =>
      withOrigin(
        {
          target: target.startsWith('/') ? target : `/properties/${escapePointerToken(target)}`,
          member: String(member),
        },
        `${at}/ids/${escapePointerToken(target)}`,
      ),
    );
    return withOrigin({ typeName: String(ref.typeName), ids, ...smithyMembers(ref) }, `${at}/typeName`);
  });
}

const BRANCHES = ['allOf', 'anyOf', 'oneOf'] as const;

/** Every `relationshipRef`, with the property pointer it sits at (through `$ref`s and arrays). */
function collectReferences(doc: Schema): Reference[] {
  const references: Reference[] = [];
  const definitions = isObject(doc.definitions) ? doc.definitions : {};
  // `pointer` is the member in the model; `at` is where the node is written in the document.
  const visit = (node: unknown, pointer: string, at: string, refChain: ReadonlySet<string>): void => {
    if (!isObject(node)) return;
    const rel = node.relationshipRef;
    if (isObject(rel) && typeof rel.typeName === 'string' && typeof rel.propertyPath === 'string') {
      references.push(
        withOrigin(
          {
            typeName: rel.typeName,
            ids: [{ target: rel.propertyPath, member: pointer }],
            relationshipRef: true,
          },
          `${at}/relationshipRef/typeName`,
        ),
      );
    }
    const ref = node.$ref;
    if (
      typeof ref === 'string' &&
      ref.startsWith('#/definitions/') &&
      !ref.startsWith(`#/definitions/${COMMON_REF_PREFIX}`)
    ) {
      const name = ref.slice('#/definitions/'.length);
      // A recursive definition is followed once along each path.
      if (!refChain.has(name))
        visit(definitions[name], pointer, `/definitions/${name}`, new Set([...refChain, name]));
    }
    if (isObject(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) {
        const token = escapePointerToken(name);
        visit(child, `${pointer}/${token}`, `${at}/properties/${token}`, refChain);
      }
    }
    // Pointers are built only for the members a node has.
    if (isObject(node.items)) visit(node.items, `${pointer}/*`, `${at}/items`, refChain);
    for (const key of BRANCHES) {
      const branches = node[key];
      if (Array.isArray(branches))
        branches.forEach((b, i) => visit(b, pointer, `${at}/${key}/${i}`, refChain));
    }
  };
  if (isObject(doc.properties)) {
    for (const [name, child] of Object.entries(doc.properties)) {
      const token = escapePointerToken(name);
      visit(child, `/properties/${token}`, `/properties/${token}`, new Set());
    }
  }
  return references;
}

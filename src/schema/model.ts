/**
 * @module The one internal model both dialects normalise to.
 *
 * The engine, the store and the providers see only `ResourceType`; whether it came from a
 * CloudFormation-style resource schema or a Radius-style manifest is recorded in `dialect` and
 * nowhere else matters.
 */

export type JsonSchema = { [key: string]: unknown };

export type HandlerAction = 'create' | 'read' | 'update' | 'delete' | 'list';

export interface HandlerSettings {
  permissions: string[];
  /** Minutes the engine lets an operation run before failing it with NotStabilized. */
  timeoutInMinutes: number;
}

/**
 * A reference to a resource of another type (Smithy `references`; CloudFormation `relationshipRef`
 * is the one-property form). Each entry of `ids` says which member of this model supplies which
 * property of the referenced type — Smithy's `resourceIdentifier`: implicit when the names match.
 */
export interface Reference {
  /** The referenced type. */
  typeName: string;
  /**
   * Empty when the document gives no `ids`: the mapping is implicit, and the engine resolves it
   * against the referenced type's `primaryIdentifier` — each of its pointers `/properties/X` is
   * supplied by this model's same-named `/properties/X` (the conversion of one document cannot know
   * another type's identifier; `loadTypes` checks the names match when both are loaded).
   */
  ids: ReferenceId[];
  /**
   * Set when derived from a CloudFormation `relationshipRef`: published schemas point some of those at
   * properties the referenced type does not declare, so their targets are not checked.
   */
  relationshipRef?: true;
  /** Smithy `rel`: the name of the relationship (documentation; two references to one type tell apart by it). */
  rel?: string;
  /** Smithy `service`: the service the referenced type belongs to (documentation). */
  service?: string;
}

export interface ReferenceId {
  /**
   * Pointer of the property in the referenced type, e.g. `/properties/Name`; `''` means "its single
   * primary identifier" (a manifest property marked `x-typeplane-references: <type>`).
   */
  target: string;
  /** Pointer of the member in this model that holds its value, e.g. `/properties/DatabaseName` (may use `*`). */
  member: string;
}

export interface Traits {
  /** A create-or-replace (PUT) on an existing resource is refused instead of replacing it. */
  noReplace: boolean;
  references: Reference[];
}

export interface ResourceType {
  /** `Org::Service::Resource` or `Namespace.Area/typeName`. */
  typeName: string;
  /** Manifest API version (`2025-08-01-preview`), or `undefined` for resource schemas (one version). */
  apiVersion?: string;
  dialect: 'resource-schema' | 'manifest';
  description: string;
  /**
   * Draft-07 JSON Schema of the resource model (an object schema with `properties` and, where used,
   * `definitions`), free of the dialect's own annotations.
   */
  schema: JsonSchema;
  /** JSON pointers (`/properties/Name`) making up the primary identifier, in order. */
  primaryIdentifier: string[];
  additionalIdentifiers: string[][];
  readOnlyProperties: string[];
  writeOnlyProperties: string[];
  createOnlyProperties: string[];
  conditionalCreateOnlyProperties: string[];
  deprecatedProperties: string[];
  handlers: Partial<Record<HandlerAction, HandlerSettings>>;
  traits: Traits;
  /**
   * Draft-07 JSON Schema of the settings an operator sets per type (a resource schema's
   * `typeConfiguration`, a manifest type's `x-typeplane-configuration`): an object schema, closed,
   * with the document's `definitions` when it refers to them. Absent when the type takes none.
   */
  typeConfiguration?: JsonSchema;
  /** Where it was defined, for messages. */
  source?: string;
}

/** Default operation timeout when a schema declares none (CloudFormation's default is 120). */
export const DEFAULT_TIMEOUT_MINUTES = 120;

/**
 * @module Which properties of a type are synthesized, decided once per type.
 *
 * - Every read-only property (`readOnlyProperties`, nested ones too: a nested one only where the
 *   object holding it is there, or is itself read-only and synthesized) — but those also write-only
 *   (never returned) and pointers naming no declared property.
 * - Names CloudFormation generates when a template leaves them out: a top-level string property
 *   that is neither required, read-only nor write-only, and either is the type's only primary
 *   identifier (a role's `RoleName`, a bucket's `BucketName`), or is create-only and names the
 *   resource itself: `Name`, `<Kind>Name`, or `<X>Name` where the type's last part ends with X (a
 *   SecurityGroup's `GroupName`, a Queue's `QueueName`) — never one naming another resource, such
 *   as a DBInstance's `DBSubnetGroupName`.
 * - The parts of a compound primary identifier a caller may leave out (writable, not required): the
 *   service derives them, as a scaling policy's `ScalableDimension` from its `ScalingTargetId`.
 * - What the service chooses when the caller does not: a top-level `AvailabilityZone` that is
 *   neither required nor read-only (EC2, RDS, Redshift, Neptune … place the resource in one, and
 *   templates read it back: `!GetAtt Instance.AvailabilityZone`).
 */
import { resolverOf } from '../../model/index.js';
import type { ResourceType } from '../../schema/index.js';

export interface Plan {
  /** Top-level names generated when the caller leaves them out. */
  names: string[];
  /**
   * Top-level parts of the primary identifier synthesized when absent: the read-only ones, and a
   * compound identifier's writable ones that are not required.
   */
  identifierParts: string[];
  /** Top-level writable properties the service chooses a value for when none is given. */
  chosen: string[];
  /** The other read-only pointers, parents before their members. */
  readOnly: string[];
  /** The top-level property holding the resource's own name, if any (given or generated). */
  nameProperty: string | undefined;
  /** The type's only primary identifier property, if it has one. */
  identifierProperty: string | undefined;
  /** Whether names are written in lower case (services that refuse or fold capitals: S3, RDS …). */
  lowerCaseNames: boolean;
}

/** Services whose resource names are lower case: S3 refuses capitals, the others fold them. */
const LOWER_CASE_SERVICES = new Set([
  'S3',
  'RDS',
  'ElastiCache',
  'Redshift',
  'DocDB',
  'Neptune',
  'MemoryDB',
  'OpenSearchService',
  'Elasticsearch',
]);

/** Properties a service gives a value of its choosing when the caller leaves them out. */
const SERVICE_CHOSEN = ['AvailabilityZone'];

type Schema = Record<string, unknown>;

const plans = new WeakMap<ResourceType, Plan>();

export function planOf(type: ResourceType): Plan {
  let plan = plans.get(type);
  if (!plan) {
    plan = makePlan(type);
    plans.set(type, plan);
  }
  return plan;
}

function makePlan(type: ResourceType): Plan {
  const top = (pointer: string) =>
    /^\/properties\/([^/]+)$/.exec(pointer)?.[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
  const readOnly = new Set(type.readOnlyProperties);
  const writeOnly = new Set(type.writeOnlyProperties.map(top));
  const createOnly = new Set(type.createOnlyProperties.map(top));
  const required = new Set((type.schema.required ?? []) as string[]);
  const kind = type.typeName.split('::').at(-1) ?? type.typeName;
  const resolver = resolverOf(type);
  const isString = (name: string) => {
    const nodes = resolver.walk(`/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`) ?? [];
    const types = nodes.map((n: Schema) => n.type).filter((t) => t !== undefined);
    return (
      types.length === 0 || types.every((t) => t === 'string' || (Array.isArray(t) && t.includes('string')))
    );
  };
  const writable = (name: string) =>
    !readOnly.has(`/properties/${name}`) && !writeOnly.has(name) && isString(name);
  const ownName = (name: string) => {
    if (name === 'Name' || name === `${kind}Name`) return true;
    const stem = /^(.+)Name$/.exec(name)?.[1];
    return stem !== undefined && kind.endsWith(stem);
  };
  const properties = Object.keys(type.schema.properties ?? {});

  const soleIdentifier = type.primaryIdentifier.length === 1 ? top(type.primaryIdentifier[0]!) : undefined;
  const identifierName =
    soleIdentifier !== undefined && writable(soleIdentifier) ? soleIdentifier : undefined;
  const names = properties.filter(
    (name) =>
      !required.has(name) &&
      writable(name) &&
      (name === identifierName || (createOnly.has(name) && ownName(name))),
  );
  // Read-only parts, and of a compound identifier the writable parts a caller may leave out: the
  // service derives them (a scaling policy's ScalableDimension from its target, an ECS service's
  // Cluster is the default one), or no identifier could be made without them.
  const derived = (name: string) =>
    type.primaryIdentifier.length > 1 && !required.has(name) && writable(name);
  const identifierParts = type.primaryIdentifier
    .map((p) => [p, top(p)] as const)
    .filter(([p, name]) => name !== undefined && (readOnly.has(p) || derived(name)))
    .map(([, name]) => name!);
  const parts = new Set(identifierParts.map((name) => `/properties/${name}`));
  // A pointer that names no declared property, or one also write-only (never returned), is left alone.
  const writeOnlyPointers = new Set(type.writeOnlyProperties);
  const chosen = SERVICE_CHOSEN.filter(
    (name) =>
      properties.includes(name) && !required.has(name) && writable(name) && !identifierParts.includes(name),
  );
  return {
    names,
    identifierParts,
    chosen,
    readOnly: type.readOnlyProperties
      .filter((p) => !parts.has(p) && !writeOnlyPointers.has(p) && resolver.resolves(p))
      .sort((a, b) => a.split('/').length - b.split('/').length),
    nameProperty: identifierName ?? properties.find((name) => ownName(name) && writable(name)),
    identifierProperty: soleIdentifier,
    lowerCaseNames: LOWER_CASE_SERVICES.has(type.typeName.split('::')[1] ?? ''),
  };
}

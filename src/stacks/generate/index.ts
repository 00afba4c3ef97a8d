/**
 * @module A template generated from the resources that exist (CloudFormation's IaC generator): every
 * resource Typeplane has a record of, of the types the caller names by globs and may read, in no stack,
 * declared with its writable properties (read-only ones left out, write-only values never emitted) and
 * `DeletionPolicy`/`UpdateReplacePolicy: Retain`, as CloudFormation's generator declares them. A
 * property whose value is another resource's identifier becomes a `Ref` to it, one that is another's
 * read-only attribute a `Fn::GetAtt` — when exactly one other resource has that value, and the
 * reference makes no cycle. With the `ResourcesToImport` that brings them into a stack (import/): the
 * template validates, and imported, it plans every resource as an Import with no difference.
 */
import { TypeplaneError } from '../../errors.js';
import { globMatches } from '../../auth/index.js';
import { stripNulls, stripReadOnly, stripWriteOnly, type Model } from '../../model/index.js';
import type { ResourceType } from '../../schema/index.js';
import type { StacksCore } from '../core.js';
import type { ResourceToImport } from '../import/index.js';
import { heldKey } from '../records.js';
import { RESOURCE_PAGE_BYTES } from '../../store/index.js';
import { MAX_RESOURCES } from '../template.js';
import { refValue } from '../ref-value.js';

export interface GeneratedTemplate {
  template: {
    AWSTemplateFormatVersion: '2010-09-09';
    Description: string;
    Parameters?: Record<string, GeneratedParameter>;
    Resources: Record<string, GeneratedResource>;
  };
  resourcesToImport: ResourceToImport[];
  /** Resources of the types named that a stack holds already: left out (a resource is in one stack). */
  leftOut: { typeName: string; identifier: string; stack: string }[];
}

interface GeneratedResource {
  Type: string;
  DeletionPolicy: 'Retain';
  UpdateReplacePolicy: 'Retain';
  Properties: Record<string, unknown>;
}

interface GeneratedParameter {
  Type: 'String';
  NoEcho: true;
  Description: string;
}

/** The top-level write-only properties the type's schema requires. */
function requiredWriteOnly(type: ResourceType): string[] {
  const required = new Set(Array.isArray(type.schema.required) ? type.schema.required : []);
  return type.writeOnlyProperties
    .map((p) => /^\/properties\/([^/]+)$/.exec(p)?.[1])
    .filter((name): name is string => name !== undefined && required.has(name));
}

interface Found {
  logicalId: string;
  type: ResourceType;
  identifier: string;
  model: Model;
}

/** The most globs one request names. */
export const MAX_GLOBS = 20;
const PAGE = 500;
/** The most bytes of stored resources one template is made from. */
const MAX_BYTES = 32 * 1024 * 1024;

export async function generateTemplate(
  core: StacksCore,
  globs: readonly string[],
  visible: (typeName: string) => boolean,
): Promise<GeneratedTemplate> {
  if (globs.length === 0 || globs.length > MAX_GLOBS || globs.some((g) => g === '' || g.length > 256))
    throw new TypeplaneError(
      'InvalidRequest',
      `types: name 1 to ${MAX_GLOBS} type globs (each at most 256 characters), like 'AWS::S3::*'`,
      [{ pointer: '/query/types', message: "type globs, comma-separated: 'Typeplane::*,AWS::S3::Bucket'" }],
    );
  const names = (await core.ctx.types.names())
    .filter((n) => visible(n) && globs.some((g) => globMatches(g, n)))
    .sort();
  const found: Found[] = [];
  const taken = new Set<string>();
  let bytes = 0;
  for (const typeName of names) {
    const type = (await core.ctx.types.get(typeName))?.type;
    if (!type) continue;
    let nextToken: string | undefined;
    do {
      const page = await core.store.listResources(typeName, {
        limit: PAGE,
        maxBytes: RESOURCE_PAGE_BYTES,
        ...(nextToken ? { nextToken } : {}),
      });
      bytes += page.bytes;
      if (bytes > MAX_BYTES)
        throw new TypeplaneError(
          'InvalidRequest',
          `the resources of types matching ${globs.join(', ')} hold more than ${MAX_BYTES / 1024 / 1024} MiB; name fewer types`,
        );
      for (const r of page.items) {
        // Bounded while read: those in stacks are left out later, so twice a template's most are read.
        if (found.length >= MAX_RESOURCES * 2) throw tooMany(globs);
        found.push({
          logicalId: logicalIdOf(type, r.identifier, taken),
          type,
          identifier: r.identifier,
          model: stripNulls(stripWriteOnly(type, r.properties)),
        });
      }
      nextToken = page.nextToken;
    } while (nextToken);
  }
  const holders = await core.records.holders(
    new Set(found.map((f) => heldKey(f.type.typeName, f.identifier))),
  );
  const leftOut: GeneratedTemplate['leftOut'] = [];
  const free = found.filter((f) => {
    const holder = holders.get(heldKey(f.type.typeName, f.identifier));
    if (holder) leftOut.push({ typeName: f.type.typeName, identifier: f.identifier, stack: holder.stack });
    return !holder;
  });
  if (free.length > MAX_RESOURCES) throw tooMany(globs);
  if (free.length === 0)
    throw new TypeplaneError(
      'NotFound',
      `no resource outside a stack is of a type matching ${globs.join(', ')} (among the types your token may read)${leftOut.length > 0 ? `; ${leftOut.length} are in stacks already` : ''}`,
    );
  const linked = linkResources(free);
  const Parameters: Record<string, GeneratedParameter> = {};
  const Resources: Record<string, GeneratedResource> = {};
  for (const f of free) {
    const properties = linked.get(f.logicalId)!;
    // A required write-only value is never emitted: a NoEcho parameter stands for it, given to import.
    for (const name of requiredWriteOnly(f.type)) {
      if (Object.hasOwn(properties, name)) continue;
      const parameter = `${f.logicalId}${name.replace(/[^A-Za-z0-9]/g, '')}`.slice(0, 255);
      Parameters[parameter] = {
        Type: 'String',
        NoEcho: true,
        Description: `${name} of ${f.type.typeName} ${f.identifier}: write-only, so Typeplane never returns it; give its value to import the resource`,
      };
      properties[name] = { Ref: parameter };
    }
    Resources[f.logicalId] = {
      Type: f.type.typeName,
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: properties,
    };
  }
  return {
    template: {
      AWSTemplateFormatVersion: '2010-09-09',
      Description: `Generated by Typeplane from ${free.length} existing resource${free.length === 1 ? '' : 's'} of ${globs.join(', ')}; import them with the ResourcesToImport generated with it`,
      ...(Object.keys(Parameters).length > 0 ? { Parameters } : {}),
      Resources,
    },
    resourcesToImport: free.map((f) => ({
      LogicalResourceId: f.logicalId,
      ResourceType: f.type.typeName,
      ResourceIdentifier: identifierMembers(f.type, f.identifier),
    })),
    leftOut,
  };
}

function tooMany(globs: readonly string[]): TypeplaneError {
  return new TypeplaneError(
    'InvalidRequest',
    `more than ${MAX_RESOURCES} resources (a template's most) are of types matching ${globs.join(', ')}; name fewer types`,
  );
}

/** `Widget` + the identifier's letters and digits: unique, alphanumeric, at most 255 characters. */
function logicalIdOf(type: ResourceType, identifier: string, taken: Set<string>): string {
  const typePart = (type.typeName.split(/::|\//).pop() ?? 'Resource').replace(/[^A-Za-z0-9]/g, '');
  const idPart = identifier
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  const base = `${typePart || 'Resource'}${idPart}`.slice(0, 240);
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
  taken.add(id);
  return id;
}

/** The primary identifier's values by property name (its parts, joined by `|`, are the identifier). */
function identifierMembers(type: ResourceType, identifier: string): Record<string, string> {
  const names = type.primaryIdentifier.map((p) => p.replace(/^\/properties\//, ''));
  const values = names.length === 1 ? [identifier] : identifier.split('|');
  return Object.fromEntries(names.map((n, i) => [n, values[i] ?? '']));
}

/**
 * Each resource's writable properties, a string equal to exactly one other resource's identifier made
 * a `Ref` to it, or to exactly one other's top-level read-only attribute a `Fn::GetAtt` of it; a
 * reference that would close a cycle is left a literal value.
 */
interface Target {
  logicalId: string;
  typeName: string;
  /** Absent: the resource's identifier (a Ref), whose properties are `identifies`; else a read-only attribute (a Fn::GetAtt). */
  attribute?: string;
  identifies?: string[];
}

/**
 * The single-property references a type declares (traits `references`, CloudFormation's
 * `relationshipRef`): which of its members (a pointer pattern, `*` an item) holds what of which type.
 */
function declaredReferences(type: ResourceType): { member: RegExp; accepts: (t: Target) => boolean }[] {
  return type.traits.references.flatMap((r) => {
    if (r.ids.length !== 1) return [];
    const { member, target } = r.ids[0]!;
    const pattern = member.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]+');
    const name = target.replace(/^\/properties\//, '');
    return [
      {
        member: new RegExp(`^${pattern}$`),
        accepts: (t: Target) =>
          t.typeName === r.typeName &&
          (t.attribute === undefined
            ? target === '' || (t.identifies ?? []).join('|') === name
            : t.attribute === name),
      },
    ];
  });
}

function linkResources(found: readonly Found[]): Map<string, Record<string, unknown>> {
  const targets = new Map<string, Target[]>();
  const offer = (value: unknown, target: Target) => {
    if (typeof value !== 'string' || value === '') return;
    targets.set(value, [...(targets.get(value) ?? []), target]);
  };
  for (const f of found) {
    // What Ref gives: the identifier, or of a compound one its generated part alone (ref-value.ts).
    const ref = refValue(f.type, f.identifier, f.model);
    const referred =
      ref === f.identifier
        ? f.type.primaryIdentifier
        : f.type.primaryIdentifier.filter((p) => f.type.readOnlyProperties.includes(p));
    offer(ref, {
      logicalId: f.logicalId,
      typeName: f.type.typeName,
      identifies: referred.map((p) => p.replace(/^\/properties\//, '')),
    });
    // Its identifier's own properties are what a Ref gives: not offered again as attributes.
    for (const pointer of f.type.readOnlyProperties) {
      if (f.type.primaryIdentifier.includes(pointer)) continue;
      const name = pointer.replace(/^\/properties\//, '');
      if (!name.includes('/'))
        offer(f.model[name], { logicalId: f.logicalId, typeName: f.type.typeName, attribute: name });
    }
  }
  const edges = new Map<string, Set<string>>(found.map((f) => [f.logicalId, new Set<string>()]));
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (at === to) return true;
      if (seen.has(at)) continue;
      seen.add(at);
      stack.push(...edges.get(at)!);
    }
    return false;
  };
  const out = new Map<string, Record<string, unknown>>();
  for (const f of found) {
    const own = new Set(f.type.primaryIdentifier);
    const declared = declaredReferences(f.type);
    const link = (value: unknown, pointer: string): unknown => {
      if (Array.isArray(value)) return value.map((v, i) => link(v, `${pointer}/${i}`));
      if (typeof value === 'object' && value !== null)
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, link(v, `${pointer}/${k}`)]));
      if (typeof value !== 'string' || own.has(pointer)) return value;
      let candidates = (targets.get(value) ?? []).filter((t) => t.logicalId !== f.logicalId);
      // A type that declares its references is linked there only, to the type and property declared.
      if (declared.length > 0) {
        const reference = declared.find((d) => d.member.test(pointer));
        candidates = reference ? candidates.filter((t) => reference.accepts(t)) : [];
      }
      if (candidates.length !== 1) return value;
      const target = candidates[0]!;
      if (reaches(target.logicalId, f.logicalId)) return value; // it would close a cycle
      edges.get(f.logicalId)!.add(target.logicalId);
      return target.attribute === undefined
        ? { Ref: target.logicalId }
        : { 'Fn::GetAtt': [target.logicalId, target.attribute] };
    };
    out.set(f.logicalId, link(stripReadOnly(f.type, f.model), '/properties') as Record<string, unknown>);
  }
  return out;
}

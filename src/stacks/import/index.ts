/**
 * @module Stack import (CloudFormation's IMPORT change sets): resources Typeplane already has a record
 * of, in no stack (a retained one, an adopted one, one made through the resource API), brought into a
 * new or existing stack by identifier instead of being created. The request names, per logical id,
 * the type and the primary identifier's properties (`ResourcesToImport`: LogicalResourceId,
 * ResourceType, ResourceIdentifier); the template declares each with `DeletionPolicy: Retain`. The
 * plan shows `Import` with how the properties read differ from the template's; an import changes
 * nothing else (every other resource of the template is unchanged), as CloudFormation's.
 */
import { TypeplaneError, type ErrorDetail } from '../../errors.js';
import { identifierOf, touchesWriteOnly } from '../../model/index.js';
import type { ResourceType } from '../../schema/index.js';
import type { Analysis } from '../analyze.js';
import { plain } from '../changes.js';
import type { StacksCore } from '../core.js';
import { compare } from '../drift.js';
import { KNOWN_AFTER_APPLY } from '../intrinsics.js';
import type { PlannedChange } from '../plan.js';
import type { Authorize } from '../reach.js';
import { heldKey, type ResourceRecord } from '../records.js';
import { mask } from '../secrets.js';

/** One resource to import, as CloudFormation's `ResourcesToImport` has it. */
export interface ResourceToImport {
  LogicalResourceId: string;
  ResourceType: string;
  ResourceIdentifier: Record<string, string>;
}

/** A resource to import, checked: its identifier and its properties as its provider reports them now. */
export interface Importing {
  identifier: string;
  model: Record<string, unknown>;
}

/** Most resources one import brings in, as CloudFormation's. */
export const MAX_IMPORTS = 200;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `resourcesToImport` of a request, its shape checked (each problem located in the request). */
export function readResourcesToImport(value: unknown): ResourceToImport[] | undefined {
  if (value === undefined) return undefined;
  const problems: ErrorDetail[] = [];
  const at = (pointer: string, message: string) =>
    problems.push({ pointer: `/resourcesToImport${pointer}`, message });
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IMPORTS) {
    at(
      '',
      `a list of 1 to ${MAX_IMPORTS} resources, each {LogicalResourceId, ResourceType, ResourceIdentifier}`,
    );
    throw refused(problems);
  }
  value.forEach((item, i) => {
    if (!isObject(item))
      return at(`/${i}`, 'a mapping {LogicalResourceId, ResourceType, ResourceIdentifier}');
    for (const key of Object.keys(item))
      if (!['LogicalResourceId', 'ResourceType', 'ResourceIdentifier'].includes(key))
        at(`/${i}/${key}`, `unknown member; give LogicalResourceId, ResourceType and ResourceIdentifier`);
    if (typeof item.LogicalResourceId !== 'string' || item.LogicalResourceId === '')
      at(`/${i}/LogicalResourceId`, 'the logical id of the resource in the template (a string)');
    if (typeof item.ResourceType !== 'string' || item.ResourceType === '')
      at(`/${i}/ResourceType`, 'the type the template declares the resource with (a string)');
    const id = item.ResourceIdentifier;
    if (!isObject(id) || Object.keys(id).length === 0)
      at(
        `/${i}/ResourceIdentifier`,
        'the primary identifier: its properties and their values, {Name: value}',
      );
    else
      for (const [name, v] of Object.entries(id))
        if (typeof v !== 'string' || v === '' || v.length > 2048)
          at(`/${i}/ResourceIdentifier/${name}`, 'a non-empty string of at most 2048 characters');
  });
  if (problems.length > 0) throw refused(problems);
  return value as ResourceToImport[];
}

/**
 * The resources to import, checked against the template, the stack and what Typeplane holds: each
 * declared with its type and `DeletionPolicy: Retain`, not in the stack already, named by its whole
 * primary identifier, recorded in Typeplane (adopt it first otherwise) and in no stack. Each is read
 * through its provider (`engine.read`). Every problem found is reported at once.
 */
export async function resolveImports(
  core: StacksCore,
  name: string,
  analysis: Analysis,
  asked: readonly ResourceToImport[],
  held: ReadonlyMap<string, ResourceRecord>,
  authorize: Authorize,
): Promise<Map<string, Importing>> {
  const problems: ErrorDetail[] = [];
  const named = new Map<string, { index: number; type: ResourceType; identifier: string }>();
  const seen = new Set<string>();
  asked.forEach((item, i) => {
    const at = (member: string, message: string) =>
      problems.push({ pointer: `/resourcesToImport/${i}${member}`, message });
    const id = item.LogicalResourceId;
    const declared = analysis.resources.get(id);
    if (!declared) return at('/LogicalResourceId', `the template declares no resource '${id}'`);
    const type = declared.compiled.type;
    if (named.has(id)) return at('/LogicalResourceId', `'${id}' is named twice`);
    if (item.ResourceType !== type.typeName && item.ResourceType !== declared.declaration.type)
      return at('/ResourceType', `'${id}' is a ${type.typeName} in the template, not a ${item.ResourceType}`);
    if (declared.declaration.deletionPolicy !== 'Retain')
      at(
        '/LogicalResourceId',
        `'${id}' needs DeletionPolicy: Retain in the template${where(analysis, `/Resources/${id}`)}, as an import does in CloudFormation (so that an import rolled back, or the stack deleted, leaves the resource as it found it)`,
      );
    if (held.has(id))
      return at(
        '/LogicalResourceId',
        `'${id}' is in stack ${name} already; only resources new to the stack are imported`,
      );
    const identifier = identifierFrom(type, item.ResourceIdentifier);
    if (typeof identifier !== 'string') return at('/ResourceIdentifier', identifier.problem);
    if (seen.has(heldKey(type.typeName, identifier)))
      return at('/ResourceIdentifier', `${type.typeName} ${identifier} is named twice`);
    seen.add(heldKey(type.typeName, identifier));
    named.set(id, { index: i, type, identifier });
  });
  authorize([...new Set([...named.values()].map((n) => n.type.typeName))]);
  const holders = await core.records.holders(seen);
  const out = new Map<string, Importing>();
  for (const [logicalId, { index, type, identifier }] of named) {
    const at = (message: string) =>
      problems.push({ pointer: `/resourcesToImport/${index}/ResourceIdentifier`, message });
    const holder = holders.get(heldKey(type.typeName, identifier));
    if (holder) {
      at(
        `${type.typeName} ${identifier} is ${holder.logicalId} of stack ${holder.stack === name ? 'this stack' : holder.stack}; a resource belongs to one stack`,
      );
      continue;
    }
    try {
      const read = await core.ctx.engine.read(type.typeName, identifier);
      out.set(logicalId, { identifier: read.identifier, model: read.properties });
    } catch (e) {
      if (!(e instanceof TypeplaneError) || e.code !== 'NotFound') throw e;
      at(
        `Typeplane has no record of ${type.typeName} ${identifier}: import it from its provider first ('typeplane resource import ${type.typeName} ${identifier}')${e.message.includes('provider no longer has') ? `; ${e.message}` : ''}`,
      );
    }
  }
  if (problems.length > 0) throw refused(problems);
  return out;
}

/** The identifier `ResourceIdentifier` names: the primary identifier's values joined by `|`, in order. */
function identifierFrom(type: ResourceType, given: Record<string, string>): string | { problem: string } {
  const names = type.primaryIdentifier.map((p) => p.replace(/^\/properties\//, ''));
  const missing = names.filter((n) => given[n] === undefined);
  const extra = Object.keys(given).filter((n) => !names.includes(n));
  if (missing.length > 0 || extra.length > 0)
    return {
      problem: `${type.typeName} is identified by ${names.join(', ')}${missing.length > 0 ? `; missing: ${missing.join(', ')}` : ''}${extra.length > 0 ? `; not of its identifier: ${extra.join(', ')}` : ''}`,
    };
  return names.map((n) => given[n]).join('|');
}

/** ` (line N)` of a template pointer, when the template says where it is. */
function where(analysis: Analysis, pointer: string): string {
  const position = analysis.template.document.locate(pointer, 'key');
  return position ? ` (line ${position.line})` : '';
}

function refused(details: ErrorDetail[]): TypeplaneError {
  return new TypeplaneError(
    'InvalidRequest',
    `the resources to import are refused: ${details.length} problem${details.length === 1 ? '' : 's'}, first: ${details[0]!.pointer} ${details[0]!.message}`,
    details,
  );
}

/**
 * The planned change of a resource being imported: `Import`, with its properties (masked as a plan
 * masks them) and how the properties read differ from the template's, as drift shows them.
 */
export function importChange(
  logicalId: string,
  type: ResourceType,
  desired: Record<string, unknown>,
  importing: Importing,
  secrets: string[],
): PlannedChange {
  const wanted = plain(desired);
  const differences = compare(wanted, importing.model, '', (path) => touchesWriteOnly(type, path))
    .filter((d) => d.expected !== KNOWN_AFTER_APPLY)
    .map((d) => ({
      ...d,
      ...('expected' in d ? { expected: mask(d.expected, secrets) } : {}),
      ...('actual' in d ? { actual: mask(d.actual, secrets) } : {}),
    }));
  return {
    logicalId,
    type: type.typeName,
    action: 'Import',
    identifier: importing.identifier,
    properties: mask(wanted, secrets, type) as Record<string, unknown>,
    differences,
  };
}

/**
 * An import changes nothing but what it imports: every other change of its plan is refused (as
 * CloudFormation refuses them in an IMPORT change set), and so is a template whose identifier
 * properties name another resource than the one imported, or that does not make a resource to import
 * (its Condition false).
 */
export function assertImportOnly(
  changes: readonly PlannedChange[],
  importing: ReadonlyMap<string, Importing>,
  type: (logicalId: string) => ResourceType,
): void {
  const problems: ErrorDetail[] = [];
  const imported = new Set(changes.filter((c) => c.action === 'Import').map((c) => c.logicalId));
  for (const logicalId of importing.keys())
    if (!imported.has(logicalId))
      problems.push({
        pointer: `/Resources/${logicalId}/Condition`,
        message: `${logicalId} is not made by this template (its Condition is false): there is nothing to import it as`,
      });
  for (const change of changes) {
    if (change.action === 'NoChange') continue;
    if (change.action !== 'Import') {
      problems.push({
        pointer: `/Resources/${change.logicalId}`,
        message: `${change.logicalId} would be ${change.action === 'Add' ? 'added' : change.action === 'Remove' ? 'removed' : change.action === 'Modify' ? 'modified' : 'replaced'}: an import changes nothing but the resources it imports; deploy that change on its own, before or after`,
      });
      continue;
    }
    const written = identifierOf(type(change.logicalId), change.properties ?? {});
    if (written !== undefined && !written.includes(KNOWN_AFTER_APPLY) && written !== change.identifier)
      problems.push({
        pointer: `/Resources/${change.logicalId}/Properties`,
        message: `${change.logicalId}'s properties identify ${written}, not ${change.identifier}, the resource to import`,
      });
  }
  if (problems.length > 0)
    throw new TypeplaneError(
      'InvalidRequest',
      `the import is refused: ${problems[0]!.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
      problems,
    );
}

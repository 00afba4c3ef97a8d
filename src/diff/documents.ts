/**
 * @module Changes placed in documents: types paired across two documents (by name, and for manifests
 * by API version), compared (`compare.ts`), and each change given the line and column of the newer
 * document where it shows.
 */
import { escapePointerToken } from '../schema/diagnostics.js';
import { validateDocument, type Diagnostic, type ResourceType, type SourceFormat } from '../schema/index.js';
import { parseSource, type Position } from '../schema/source.js';
import { compareTypes, schemaPathOf, type Place, type RawChange } from './compare.js';
import { byVerdict, CHANGE_RULES, type Change } from './rules.js';

export interface DiffInput {
  text: string | Uint8Array;
  /** Shown in changes and diagnostics. */
  file?: string;
  format?: SourceFormat;
}

export interface DiffResult {
  changes: Change[];
  /** Problems that kept a document from being compared (it is invalid): nothing is compared then. */
  problems: Diagnostic[];
  counts: { breaking: number; dangerous: number; safe: number };
}

/** Where the newer document is, to place changes in it. */
export interface Target {
  file?: string;
  locate?: (pointer: string) => Position | undefined;
}

/**
 * Compare two documents defining the same type(s): a resource schema with its next revision, or a
 * manifest with its next revision (API versions present in both compared pairwise; an API version new
 * in the second compared with the latest of the first).
 */
export function diffDocuments(before: DiffInput, after: DiffInput): DiffResult {
  const [old, now] = [read(before), read(after)];
  const problems = [...old.problems, ...now.problems];
  if (problems.length > 0) return result([], problems);
  return result(diffTypeLists(old.types, now.types, now.target), []);
}

/** A manifest alone: each API version of each type compared with the one listed before it. */
export function diffApiVersions(input: DiffInput): DiffResult {
  const doc = read(input);
  if (doc.problems.length > 0) return result([], doc.problems);
  const changes: Change[] = [];
  const byName = groupByName(doc.types);
  for (const versions of byName.values()) {
    for (let i = 1; i < versions.length; i++)
      changes.push(...placed(versions[i - 1]!, versions[i]!, doc.target));
  }
  return result(changes, []);
}

/**
 * A type as registered against a document holding its next version (for a manifest, the last API
 * version of that type: the one a registration serves).
 */
export function diffAgainst(before: ResourceType, after: DiffInput): DiffResult {
  const doc = read(after);
  if (doc.problems.length > 0) return result([], doc.problems);
  const next = doc.types.filter((t) => t.typeName === before.typeName).at(-1);
  if (!next) {
    const problem: Diagnostic = {
      severity: 'error',
      rule: 'TP1008',
      message: `the document does not define ${before.typeName}; give the document of that type`,
      pointer: '',
    };
    if (after.file !== undefined) problem.file = after.file;
    return result([], [problem]);
  }
  return result(diffTypes(before, next, doc.target), []);
}

/** One registered type against its next version (the registry's check). */
export function diffTypes(before: ResourceType, after: ResourceType, target: Target = {}): Change[] {
  return placed(before, after, target).sort(byVerdict);
}

export function summarize(changes: readonly Change[]): DiffResult['counts'] {
  const counts = { breaking: 0, dangerous: 0, safe: 0 };
  for (const c of changes) counts[c.verdict]++;
  return counts;
}

/** Types paired by name (and API version): removed ones are breaking, added ones safe. */
export function diffTypeLists(before: ResourceType[], after: ResourceType[], target: Target = {}): Change[] {
  const changes: Change[] = [];
  // Two resource schemas name one type each: a renamed type is compared too (and said so).
  const single = (types: ResourceType[]) => types.length === 1 && types[0]!.dialect === 'resource-schema';
  if (single(before) && single(after) && before[0]!.typeName !== after[0]!.typeName)
    return placed(before[0]!, after[0]!, target).sort(byVerdict);
  const old = groupByName(before);
  const now = groupByName(after);
  for (const [name, versions] of old) {
    if (!now.has(name))
      changes.push(
        typeChange(
          'TP6012',
          versions.at(-1)!,
          `type ${name} removed: its resources can no longer be served`,
          target,
        ),
      );
  }
  for (const [name, versions] of now) {
    const previous = old.get(name);
    if (!previous) {
      changes.push(typeChange('TP6106', versions[0]!, `type ${name} added`, target));
      continue;
    }
    const known = new Map(previous.map((t) => [t.apiVersion, t]));
    for (const type of versions) {
      const same = known.get(type.apiVersion);
      if (same) {
        changes.push(...placed(same, type, target));
        continue;
      }
      changes.push(
        typeChange(
          'TP6106',
          type,
          `API version ${type.apiVersion} of ${name} added; compared with ${previous.at(-1)!.apiVersion}`,
          target,
        ),
      );
      changes.push(...placed(previous.at(-1)!, type, target));
    }
    const kept = new Set(versions.map((t) => t.apiVersion));
    for (const type of previous) {
      if (!kept.has(type.apiVersion))
        changes.push(
          typeChange(
            'TP6012',
            versions.at(-1)!,
            `API version ${type.apiVersion} of ${name} removed: clients naming it are refused`,
            target,
          ),
        );
    }
  }
  return changes.sort(byVerdict);
}

/** Where changes go in a document (a valid one: the caller has validated it). */
export function documentTarget(input: DiffInput): Target {
  const options = {
    ...(input.file !== undefined ? { file: input.file } : {}),
    ...(input.format ? { format: input.format } : {}),
  };
  const document = parseSource(input.text, options).document;
  const target: Target = { ...(input.file !== undefined ? { file: input.file } : {}) };
  // A member's name is where a reader looks (a YAML mapping's value starts a line below it).
  if (document)
    target.locate = (pointer) => document.locate(pointer, /\/\d+$|^$/.test(pointer) ? 'value' : 'key');
  return target;
}

function read(input: DiffInput): { types: ResourceType[]; problems: Diagnostic[]; target: Target } {
  const options = {
    ...(input.file !== undefined ? { file: input.file } : {}),
    ...(input.format ? { format: input.format } : {}),
  };
  const validation = validateDocument(input.text, options);
  const problems = validation.diagnostics.filter((d) => d.severity === 'error');
  if (!validation.valid) return { types: [], problems, target: {} };
  return { types: validation.types, problems: [], target: documentTarget(input) };
}

function groupByName(types: readonly ResourceType[]): Map<string, ResourceType[]> {
  const byName = new Map<string, ResourceType[]>();
  for (const type of types) byName.set(type.typeName, [...(byName.get(type.typeName) ?? []), type]);
  return byName;
}

function placed(before: ResourceType, after: ResourceType, target: Target): Change[] {
  const changes = compareTypes(before, after);
  if (before.typeName !== after.typeName)
    changes.unshift({
      rule: 'TP6012',
      message: `type ${before.typeName} renamed to ${after.typeName}: its resources are not carried over`,
      place: { type: true },
    });
  return changes.map((c) => place(c, after, target));
}

function typeChange(
  rule: 'TP6012' | 'TP6106',
  type: ResourceType,
  message: string,
  target: Target,
  _unused?: string,
): Change {
  return place({ rule, message, place: { type: true } }, type, target);
}

function place(raw: RawChange, type: ResourceType, target: Target): Change {
  const pointer = documentPointer(type, raw.place);
  const change: Change = {
    rule: raw.rule,
    verdict: CHANGE_RULES[raw.rule].verdict,
    message: raw.message,
    typeName: type.typeName,
    pointer,
  };
  if (type.apiVersion !== undefined) change.apiVersion = type.apiVersion;
  if (raw.property !== undefined) change.property = raw.property;
  if (target.file !== undefined) change.file = target.file;
  const position = target.locate?.(pointer);
  if (position) {
    change.line = position.line;
    change.column = position.column;
  }
  return change;
}

/** The pointer in the document `type` came from: the two dialects keep a type's parts in different places. */
function documentPointer(type: ResourceType, at: Place): string {
  if ('document' in at) return at.document;
  if (type.dialect === 'resource-schema') {
    if ('schema' in at) return at.schema;
    if ('configuration' in at) return `/typeConfiguration${at.configuration}`;
    if ('list' in at) return `/${at.list}/${at.index}`;
    if ('type' in at) return '';
    // A handler removed is shown where the handlers are (the document's top when none are left).
    if (at.handler === undefined) return Object.keys(type.handlers).length > 0 ? '/handlers' : '';
    return `/handlers/${at.handler}${at.permissions ? '/permissions' : at.timeout ? '/timeoutInMinutes' : ''}`;
  }
  const name = `/types/${escapePointerToken(type.typeName.slice(type.typeName.indexOf('/') + 1))}`;
  const schema = `${name}/apiVersions/${escapePointerToken(type.apiVersion ?? '')}/schema`;
  if ('schema' in at) return `${schema}${at.schema}`;
  if ('configuration' in at) return `${name}/x-typeplane-configuration${at.configuration}`;
  if ('list' in at) return `${schema}${schemaPathOf(type[at.list][at.index] ?? '/properties/name')}`;
  // Manifests declare no handlers: nothing is placed there.
  return name;
}

function result(changes: Change[], problems: Diagnostic[]): DiffResult {
  return { changes, problems, counts: summarize(changes) };
}

/**
 * @module loadTypes: files and folders → validated, normalised resource types.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { readBoundedFile } from './bounded-file.js';
import { diagnostic, hasErrors, type Diagnostic } from './diagnostics.js';
import { joinerOf, relativeTo } from './file-paths.js';
import { inReadingOrder, placeFindings, type Finding } from './finding.js';
import { LIMITS, parseSource } from './source.js';
import type { ResourceType } from './model.js';
import { HOOK_SCHEMA, otherDocument } from './other-documents.js';
import { originOf } from './resource-schema/reference-origins.js';
import { PointerResolver } from './resource-schema/semantic.js';
import { validateDocument, type ValidationResult } from './validate.js';
import { WARM_UP_FROM, warmUpChecks } from './warm-up.js';

export interface LoadOptions {
  /** Called after each file, e.g. to draw a progress bar. */
  onProgress?: (done: number, total: number) => void;
  /** Paths in results are shown relative to this folder (default: as given). */
  cwd?: string;
  /** Also warn about what Bicep types cannot express (see `ValidateOptions.bicepWarnings`). */
  bicepWarnings?: boolean;
  /** Keep each valid document's bytes in `LoadResult.contents` (to register them as read). */
  keepContents?: boolean;
  /** Files and folders to leave out, by their path as shown (`--exclude <glob>`). */
  exclude?: (path: string) => boolean;
  /**
   * Check hook schemas with this (as their registration does) instead of setting them aside:
   * `typeplane validate` does. They define no types.
   */
  checkHook?: (content: Buffer, file: string) => Promise<Pick<ValidationResult, 'valid' | 'diagnostics'>>;
  /**
   * `false`: leave out the checks across documents (a type defined twice, references), which
   * {@link checkAcrossDocuments} makes later: an editor's workspace, whose open documents change.
   */
  acrossDocuments?: boolean;
  /**
   * `false`: the results' types are {@link TypeSummary}s, and while the files are read only the
   * models the checks across documents need are held (those with references; a referenced type's is
   * read again if a reference names one of its properties). For callers that want the diagnostics,
   * not the types (`typeplane validate`): a model holds its document's whole schema, and holding a
   * large folder's every one costs the collector more than a tenth of the run.
   */
  models?: boolean;
}

/** What a type is without its model: its name, version and identifier. */
export type TypeSummary = Pick<ResourceType, 'typeName' | 'apiVersion' | 'dialect' | 'primaryIdentifier'>;

/** A file a folder held that is no type document, and what it is instead. */
export interface SkippedDocument {
  file: string;
  reason: string;
}

export interface LoadResult<T = ResourceType> {
  /** One result per file, in a stable (sorted) order. */
  results: ValidationResult<T>[];
  /** Every type defined by a valid file, unless defined twice. */
  types: T[];
  valid: boolean;
  /** Each valid document's bytes as they were read and validated, with `keepContents`. */
  contents?: Map<ValidationResult<T>, Buffer>;
  /**
   * Files found in folders that are no type document (stack templates, hook schemas, generated Bicep
   * types and JSON Schemas, settings): left out of `results`. Named on their own, they are results
   * in error.
   */
  skipped: SkippedDocument[];
}

const DOCUMENT_FILE = /\.(json|ya?ml)$/i;

/** Expand files and folders (recursively) into the document files they hold, sorted. */
export async function findDocuments(
  paths: readonly string[],
): Promise<{ files: string[]; missing: string[]; named: Set<string> }> {
  // Each file once, by where it really is: a file named twice, once through a symbolic link (a
  // configuration's `types` and a built-in provider's own schemas), is one document, not a type
  // defined twice. It keeps the path it was first named by.
  const files = new Map<string, string>();
  const missing: string[] = [];
  const named = new Set<string>();
  const add = (path: string, real: string) => {
    if (!files.has(real)) files.set(real, path);
  };
  const walk = async (path: string, explicit: boolean, real: string): Promise<void> => {
    let info;
    try {
      info = await stat(path);
      if (explicit) real = await realpath(path);
    } catch {
      if (explicit) missing.push(path);
      return;
    }
    if (info.isDirectory()) {
      const entries = await readdir(path, { withFileTypes: true });
      const childOf = joinerOf(path);
      const realChildOf = joinerOf(real);
      for (const entry of entries) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
        const child = childOf(entry.name);
        if (entry.isDirectory()) await walk(child, false, realChildOf(entry.name));
        else if (DOCUMENT_FILE.test(entry.name)) add(child, realChildOf(entry.name));
      }
    } else if (explicit || DOCUMENT_FILE.test(path)) {
      add(path, real);
      if (explicit) named.add(path);
    }
  };
  for (const path of paths) await walk(path, true, path);
  return { files: [...new Set(files.values())].sort(), missing, named };
}

/**
 * The files under `paths` to read as type documents, found as {@link loadTypes} finds them: a file a
 * folder holds that is no type document is set aside with what it is instead; a file named on its
 * own is always read. For callers that hand the documents on unread (`typeplane type register`).
 */
export async function typeDocumentFiles(
  paths: readonly string[],
): Promise<{ files: string[]; missing: string[]; skipped: SkippedDocument[] }> {
  const { files, missing, named } = await findDocuments(paths);
  const kept: string[] = [];
  const skipped: SkippedDocument[] = [];
  for (const file of files) {
    // A file that cannot be read is kept: the reader reports why.
    const content = named.has(file) ? undefined : readBoundedFile(file, LIMITS.maxBytes);
    const other = content instanceof Buffer ? otherDocument(content.toString('utf8')) : undefined;
    if (other === undefined) kept.push(file);
    else skipped.push({ file, reason: other });
  }
  return { files: kept, missing, skipped };
}

/**
 * Validate every resource schema and manifest under `paths` and return the types they define.
 *
 * @example
 * const { valid, types, results } = await loadTypes(['./types']);
 */
export function loadTypes(
  paths: readonly string[],
  options: LoadOptions & { models: false },
): Promise<LoadResult<TypeSummary>>;
export function loadTypes(paths: readonly string[], options?: LoadOptions): Promise<LoadResult>;
export async function loadTypes(
  paths: readonly string[],
  options: LoadOptions = {},
): Promise<LoadResult<ResourceType | TypeSummary>> {
  const found = await findDocuments(paths);
  const { missing, named } = found;
  // Each file's path as shown, worked out once.
  const shownAs = new Map<string, string>();
  const relativeToCwd = options.cwd ? relativeTo(options.cwd) : undefined;
  const shown = (file: string) => {
    let path = shownAs.get(file);
    if (path === undefined) shownAs.set(file, (path = relativeToCwd ? relativeToCwd(file) : file));
    return path;
  };
  const files = options.exclude ? found.files.filter((f) => !options.exclude!(shown(f))) : found.files;
  const skipped: SkippedDocument[] = [];
  const summarised = options.models === false ? new Map<TypeSummary, string>() : undefined;
  const results: ValidationResult<ResourceType | TypeSummary>[] = missing.map((file) => ({
    file,
    valid: false,
    diagnostics: [{ ...diagnostic('TP1001', '', `no such file or folder: ${file}`), file }],
    types: [],
  }));
  const contents = new Map<ValidationResult<ResourceType | TypeSummary>, Buffer>();
  const total = files.length;
  if (total >= WARM_UP_FROM) warmUpChecks(options);
  for (let i = 0; i < total; i++) {
    const file = files[i]!;
    // Synchronous reads: for many small files they cost a fraction of the promise round trips.
    const content = readBoundedFile(file, LIMITS.maxBytes);
    if (content instanceof Error || typeof content === 'number') {
      const problem =
        typeof content === 'number'
          ? diagnostic(
              'TP1004',
              '',
              `file is ${content > LIMITS.maxBytes + 1 ? `${(content / 1048576).toFixed(1)} MB, ` : ''}over the ${LIMITS.maxBytes / 1048576} MB limit; split it into one file per resource type`,
            )
          : diagnostic('TP1001', '', content.message);
      results.push({
        file: shown(file),
        valid: false,
        diagnostics: [{ ...problem, file: shown(file), line: 1, column: 1 }],
        types: [],
      });
    } else {
      let result = validateDocument(content, {
        file: shown(file),
        ...(options.bicepWarnings ? { bicepWarnings: true } : {}),
      });
      const other = result.diagnostics.some((d) => d.rule === 'TP1008')
        ? otherDocument(content.toString('utf8'))
        : undefined;
      if (other === HOOK_SCHEMA && options.checkHook) {
        results.push({
          file: shown(file),
          dialect: 'hook',
          types: [],
          ...(await options.checkHook(content, shown(file))),
        });
        options.onProgress?.(i + 1, total);
        continue;
      }
      if (other !== undefined && !named.has(file)) {
        skipped.push({ file: shown(file), reason: other });
        options.onProgress?.(i + 1, total);
        continue;
      }
      if (other !== undefined)
        result = {
          ...result,
          diagnostics: result.diagnostics.map((d) => (d.rule === 'TP1008' ? { ...d, message: other } : d)),
        };
      // Kept to place the cross-document findings about references (few documents have any), or
      // for the caller.
      const refers = result.types.some((t) => t.traits.references.length > 0);
      if (options.keepContents || refers) contents.set(result, content);
      // Summarised now unless the checks across documents read the model (its references).
      if (summarised && !refers) results.push(summarise(result, summarised, file));
      else results.push(result);
    }
    options.onProgress?.(i + 1, total);
    // Let a progress bar paint and signals arrive during long runs.
    if (options.onProgress && i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
  }
  if (options.acrossDocuments !== false) {
    const reloaded = new Map<string, ResourceType[]>();
    const modelOf = summarised && ((summary: TypeSummary) => reloadModel(summary, summarised, reloaded));
    checkAcrossDocuments(results, contents, undefined, modelOf);
  }
  if (summarised) for (const result of results) summarise(result);
  const types = results.filter((r) => r.valid).flatMap((r) => r.types);
  const valid = results.every((r) => r.valid);
  if (!options.keepContents) return { results, types, valid, skipped };
  // Only valid documents' bytes are handed out (a type defined twice made both invalid).
  for (const result of results) if (!result.valid) contents.delete(result);
  return { results, types, valid, contents, skipped };
}

/** The result, its types summarised in place; each summary's file noted in `files`, when given. */
function summarise<R extends ValidationResult<ResourceType | TypeSummary>>(
  result: R,
  files?: Map<TypeSummary, string>,
  file?: string,
): R {
  if (!result.types.some(isModel)) return result;
  result.types = result.types.map((t): TypeSummary => {
    const summary: TypeSummary = {
      typeName: t.typeName,
      dialect: t.dialect,
      primaryIdentifier: t.primaryIdentifier,
      ...(t.apiVersion === undefined ? {} : { apiVersion: t.apiVersion }),
    };
    if (files && file !== undefined) files.set(summary, file);
    return summary;
  });
  return result;
}

const isModel = (t: ResourceType | TypeSummary): t is ResourceType => 'schema' in t;

/**
 * A summarised type's model, from its file read and checked again (once a file, in `reloaded`, for
 * a manifest's several types): wanted only when a reference names one of its properties (rare).
 * Undefined when the file no longer defines it so.
 */
function reloadModel(
  summary: TypeSummary,
  files: ReadonlyMap<TypeSummary, string>,
  reloaded: Map<string, ResourceType[]>,
): ResourceType | undefined {
  const file = files.get(summary);
  if (file === undefined) return undefined;
  let types = reloaded.get(file);
  if (!types) {
    const content = readBoundedFile(file, LIMITS.maxBytes);
    types = content instanceof Buffer ? validateDocument(content, { file }).types : [];
    reloaded.set(file, types);
  }
  return types.find((t) => t.typeName === summary.typeName && t.apiVersion === summary.apiVersion);
}

/**
 * The checks across the documents loaded together, in place: a type defined twice (TP1011) and
 * references between types (TP1012–TP1014). `contents` places the findings of the documents it
 * holds; `only`, when given, is the one result whose findings are wanted (the others' are not made).
 */
export function checkAcrossDocuments<T extends ResourceType | TypeSummary>(
  results: ValidationResult<T>[],
  contents: ReadonlyMap<ValidationResult<T>, Buffer | string>,
  only?: ValidationResult<T>,
  modelOf?: (summary: TypeSummary) => ResourceType | undefined,
): void {
  const definedTwice = flagDuplicateTypes(results, only);
  checkReferencesAcrossDocuments(results, contents, only, definedTwice, modelOf);
}

/**
 * The same type name and version defined in two files: the later file is in error, and its types
 * are left out. Only `only` is changed when given; every such result is returned.
 */
function flagDuplicateTypes<T extends TypeSummary>(
  results: ValidationResult<T>[],
  only?: ValidationResult<T>,
): Set<ValidationResult<T>> {
  const firstSeen = new Map<string, string>();
  const flagged = new Set<ValidationResult<T>>();
  for (const result of results) {
    const extra: Diagnostic[] = [];
    for (const type of result.types) {
      const key = type.apiVersion ? `${type.typeName}@${type.apiVersion}` : type.typeName;
      const other = firstSeen.get(key);
      if (other !== undefined) {
        flagged.add(result);
        if (only && result !== only) continue;
        extra.push({
          ...diagnostic(
            'TP1011',
            '',
            `type ${key} is already defined in ${other}; give each type one definition`,
          ),
          ...(result.file === undefined ? {} : { file: result.file }),
          line: 1,
          column: 1,
        });
      } else {
        firstSeen.set(key, result.file ?? '(input)');
      }
    }
    if (extra.length > 0) {
      result.diagnostics.push(...extra);
      result.diagnostics.sort(inReadingOrder);
      result.valid = !hasErrors(result.diagnostics);
      result.types = [];
    }
  }
  return flagged;
}

/**
 * Across the loaded documents, for each reference (`traits`, `relationshipRef`, `x-typeplane-references`):
 * - TP1012 (warning): the referenced type is not among the loaded ones. It may be registered
 *   separately, so this is not an error; the engine refuses resources that refer to it until it is.
 * - TP1013: an explicit `ids` target is not a property of the loaded referenced type (in any of its
 *   versions), or `''` (a manifest property's shorthand: "its single identifier") names a type whose
 *   identifier has several parts. Not checked for `relationshipRef`s: published AWS schemas point
 *   some at properties the referenced type does not declare.
 * - TP1014: without `ids`, the referenced type's identifier properties must be this model's
 *   same-named properties.
 * Each is placed where the reference is written, so `content` re-parses the documents concerned.
 */
function checkReferencesAcrossDocuments<T extends ResourceType | TypeSummary>(
  results: ValidationResult<T>[],
  contents: ReadonlyMap<ValidationResult<T>, Buffer | string>,
  only: ValidationResult<T> | undefined,
  definedTwice: ReadonlySet<ValidationResult<T>>,
  modelOf: ((summary: TypeSummary) => ResourceType | undefined) | undefined,
): void {
  const loaded = new Map<string, T[]>();
  for (const r of results) {
    if (definedTwice.has(r)) continue;
    for (const t of r.types) loaded.set(t.typeName, [...(loaded.get(t.typeName) ?? []), t]);
  }
  const resolvers = new Map<T, PointerResolver | undefined>();
  /** Whether the type declares the property; a summary's model is read again to tell. */
  const declares = (t: T, pointer: string) => {
    let resolver = resolvers.get(t);
    if (!resolvers.has(t)) {
      const model = isModel(t) ? t : modelOf?.(t);
      resolver = model && new PointerResolver(model.schema as Record<string, unknown>);
      resolvers.set(t, resolver);
    }
    return resolver?.resolves(pointer) ?? false;
  };
  for (const result of only ? [only] : results) {
    const findings = new Map<string, Finding>();
    const add = (finding: Finding) =>
      findings.set(`${finding.rule} ${finding.pointer} ${finding.message}`, finding);
    for (const type of result.types) {
      // A summary has no references (types with references keep their model until here).
      if (!isModel(type)) continue;
      for (const ref of type.traits.references) {
        const at = originOf(ref) ?? '';
        const targets = loaded.get(ref.typeName);
        if (!targets) {
          add(
            diagnostic(
              'TP1012',
              at,
              `${type.typeName} refers to ${ref.typeName}, which is not among the loaded types; load its document too, or register it before resources refer to it`,
            ),
          );
          continue;
        }
        if (ref.relationshipRef) continue;
        if (ref.ids.length === 0) {
          const identifiers = new Set(targets.flatMap((t) => t.primaryIdentifier));
          const missing = [...identifiers].filter((p) => !declares(type, p));
          if (missing.length > 0) {
            add(
              diagnostic(
                'TP1014',
                at,
                `${type.typeName} refers to ${ref.typeName} without 'ids', so its identifier ${missing.join(', ')} must be a property of the same name here, and is not; declare it, or map the identifier to a member with 'ids'`,
              ),
            );
          }
          continue;
        }
        for (const id of ref.ids) {
          if (id.target === '') {
            const parts = targets.find((t) => t.primaryIdentifier.length !== 1)?.primaryIdentifier;
            if (parts) {
              add(
                diagnostic(
                  'TP1013',
                  at,
                  `${id.member} is to hold the identifier of ${ref.typeName}, but ${ref.typeName} is identified by ${parts.length} properties (${parts.join(', ')}); refer to it from the type's 'x-typeplane-references' with one member per part in 'ids'`,
                ),
              );
            }
          } else if (!targets.some((t) => declares(t, id.target))) {
            const origin = originOf(id);
            add({
              ...diagnostic(
                'TP1013',
                origin ?? at,
                `${type.typeName} refers to ${ref.typeName} property ${id.target}, which ${ref.typeName} does not declare; name one of its properties`,
              ),
              ...(origin === undefined ? {} : { target: 'key' as const }),
            });
          }
        }
      }
    }
    if (findings.size === 0) continue;
    result.diagnostics.push(...place([...findings.values()], result, contents.get(result)));
    result.diagnostics.sort(inReadingOrder);
    result.valid = !hasErrors(result.diagnostics);
    if (!result.valid) result.types = [];
  }
}

/** Findings placed in their document's text; at its start when the text is not at hand. */
function place(
  findings: Finding[],
  result: ValidationResult<unknown>,
  content: Buffer | string | undefined,
): Diagnostic[] {
  const file = result.file === undefined ? {} : { file: result.file };
  const document = content === undefined ? undefined : parseSource(content, { ...file }).document;
  if (document) {
    return placeFindings(findings, document).map((d) =>
      d.line === undefined ? { ...d, line: 1, column: 1 } : d,
    );
  }
  return findings.map(({ target: _target, ...d }) => ({ ...d, ...file, line: 1, column: 1 }));
}

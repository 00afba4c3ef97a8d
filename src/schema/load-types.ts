/**
 * @module loadTypes: files and folders → validated, normalised resource types.
 */
import { readFileSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { diagnostic, hasErrors, type Diagnostic } from './diagnostics.js';
import { LIMITS } from './source.js';
import type { ResourceType } from './model.js';
import { PointerResolver } from './resource-schema/semantic.js';
import { validateDocument, type ValidationResult } from './validate.js';

export interface LoadOptions {
  /** Called after each file, e.g. to draw a progress bar. */
  onProgress?: (done: number, total: number) => void;
  /** Paths in results are shown relative to this folder (default: as given). */
  cwd?: string;
}

export interface LoadResult {
  /** One result per file, in a stable (sorted) order. */
  results: ValidationResult[];
  /** Every type defined by a valid file, unless defined twice. */
  types: ResourceType[];
  valid: boolean;
}

const DOCUMENT_FILE = /\.(json|ya?ml)$/i;

/** Expand files and folders (recursively) into the document files they hold, sorted. */
export async function findDocuments(
  paths: readonly string[],
): Promise<{ files: string[]; missing: string[] }> {
  const files: string[] = [];
  const missing: string[] = [];
  const walk = async (path: string, explicit: boolean): Promise<void> => {
    let info;
    try {
      info = await stat(path);
    } catch {
      if (explicit) missing.push(path);
      return;
    }
    if (info.isDirectory()) {
      const entries = await readdir(path, { withFileTypes: true });
      for (const entry of entries) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
        const child = join(path, entry.name);
        if (entry.isDirectory()) await walk(child, false);
        else if (DOCUMENT_FILE.test(entry.name)) files.push(child);
      }
    } else if (explicit || DOCUMENT_FILE.test(path)) {
      files.push(path);
    }
  };
  for (const path of paths) await walk(path, true);
  return { files: [...new Set(files)].sort(), missing };
}

/**
 * Validate every resource schema and manifest under `paths` and return the types they define.
 *
 * @example
 * const { valid, types, results } = await loadTypes(['./types']);
 */
export async function loadTypes(paths: readonly string[], options: LoadOptions = {}): Promise<LoadResult> {
  const { files, missing } = await findDocuments(paths);
  const shown = (file: string) => (options.cwd ? relative(options.cwd, file) || file : file);
  const results: ValidationResult[] = missing.map((file) => ({
    file,
    valid: false,
    diagnostics: [{ ...diagnostic('TP1001', '', `no such file or folder: ${file}`), file }],
    types: [],
  }));
  const total = files.length;
  for (let i = 0; i < total; i++) {
    const file = files[i]!;
    // Synchronous reads: for many small files they cost a fraction of the promise round trips.
    const content = readBounded(file);
    if (content instanceof Error || typeof content === 'number') {
      const problem =
        typeof content === 'number'
          ? diagnostic(
              'TP1004',
              '',
              `file is ${(content / 1048576).toFixed(1)} MB, over the ${LIMITS.maxBytes / 1048576} MB limit; split it into one file per resource type`,
            )
          : diagnostic('TP1001', '', content.message);
      results.push({
        file: shown(file),
        valid: false,
        diagnostics: [{ ...problem, file: shown(file), line: 1, column: 1 }],
        types: [],
      });
    } else {
      results.push(validateDocument(content, { file: shown(file) }));
    }
    options.onProgress?.(i + 1, total);
    // Let a progress bar paint and signals arrive during long runs.
    if (options.onProgress && i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
  }
  flagDuplicateTypes(results);
  flagUndeclaredReferenceTargets(results);
  const types = results.filter((r) => r.valid).flatMap((r) => r.types);
  return { results, types, valid: results.every((r) => r.valid) };
}

/** The file's bytes, its size when over the limit (not read: no need to load 50 MB to refuse it), or why not. */
function readBounded(file: string): Buffer | number | Error {
  try {
    const info = statSync(file);
    if (info.size > LIMITS.maxBytes) return info.size;
    return readFileSync(file);
  } catch (e) {
    return new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The same type name and version defined in two files: both are in error. */
function flagDuplicateTypes(results: ValidationResult[]): void {
  const firstSeen = new Map<string, string>();
  for (const result of results) {
    const extra: Diagnostic[] = [];
    for (const type of result.types) {
      const key = type.apiVersion ? `${type.typeName}@${type.apiVersion}` : type.typeName;
      const other = firstSeen.get(key);
      if (other !== undefined) {
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
      result.valid = !hasErrors(result.diagnostics);
      result.types = [];
    }
  }
}

/**
 * Across the loaded documents: a reference (from `traits` / `x-typeplane-references`) to a loaded type
 * must name properties that type declares. References to types not loaded here are checked when
 * they are registered or used.
 */
function flagUndeclaredReferenceTargets(results: ValidationResult[]): void {
  const loaded = new Map<string, ResourceType>();
  for (const r of results) for (const t of r.types) loaded.set(t.typeName, t);
  for (const result of results) {
    const extra: Diagnostic[] = [];
    for (const type of result.types) {
      for (const ref of type.traits.references) {
        const target = loaded.get(ref.typeName);
        if (!target || ref.relationshipRef) continue;
        const resolver = new PointerResolver(target.schema as Record<string, unknown>);
        for (const id of ref.ids) {
          if (id.target === '' || resolver.resolves(id.target)) continue;
          extra.push({
            ...diagnostic(
              'TP1013',
              '',
              `${type.typeName} refers to ${ref.typeName} property ${id.target}, which ${ref.typeName} does not declare; name one of its properties`,
            ),
            ...(result.file === undefined ? {} : { file: result.file }),
            line: 1,
            column: 1,
          });
        }
      }
    }
    if (extra.length > 0) {
      result.diagnostics.push(...extra);
      result.valid = !hasErrors(result.diagnostics);
      if (!result.valid) result.types = [];
    }
  }
}

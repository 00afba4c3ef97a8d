/**
 * @module The types an editor's documents are checked against: the type documents of its workspace
 * folders (as `typeplane validate <folder>` reads them) and, given an endpoint, a server's registry.
 * A type document is checked among the workspace's others (a type defined twice, references between
 * types) as `typeplane validate` checks it among the files it was given.
 */
import { relative } from 'node:path';
import {
  checkAcrossDocuments,
  loadTypes,
  type ResourceType,
  type ValidationResult,
} from '../schema/index.js';
import { compileType, type CompiledType } from '../registry/index.js';
import type { TypeSource } from '../stacks/index.js';

/** A type as a server's registry lists it. */
export interface RegisteredTypeSummary {
  typeName: string;
  apiVersion?: string;
  description?: string;
}

/** What the server answers about its types (src/cli/lsp.ts makes it from the CLI's client). */
export interface RegistryClient {
  list(): Promise<RegisteredTypeSummary[]>;
  /** The registered default version, or undefined when the type is not registered. */
  get(typeName: string): Promise<ResourceType | undefined>;
}

/** How long what the registry answered is used before it is asked again. */
const REGISTRY_TTL_MS = 60_000;

/** Bound on the files a workspace folder is searched for: past it, the rest are not read. */
export const MAX_WORKSPACE_FILES = 5_000;

export interface LocalType {
  type: ResourceType;
  /** The file that defines it, as shown (relative to the first workspace folder). */
  file: string;
}

export class Workspace {
  /** Each file's result as validateDocument gave it (before the checks across documents), by shown path. */
  private readonly results = new Map<string, ValidationResult>();
  /** The files defining each type name (valid or not), to check a document among those that matter. */
  private readonly definers = new Map<string, Set<string>>();
  private readonly compiled = new WeakMap<ResourceType, CompiledType>();
  private registryNames: { at: number; types: Promise<RegisteredTypeSummary[]> } | undefined;
  private readonly registryTypes = new Map<string, { at: number; type: Promise<ResourceType | undefined> }>();

  constructor(
    /** Paths are shown relative to this folder, as `typeplane validate` run there shows them. */
    readonly root: string,
    private readonly registry?: RegistryClient,
  ) {}

  /** Read the type documents under `folders` (hook schemas checked as validate checks them). */
  async load(folders: readonly string[]): Promise<void> {
    let seen = 0;
    const { results } = await loadTypes(folders, {
      cwd: this.root,
      bicepWarnings: true,
      acrossDocuments: false,
      exclude: () => ++seen > MAX_WORKSPACE_FILES,
      checkHook: async (content, file) =>
        (await import('../policy/hooks/index.js')).checkHookSchema(content, { file }),
    });
    for (const result of results) if (result.file !== undefined) this.update(result.file, result);
  }

  /** Read one file again as it is on disk (a document closed unsaved goes back to what the file holds). */
  async reload(path: string): Promise<void> {
    const file = this.shown(path);
    const { results } = await loadTypes([path], {
      cwd: this.root,
      bicepWarnings: true,
      acrossDocuments: false,
    });
    const result = results.find((r) => r.file === file && !r.diagnostics.some((d) => d.rule === 'TP1001'));
    this.update(
      file,
      result?.dialect === 'resource-schema' || result?.dialect === 'manifest' ? result : undefined,
    );
  }

  /** The path `typeplane validate` shows for `path`. */
  shown(path: string): string {
    return relative(this.root, path) || path;
  }

  /** Keep a document's result (as validateDocument gave it) in place of what its file held. */
  update(file: string, result: ValidationResult | undefined): void {
    for (const type of this.results.get(file)?.types ?? []) this.definers.get(type.typeName)?.delete(file);
    if (result) this.results.set(file, result);
    else this.results.delete(file);
    for (const type of result?.types ?? []) {
      let files = this.definers.get(type.typeName);
      if (!files) this.definers.set(type.typeName, (files = new Set()));
      files.add(file);
    }
  }

  /**
   * `result` (fresh from validateDocument, for `file`) checked among the workspace's other type
   * documents, in place, as loadTypes checks the files it read together. Only the documents that can
   * change its findings take part, in loadTypes' order: those defining a type it defines or refers
   * to, and those defining a type any of these define (whether they define one twice decides
   * whether their types count).
   */
  checkAmongOthers(file: string, result: ValidationResult, text: string): void {
    const near = new Set<string>();
    for (const type of result.types) {
      near.add(type.typeName);
      for (const reference of type.traits.references) near.add(reference.typeName);
    }
    const files = new Set<string>([file]);
    const definersOf = (names: Iterable<string>) => {
      const found = new Set<string>();
      for (const name of names) for (const f of this.definers.get(name) ?? []) if (f !== file) found.add(f);
      return found;
    };
    const first = definersOf(near);
    const second = definersOf([...first].flatMap((f) => this.results.get(f)!.types.map((t) => t.typeName)));
    for (const f of [...first, ...second]) files.add(f);
    // Only `result` is changed by the checks: the others stay as validateDocument gave them.
    const all = [...files].sort().map((f) => (f === file ? result : this.results.get(f)!));
    checkAcrossDocuments(all, new Map([[result, text]]), result);
  }

  /** Every type the workspace's valid documents define, and where. */
  localTypes(): LocalType[] {
    const types: LocalType[] = [];
    for (const [file, result] of this.results)
      if (result.valid) for (const type of result.types) types.push({ type, file });
    return types;
  }

  /** A type's versions defined in the workspace, latest API version last. */
  localVersions(typeName: string): LocalType[] {
    return this.localTypes()
      .filter((t) => t.type.typeName === typeName)
      .sort((a, b) => (a.type.apiVersion ?? '').localeCompare(b.type.apiVersion ?? ''));
  }

  /** The types the registry lists (none without an endpoint, or when it cannot be reached). */
  async registered(): Promise<RegisteredTypeSummary[]> {
    if (!this.registry) return [];
    if (!this.registryNames || Date.now() - this.registryNames.at > REGISTRY_TTL_MS)
      this.registryNames = { at: Date.now(), types: this.registry.list().catch(() => []) };
    return this.registryNames.types;
  }

  /** A type by name: the workspace's latest version, else the registry's default version. */
  async type(typeName: string): Promise<ResourceType | undefined> {
    const local = this.localVersions(typeName).at(-1);
    if (local) return local.type;
    return this.registeredType(typeName);
  }

  /** The registry's default version of a type. */
  async registeredType(typeName: string): Promise<ResourceType | undefined> {
    if (!this.registry) return undefined;
    let cached = this.registryTypes.get(typeName);
    if (!cached || Date.now() - cached.at > REGISTRY_TTL_MS) {
      cached = { at: Date.now(), type: this.registry.get(typeName).catch(() => undefined) };
      this.registryTypes.set(typeName, cached);
    }
    return cached.type;
  }

  /** The types a template is checked against, as the server's registry is for `stack validate`. */
  typeSource(): TypeSource {
    return {
      get: async (typeName) => {
        const type = await this.type(typeName);
        if (!type) return undefined;
        let compiled = this.compiled.get(type);
        if (!compiled) this.compiled.set(type, (compiled = compileType(type)));
        return compiled;
      },
      names: async () => [
        ...new Set([
          ...this.localTypes().map((t) => t.type.typeName),
          ...(await this.registered()).map((t) => t.typeName),
        ]),
      ],
    };
  }
}

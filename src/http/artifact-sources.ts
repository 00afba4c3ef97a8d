/**
 * @module What the served artifacts are generated from: each registered type's model as JSON text,
 * with the two names the artifact routes look types up by (Bicep namespace, properties schema file).
 *
 * Kept across requests and read from the store only for types registered since: reading and parsing
 * every model of a large registry for each artifact (the AWS corpus: 1,489 models, 9 MB) would hold
 * the event loop for hundreds of milliseconds, so models are read one at a time, yielding to other
 * requests every few milliseconds. The text is what a generator thread receives: a string crosses
 * threads as a copy, an object graph would be serialised on this thread.
 */
import { bicepNamespace, propertiesSchemaFileName } from '../codegen/index.js';
import { TypeplaneError } from '../errors.js';
import type { Registry } from '../registry/registry.js';

export interface TypeStamp {
  typeName: string;
  version: string;
  registeredAt: string;
}

export interface TypeSource extends TypeStamp {
  /** The model, as JSON. */
  text: string;
  namespace: string;
  schemaFile: string;
}

/** Work done between two yields to the event loop. */
const SLICE_MS = 5;

export class ArtifactSources {
  private readonly byName = new Map<string, TypeSource>();
  /** Reads one after another, so that concurrent first requests read each model once. */
  private reading: Promise<unknown> = Promise.resolve();

  constructor(private readonly registry: Registry) {}

  /**
   * The sources of the `wanted` types, in their order; `registered` are all the registered types'
   * stamps (sources of others are dropped). A type re-registered meanwhile comes with its newer stamp;
   * one removed meanwhile is left out.
   */
  of(registered: readonly TypeStamp[], wanted: readonly TypeStamp[]): Promise<TypeSource[]> {
    const read = this.reading.then(() => this.read(registered, wanted));
    this.reading = read.catch(() => undefined);
    return read;
  }

  private async read(registered: readonly TypeStamp[], wanted: readonly TypeStamp[]): Promise<TypeSource[]> {
    const names = new Set(registered.map((s) => s.typeName));
    for (const name of this.byName.keys()) if (!names.has(name)) this.byName.delete(name);
    let slice = performance.now();
    for (const stamp of wanted) {
      if (this.byName.get(stamp.typeName)?.registeredAt === stamp.registeredAt) continue;
      const stored = await this.registry.record(stamp.typeName, stamp.version).then(
        (record) => record,
        (error: unknown) => {
          if (error instanceof TypeplaneError && error.code === 'NotFound') return undefined;
          throw error;
        },
      );
      if (!stored) this.byName.delete(stamp.typeName);
      else
        this.byName.set(stamp.typeName, {
          typeName: stored.typeName,
          version: stored.version,
          registeredAt: stored.registeredAt,
          text: JSON.stringify(stored.model),
          namespace: bicepNamespace(stored.model),
          schemaFile: propertiesSchemaFileName(stored.model),
        });
      // A store answering synchronously (SQLite) resolves in microtasks: yield to other requests.
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
    return wanted.flatMap((s) => this.byName.get(s.typeName) ?? []);
  }
}

/**
 * @module Watch events: a change of the change log as each kind of watch sends it, serialised once
 * for every watch that sends it. An event is `{ type, object }`, as Kubernetes' watch events are:
 * `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` (the version a watch is at, nothing changed) and `ERROR`
 * (the last one, saying why the watch ended).
 */
import { stripNulls, stripWriteOnly, type Model } from '../model/index.js';
import type { Change, Store } from '../store/index.js';
import type { Registry } from '../registry/registry.js';
import type { Engine } from '../engine/index.js';
import type { ResourceType } from '../schema/index.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** A change, ready to send: its events as JSON text. */
export interface PreparedChange {
  version: number;
  typeName: string;
  /** The resource event (ADDED, MODIFIED or DELETED), when the change put or deleted a resource. */
  resource?: string;
  /** What `resource` says, as values: what a filtered watch tests, and sends as another event. */
  resourceEvent?: { type: WatchEventType; object: ResourceObject };
  /**
   * The operation's event: ADDED to a watch that has not seen it begin, MODIFIED to one that has;
   * with its operation and status (what a filtered watch tests).
   */
  request: {
    begunAt: number;
    added: string;
    modified: string;
    operation: string;
    status: string;
    identifier?: string;
  };
}

/** A resource as a watch sends it. */
export interface ResourceObject {
  typeName: string;
  identifier: string;
  properties?: Model;
  resourceVersion: string;
}

/** Makes the events of changes, reading what a change does not say itself (see {@link prepare}). */
export class EventMaker {
  constructor(
    private readonly engine: Engine,
    private readonly registry: Registry,
    private readonly store: Store,
  ) {}

  async prepare(changes: readonly Change[]): Promise<PreparedChange[]> {
    const prepared: PreparedChange[] = [];
    for (const change of changes) prepared.push(await this.prepareOne(change));
    return prepared;
  }

  private async prepareOne(change: Change): Promise<PreparedChange> {
    const { operation: op, version } = change;
    const resourceVersion = String(version);
    const described = { ...(await this.engine.describeOperation(op)), resourceVersion };
    const prepared: PreparedChange = {
      version,
      typeName: op.typeName,
      request: {
        begunAt: change.begunAt,
        added: eventJson('ADDED', described),
        modified: eventJson('MODIFIED', described),
        operation: op.operation,
        status: described.operationStatus,
        ...(op.identifier !== undefined ? { identifier: op.identifier } : {}),
      },
    };
    if (change.resourceChange !== undefined && op.identifier !== undefined) {
      const type =
        change.resourceChange === 'delete' ? 'DELETED' : op.operation === 'CREATE' ? 'ADDED' : 'MODIFIED';
      const properties =
        change.resourceChange === 'delete'
          ? undefined
          : await this.model(op.typeName, op.identifier, op.resourceModel);
      const object: ResourceObject = {
        typeName: op.typeName,
        identifier: op.identifier,
        ...(properties ? { properties } : {}),
        resourceVersion,
      };
      prepared.resource = eventJson(type, object);
      prepared.resourceEvent = { type, object };
    }
    return prepared;
  }

  /**
   * The model as a read answers it: nulls and write-only values never. The operation's own when it
   * kept one, the record's otherwise (an operation that failed after its provider made the resource).
   * Without the type (deregistered since), nothing: what is write-only cannot be told.
   */
  private async model(
    typeName: string,
    identifier: string,
    kept: Model | undefined,
  ): Promise<Model | undefined> {
    let type;
    try {
      type = (await this.registry.get(typeName)).type;
    } catch {
      return undefined;
    }
    const model = kept ?? (await this.store.getResource(typeName, identifier))?.properties;
    if (!model) return undefined;
    return stripNulls(type.writeOnlyProperties.length === 0 ? model : stripWriteOnly(type, model));
  }
}

/**
 * The resources of `type` as they stand, as ADDED events at `version` (a watch from now starts with
 * them, as Kubernetes' does), a page of stored records at a time; `send` waits for the client.
 */
export async function currentResources(
  store: Store,
  type: ResourceType,
  version: number,
  send: (events: string[]) => Promise<boolean>,
  keep: (identifier: string, properties: Model) => boolean = () => true,
): Promise<void> {
  const resourceVersion = String(version);
  let nextToken: string | undefined;
  do {
    const page = await store.listResources(type.typeName, {
      limit: 100,
      ...(nextToken ? { nextToken } : {}),
    });
    const events: string[] = [];
    for (const r of page.items) {
      const properties = stripNulls(
        type.writeOnlyProperties.length === 0 ? r.properties : stripWriteOnly(type, r.properties),
      );
      if (keep(r.identifier, properties))
        events.push(
          eventJson('ADDED', {
            typeName: type.typeName,
            identifier: r.identifier,
            properties,
            resourceVersion,
          }),
        );
    }
    if (!(await send(events))) return;
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
}

export function eventJson(type: WatchEventType, object: unknown): string {
  return JSON.stringify({ type, object });
}

/** A BOOKMARK: the watch has every change it may see up to `version`. */
export function bookmarkJson(version: number | string): string {
  return eventJson('BOOKMARK', { resourceVersion: String(version) });
}

/** The ERROR event that ends a watch: why, with an error code as API errors carry, and its HTTP status. */
export function errorJson(errorCode: string, code: number, message: string): string {
  return eventJson('ERROR', { errorCode, code, message });
}

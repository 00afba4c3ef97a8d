/**
 * @module Listing stacks: a page of the live ones, or of the deleted ones kept for the retention,
 * each only when the caller sees every type it has used; the page's `nextToken` sealed. Deleted
 * stacks past the retention are forgotten here.
 */
import { invalidCursor } from '../store/cursor.js';
import type { StacksCore } from './core.js';
import { usedTypes } from './reach.js';
import type { DeletedStack, StackStatus } from './records.js';

/** What a listing's `nextToken` is sealed for: opaque, it names no stack (nor one out of reach). */
const LIST_CURSOR = 'stack-list-cursor';

export interface ListOptions {
  limit?: number;
  nextToken?: string;
  visible?: (typeName: string) => boolean;
  /** The deleted stacks instead, oldest deletion first. */
  deleted?: boolean;
}

export interface StackListing {
  stacks: {
    stackName: string;
    stackId?: string;
    status: StackStatus | 'DELETE_COMPLETE';
    updatedAt: string;
    deletedAt?: string;
    description?: string;
    parentId?: string;
    rootId?: string;
  }[];
  nextToken: string | null;
}

export async function list(core: StacksCore, options: ListOptions): Promise<StackListing> {
  if (options.deleted) return listDeleted(core, options);
  const page = await core.records.listStacks(
    Math.min(Math.max(options.limit ?? 100, 1), 1000),
    options.nextToken === undefined ? undefined : openCursor(core, options.nextToken),
  );
  const stacks = [];
  for (const s of page.items) {
    if (options.visible && !(await usedTypes(core.records, s)).every(options.visible)) continue;
    stacks.push({
      stackName: s.name,
      status: s.status,
      updatedAt: s.updatedAt,
      ...(s.description !== undefined ? { description: s.description } : {}),
      ...(s.parentId !== undefined ? { parentId: s.parentId, rootId: s.rootId ?? s.parentId } : {}),
    });
  }
  return {
    stacks,
    nextToken: page.nextToken ? core.sealer.seal(page.nextToken, LIST_CURSOR) : null,
  };
}

async function listDeleted(
  core: StacksCore,
  options: ListOptions,
): Promise<{ stacks: ReturnType<typeof deletedView>[]; nextToken: string | null }> {
  await purgeDeleted(core);
  const page = await core.records.listDeleted(
    Math.min(Math.max(options.limit ?? 100, 1), 1000),
    options.nextToken === undefined ? undefined : openCursor(core, options.nextToken),
  );
  const visible = options.visible;
  return {
    stacks: page.items.filter((d) => !visible || d.types.every(visible)).map(deletedView),
    nextToken: page.nextToken ? core.sealer.seal(page.nextToken, LIST_CURSOR) : null,
  };
}

/** Forget the deleted stacks older than the retention (cheap when there are none: one read). */
export async function purgeDeleted(core: StacksCore): Promise<number> {
  return core.records.purgeDeleted(new Date(Date.now() - core.deletedRetentionMs).toISOString());
}

function openCursor(core: StacksCore, token: string): string {
  try {
    return core.sealer.open(token, LIST_CURSOR);
  } catch {
    throw invalidCursor();
  }
}

/** A deleted stack as the listing shows it. */
function deletedView(d: DeletedStack) {
  return {
    stackName: d.name,
    stackId: d.stackId,
    status: d.status,
    updatedAt: d.deletedAt,
    deletedAt: d.deletedAt,
    ...(d.description !== undefined ? { description: d.description } : {}),
  };
}

/**
 * @module Taking write-only values out of a model and putting them back: what is kept at rest is the
 * model without them plus the values (sealed elsewhere), and the model is whole again only when a
 * provider is handed it.
 */
import type { ErrorDetail } from '../errors.js';
import { pointerTokens } from '../schema/diagnostics.js';
import type { ResourceType } from '../schema/model.js';
import type { Model } from './types.js';
import { cloneJson, isObject, setOwn } from './json.js';
import { copyWithout, propertyTokens, valuesAt, type ModelPath } from './pointer.js';

/** A value a write-only pointer designates, and where it is in the model. */
export type WriteOnlyValue = [path: ModelPath, value: unknown];

/**
 * `model` without its write-only values, and those values in document order per pointer. When there
 * are none, `model` itself is returned (not a copy) with no values: most models cost nothing here.
 *
 * @example
 * splitWriteOnly(type, { Name: 'a', Users: [{ Password: 'p' }] }) // Users/*\/Password is write-only
 * // → { model: { Name: 'a', Users: [{}] }, values: [[['Users', 0, 'Password'], 'p']] }
 */
export function splitWriteOnly(type: ResourceType, model: Model): { model: Model; values: WriteOnlyValue[] } {
  const values: WriteOnlyValue[] = [];
  for (const pointer of type.writeOnlyProperties) {
    for (const { path, value } of valuesAt(model, pointer)) values.push([path, value]);
  }
  if (values.length === 0) return { model, values };
  return { model: copyWithout(model, type.writeOnlyProperties), values: cloneJson(values) };
}

/**
 * Put write-only values back into `model` (in place). A value goes where its path says when the
 * container it belongs in exists (an array takes the next index only, so no holes are made); with
 * `onlyMissing`, a value already there is left as it is.
 */
export function mergeWriteOnly(model: Model, values: readonly WriteOnlyValue[], onlyMissing = false): Model {
  for (const [path, value] of values) {
    if (path.length === 0) continue;
    let container: unknown = model;
    for (const step of path.slice(0, -1)) {
      container = Array.isArray(container)
        ? container[step as number]
        : isObject(container) && Object.hasOwn(container, step)
          ? container[step]
          : undefined;
      if (container === undefined) break;
    }
    const last = path.at(-1)!;
    if (Array.isArray(container) && typeof last === 'number') {
      if (last < container.length) {
        if (!onlyMissing || container[last] === undefined) container[last] = cloneJson(value);
      } else if (last === container.length) container.push(cloneJson(value));
    } else if (isObject(container) && typeof last === 'string') {
      if (!onlyMissing || container[last] === undefined) setOwn(container, last, cloneJson(value));
    }
  }
  return model;
}

/**
 * Whether a model path (a JSON Patch path such as `/Users/0/Pin`) designates a write-only value,
 * lies inside one, or holds one (`/Users` holds every `Pin`).
 */
export function touchesWriteOnly(type: ResourceType, path: string): boolean {
  const tokens = pointerTokens(path);
  return type.writeOnlyProperties.some((pointer) => {
    const writeOnly = propertyTokens(pointer);
    if (!writeOnly) return false;
    const shared = Math.min(tokens.length, writeOnly.length);
    for (let i = 0; i < shared; i++) if (writeOnly[i] !== '*' && writeOnly[i] !== tokens[i]) return false;
    return true;
  });
}

/**
 * The operations of a patch that would read a write-only value: a `test` compares one (an oracle for
 * guessing it), a `copy` or `move` from one could place it where reads show it. A patch may set
 * write-only values, never read them.
 */
export function patchReadsWriteOnly(type: ResourceType, patch: unknown): ErrorDetail[] {
  if (!Array.isArray(patch) || type.writeOnlyProperties.length === 0) return [];
  const problems: ErrorDetail[] = [];
  patch.forEach((operation: unknown, index) => {
    if (!isObject(operation)) return;
    if (
      operation.op === 'test' &&
      typeof operation.path === 'string' &&
      touchesWriteOnly(type, operation.path)
    )
      problems.push({ pointer: `/${index}/path`, index, message: 'cannot test a write-only value' });
    if (
      (operation.op === 'copy' || operation.op === 'move') &&
      typeof operation.from === 'string' &&
      touchesWriteOnly(type, operation.from)
    )
      problems.push({
        pointer: `/${index}/from`,
        index,
        message: `cannot ${operation.op} from a write-only value`,
      });
  });
  return problems;
}

/**
 * @module Drift: every resource of a stack read through its provider and compared, leaf by leaf,
 * with what the stack last applied (write-only properties skipped, secrets masked in what is shown).
 */
import { TypeplaneError } from '../errors.js';
import { jsonEqual, touchesWriteOnly } from '../model/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import type { StacksCore } from './core.js';
import { stackNotFound, unnamed, type Authorize } from './reach.js';
import type { StackRecord } from './records.js';
import { mask } from './secrets.js';
import { withReferencesResolved } from './parameter-store/index.js';
import { isCustomResourceType } from './custom-resources/index.js';
import { NESTED_STACK_TYPE } from './nested/index.js';

export interface DriftDifference {
  path: string;
  expected?: unknown;
  actual?: unknown;
  kind: 'ADD' | 'REMOVE' | 'NOT_EQUAL';
}

export interface ResourceDrift {
  logicalId: string;
  type: string;
  identifier?: string;
  status: 'IN_SYNC' | 'MODIFIED' | 'DELETED';
  differences: DriftDifference[];
}

export async function drift(
  core: StacksCore,
  name: string,
  authorize: Authorize,
): Promise<{ stackName: string; status: 'IN_SYNC' | 'DRIFTED'; resources: ResourceDrift[] }> {
  const current = await core.records.getStack(name);
  if (!current) throw stackNotFound(name);
  const records = await core.records.getResources(name);
  await unnamed(`stack ${name}`, () => authorize([...new Set([...records.values()].map((r) => r.type))]));
  const secrets = await secretsOf(core, current.record);
  const resources: ResourceDrift[] = [];
  for (const rec of records.values()) {
    // A custom resource has no provider to read it from, and a nested stack's drift is its own (its
    // resources are checked by checking it): as in CloudFormation, a stack's drift does not check them.
    if (rec.identifier === undefined || isCustomResourceType(rec.type) || rec.type === NESTED_STACK_TYPE)
      continue;
    const type = (await core.ctx.types.get(rec.type))?.type;
    const base = { logicalId: rec.logicalId, type: rec.type, identifier: rec.identifier };
    let actual: Record<string, unknown>;
    try {
      actual = (await core.ctx.engine.read(rec.type, rec.identifier)).properties;
    } catch (e) {
      if (e instanceof TypeplaneError && e.code === 'NotFound') {
        resources.push({ ...base, status: 'DELETED', differences: [] });
        continue;
      }
      throw e;
    }
    const differences = compare(
      await withReferencesResolved(rec.properties, core.ctx.parameterStore, authorize),
      actual,
      '',
      (path) => type !== undefined && touchesWriteOnly(type, path),
    ).map((d) => ({
      ...d,
      ...('expected' in d ? { expected: mask(d.expected, secrets) } : {}),
      ...('actual' in d ? { actual: mask(d.actual, secrets) } : {}),
    }));
    // Properties the stack never set (read-only ones, defaults) are not drift; only those it set are compared.
    resources.push({ ...base, status: differences.length > 0 ? 'MODIFIED' : 'IN_SYNC', differences });
  }
  const status = resources.every((r) => r.status === 'IN_SYNC') ? 'IN_SYNC' : 'DRIFTED';
  core.ctx.observer?.driftChecked(
    status,
    resources.map((r) => r.status),
  );
  return { stackName: name, status, resources };
}

/** A stack's secret texts: its NoEcho values and the values of the secret exports it imports. */
async function secretsOf(core: StacksCore, s: StackRecord): Promise<string[]> {
  const out: string[] = [];
  for (const [name, v] of Object.entries(s.parameters ?? {}))
    if ('sealed' in v) {
      const value = core.records.open(v, `stack-parameter:${s.name}/${name}`);
      for (const item of Array.isArray(value) ? value : [value])
        if (String(item) !== '') out.push(String(item));
    }
  for (const name of s.imports) {
    const held = await core.records.getExport(name);
    if (held && 'sealed' in held.value)
      out.push(String(core.records.open(held.value, `stack-export:${name}`)));
  }
  return out;
}

/** Differences between what the stack set (`expected`) and what the provider reports, leaf by leaf. */
export function compare(
  expected: unknown,
  actual: unknown,
  path: string,
  skip: (path: string) => boolean,
): DriftDifference[] {
  if (path !== '' && skip(path)) return [];
  const isMap = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isMap(expected) && isMap(actual)) {
    const out: DriftDifference[] = [];
    for (const [k, v] of Object.entries(expected)) {
      const at = `${path}/${escapePointerToken(k)}`;
      if (skip(at)) continue;
      if (!Object.hasOwn(actual, k)) out.push({ path: at, expected: v, kind: 'REMOVE' });
      else out.push(...compare(v, actual[k], at, skip));
    }
    // Members added inside a property the stack set are drift; top-level ones the stack never set are not.
    if (path !== '')
      for (const [k, v] of Object.entries(actual))
        if (!Object.hasOwn(expected, k) && !skip(`${path}/${escapePointerToken(k)}`))
          out.push({ path: `${path}/${escapePointerToken(k)}`, actual: v, kind: 'ADD' });
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length !== actual.length) {
    if (actual.length > expected.length) return [{ path, expected, actual, kind: 'ADD' }];
    return [{ path, expected, actual, kind: 'REMOVE' }];
  }
  return jsonEqual(expected, actual) ? [] : [{ path, expected, actual, kind: 'NOT_EQUAL' }];
}

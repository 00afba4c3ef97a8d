/**
 * @module The parameter store of templates: SSM parameter types, resolved when a stack is planned or
 * deployed, and dynamic references (`{{resolve:ssm|ssm-secure|secretsmanager:…}}`), resolved when a
 * resource is made. Both read the server's own `AWS::SSM::Parameter` and
 * `AWS::SecretsManager::Secret` resources, with the access of who deploys (see docs/stacks.md).
 *
 * @example
 * const store = serverParameterStore({ engine, types, store, sealer });
 * const { parameters, resolved } = await resolveParameterTypes(template, given, store);
 */
import { TypeplaneError } from '../../errors.js';
import type { Caller } from '../../engine/index.js';
import type { StackEngine } from '../stages/state.js';
import type { Authorize } from '../reach.js';
import type { Template } from '../template.js';
import type { Analysis } from '../analyze.js';
import { storeParameters } from './parameter-types.js';
import {
  UnresolvedReference,
  holdsReference,
  isSecure,
  parseReferences,
  resolveReferences,
  typeRead,
  type DynamicReference,
} from './references.js';
import { SSM_PARAMETER_TYPE, type ParameterStore } from './store.js';

export { resolveParameterTypes, storeParameters, type ResolvedParameter } from './parameter-types.js';
export { ssmParameterType } from './ssm-types.js';
export { MAX_DYNAMIC_REFERENCES, checkDynamicReferences, type DynamicReference } from './references.js';
export { serverParameterStore, type ParameterStore } from './store.js';

/** The dynamic references written in a template's resource properties (Fn::Sub strings among them). */
export function referencesOf(template: Template): DynamicReference[] {
  const out: DynamicReference[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      if (!holdsReference(value)) return;
      const parsed = parseReferences(value);
      if (typeof parsed !== 'string') out.push(...parsed);
    } else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) walk(item);
  };
  for (const resource of template.resources.values()) walk(resource.properties);
  return out;
}

/**
 * Refuses (AccessDenied, naming what needs it) a caller who cannot reach a type the template reads
 * from the parameter store: `AWS::SSM::Parameter` for its SSM parameter types and `ssm` references,
 * `AWS::SecretsManager::Secret` for its `secretsmanager` ones.
 */
export function authorizeStoreReads(template: Template, authorize: Authorize): void {
  const needed = new Map<string, string>();
  for (const p of storeParameters(template))
    if (!needed.has(SSM_PARAMETER_TYPE)) needed.set(SSM_PARAMETER_TYPE, `parameter ${p.name}'s type`);
  for (const reference of referencesOf(template))
    if (!needed.has(typeRead(reference))) needed.set(typeRead(reference), `the reference ${reference.text}`);
  for (const [typeName, what] of needed)
    try {
      authorize([typeName]);
    } catch (e) {
      if (!(e instanceof TypeplaneError && e.code === 'AccessDenied')) throw e;
      throw new TypeplaneError(
        'AccessDenied',
        `${what} reads the server's ${typeName} resources, which this token cannot reach: deploy it with a token scoped to ${typeName} as well`,
      );
    }
}

/**
 * A keyed digest of each value a plan read for an SSM parameter type (NoEcho ones included, unshown),
 * kept with the plan: applying it re-reads them, and {@link changedSincePlan} says which differ.
 */
export function planDigests(
  analysis: Pick<Analysis, 'parameters' | 'resolvedParameters'>,
  mac: (data: string) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { parameter, name } of analysis.resolvedParameters ?? [])
    out[parameter] = mac(
      JSON.stringify(['plan-parameter', parameter, name, analysis.parameters.get(parameter)]),
    );
  return out;
}

/** The parameters whose value read now differs from the one the plan read (see {@link planDigests}). */
export function changedSincePlan(
  planned: Record<string, string> | undefined,
  analysis: Pick<Analysis, 'parameters' | 'resolvedParameters'>,
  mac: (data: string) => string,
): string[] {
  const now = planDigests(analysis, mac);
  const names = new Set([...Object.keys(planned ?? {}), ...Object.keys(now)]);
  return [...names].filter((n) => planned?.[n] !== now[n]);
}

/**
 * `value` with its dynamic references replaced by what they name now (what drift compares with), or
 * as it is when one names nothing now or reads a type the caller does not reach (the difference then
 * shows the reference).
 */
export async function withReferencesResolved(
  value: unknown,
  store: ParameterStore,
  authorize: Authorize,
): Promise<unknown> {
  try {
    return (await resolveReferences(value, store, (reference) => authorize([typeRead(reference)]))).value;
  } catch (e) {
    // Nor is a value shown to a caller who does not reach the type it is read from.
    if (e instanceof UnresolvedReference || (e instanceof TypeplaneError && e.code === 'AccessDenied'))
      return value;
    throw e;
  }
}

/**
 * An output's value with its `{{resolve:ssm:…}}` references resolved, as CloudFormation resolves them
 * in Outputs; `ssm-secure` and `secretsmanager` ones stay the reference's text, as CloudFormation
 * shows them there (it never returns a secure value). A reference that names nothing, or reads a type
 * the caller does not reach, fails the output, saying which.
 */
export async function outputReferencesResolved(
  value: unknown,
  store: ParameterStore,
  caller: Caller | undefined,
): Promise<unknown> {
  try {
    return (
      await resolveReferences(
        value,
        store,
        (reference) => {
          if (caller && !caller.canSee(typeRead(reference)))
            throw new TypeplaneError(
              'AccessDenied',
              `${reference.text} reads the server's ${typeRead(reference)} resources, which the token deploying this stack cannot reach`,
            );
        },
        (reference) => !isSecure(reference),
      )
    ).value;
  } catch (e) {
    if (e instanceof UnresolvedReference) throw new TypeplaneError('InvalidRequest', e.message);
    throw e;
  }
}

/**
 * The engine as a deployment uses it, with each dynamic reference in a create's properties or an
 * update's patch replaced by its value as the operation is asked for: the stack keeps the reference,
 * only the resource gets the value. A reference that names nothing fails the operation (and so the
 * step, which rolls back), saying which.
 */
export function resolvingEngine(engine: StackEngine, store: ParameterStore): StackEngine {
  const resolved = async (value: unknown, caller: Caller | undefined): Promise<unknown> => {
    try {
      // Whatever wrote the reference (the template, a parameter's value, an attribute read), only a
      // caller who reaches the type it reads has it resolved.
      return (
        await resolveReferences(value, store, (reference) => {
          if (caller && !caller.canSee(typeRead(reference)))
            throw new TypeplaneError(
              'AccessDenied',
              `${reference.text} reads the server's ${typeRead(reference)} resources, which the token deploying this stack cannot reach`,
            );
        })
      ).value;
    } catch (e) {
      if (e instanceof UnresolvedReference) throw new TypeplaneError('InvalidRequest', e.message);
      throw e;
    }
  };
  return {
    create: async (typeName, desiredState, clientToken, caller, ...rest) =>
      engine.create(typeName, await resolved(desiredState, caller), clientToken, caller, ...rest),
    update: async (typeName, identifier, patch, clientToken, caller, ...rest) =>
      engine.update(typeName, identifier, await resolved(patch, caller), clientToken, caller, ...rest),
    delete: (...args) => engine.delete(...args),
    read: (...args) => engine.read(...args),
    waitFor: (...args) => engine.waitFor(...args),
    readOnlyNeverSet: (...args) => engine.readOnlyNeverSet(...args),
    preview: (...args) => engine.preview(...args),
    review: (...args) => engine.review(...args),
    judgesAny: (...args) => engine.judgesAny(...args),
  };
}

/**
 * @module SSM parameter types resolved: a parameter whose value (or Default) is the name of an SSM parameter.
 * `AWS::SSM::Parameter::Value<…>` takes that parameter's value, read anew for each plan and
 * deployment (so a changed value is a change, as CloudFormation re-reads it on each update);
 * `AWS::SSM::Parameter::Name` keeps the name, which must exist.
 */
import type { Diagnostic } from '../../schema/index.js';
import { escapePointerToken } from '../../schema/diagnostics.js';
import { MASK } from '../parameters.js';
import { stackDiagnostic } from '../rules.js';
import type { ParameterDeclaration, Template } from '../template.js';
import { SSM_PARAMETER_TYPE, type ParameterStore } from './store.js';

/** The most parameters of SSM parameter types a template may declare (each is read from the store). */
export const MAX_STORE_PARAMETERS = 200;

/** What a plan shows of a parameter read from the parameter store. */
export interface ResolvedParameter {
  /** The template's parameter. */
  parameter: string;
  /** The SSM parameter it names. */
  name: string;
  /** The value read (`****` for a NoEcho parameter); absent for `AWS::SSM::Parameter::Name`. */
  value?: string;
}

/**
 * The parameter values with each SSM parameter type's name replaced by the value it names now (or,
 * for `AWS::SSM::Parameter::Name`, checked to exist), what was read, and a located diagnostic (at
 * the value given, or the Default) for each name that names nothing.
 */
export async function resolveParameterTypes(
  template: Template,
  given: Record<string, unknown>,
  store: ParameterStore,
): Promise<{
  parameters: Record<string, unknown>;
  resolved: ResolvedParameter[];
  diagnostics: Diagnostic[];
}> {
  const parameters = { ...given };
  const resolved: ResolvedParameter[] = [];
  const diagnostics: Diagnostic[] = [];
  const declared = storeParameters(template);
  // Each is a read of the store: as many as CloudFormation allows parameters, each name read once.
  if (declared.length > MAX_STORE_PARAMETERS)
    return {
      parameters,
      resolved,
      diagnostics: [
        stackDiagnostic(
          'TP4011',
          '/Parameters',
          `the template declares ${declared.length} parameters of SSM parameter types; at most ${MAX_STORE_PARAMETERS} are allowed (CloudFormation's limit on parameters)`,
        ),
      ],
    };
  const read = new Map<string, ReturnType<ParameterStore['parameter']>>();
  for (const declaration of declared) {
    const isGiven = Object.hasOwn(given, declaration.name);
    const raw = isGiven ? given[declaration.name] : declaration.default;
    // No value is reported by the analysis.
    if (raw === undefined) continue;
    const pointer = `/Parameters/${escapePointerToken(declaration.name)}${isGiven ? '' : '/Default'}`;
    const name = typeof raw === 'number' ? String(raw) : raw;
    if (typeof name !== 'string' || name === '') {
      diagnostics.push(
        stackDiagnostic(
          'TP4012',
          pointer,
          `parameter ${declaration.name}: ${isGiven ? 'the value given' : 'its Default'} must be the name of an SSM parameter (a string), as its type reads its value from the parameter store`,
        ),
      );
      continue;
    }
    if (!read.has(name)) read.set(name, store.parameter(name));
    const found = await read.get(name)!;
    if ('missing' in found) {
      diagnostics.push(
        stackDiagnostic(
          'TP4012',
          pointer,
          `parameter ${declaration.name}: ${isGiven ? 'the value given' : 'its Default'} names an SSM parameter, and ${found.missing}; create it (an ${SSM_PARAMETER_TYPE} resource with that Name and a Value), or name another (--parameters ${declaration.name}=…)`,
        ),
      );
      continue;
    }
    if (declaration.parameterStore === 'name') {
      resolved.push({ parameter: declaration.name, name });
      continue;
    }
    parameters[declaration.name] = found.found.value;
    resolved.push({
      parameter: declaration.name,
      name,
      value: declaration.noEcho ? MASK : found.found.value,
    });
  }
  return { parameters, resolved, diagnostics };
}

/** The template's parameters of an SSM parameter type. */
export function storeParameters(template: Template): ParameterDeclaration[] {
  return [...template.parameters.values()].filter((p) => p.parameterStore !== undefined);
}

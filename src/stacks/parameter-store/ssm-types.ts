/**
 * @module The SSM parameter types a template may declare, read from their names (no other import:
 * the template reader uses it).
 */
const VALUE_TYPE = /^AWS::SSM::Parameter::Value<(.+)>$/;
const AWS_TYPE = /^AWS::[A-Za-z0-9:]+$/;
const AWS_LIST_TYPE = /^List<AWS::[A-Za-z0-9:]+>$/;

/**
 * The value type of an SSM parameter type, and whether the parameter is the value read (`value`) or
 * the name checked (`name`); undefined for any other type. The list forms split on commas.
 */
export function ssmParameterType(
  raw: string,
): { type: 'String' | 'CommaDelimitedList'; parameterStore: 'value' | 'name' } | undefined {
  if (raw === 'AWS::SSM::Parameter::Name') return { type: 'String', parameterStore: 'name' };
  const inner = VALUE_TYPE.exec(raw)?.[1];
  if (inner === undefined) return undefined;
  if (inner === 'String' || AWS_TYPE.test(inner)) return { type: 'String', parameterStore: 'value' };
  if (inner === 'List<String>' || inner === 'CommaDelimitedList' || AWS_LIST_TYPE.test(inner))
    return { type: 'CommaDelimitedList', parameterStore: 'value' };
  return undefined;
}

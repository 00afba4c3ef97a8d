/**
 * @module What a template value refers to, read from its text alone (every branch of every Fn::If):
 * parameters, resources and their attributes, conditions, mappings. The graph's edges and the
 * validator's target checks both come from here.
 */
import { escapePointerToken } from '../schema/diagnostics.js';
import { getAttTarget, intrinsicOf, isNamedLater, subPieces } from './intrinsics.js';

export type Reference =
  /** `Ref X` or `${X}`: a parameter, a resource or a pseudo parameter. */
  | { kind: 'ref'; name: string; pointer: string }
  /** `path` empty when a `Ref` names the attribute (known when evaluated, checked then). */
  | { kind: 'getatt'; logicalId: string; path: string[]; pointer: string }
  | { kind: 'condition'; name: string; pointer: string };

export function referencesIn(value: unknown, pointer: string, out: Reference[] = []): Reference[] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => referencesIn(item, `${pointer}/${i}`, out));
    return out;
  }
  if (typeof value !== 'object' || value === null) return out;
  const call = intrinsicOf(value);
  const record = value as Record<string, unknown>;
  if (!call) {
    const keys = Object.keys(record);
    if (keys.length === 1 && keys[0] === 'Condition' && typeof record.Condition === 'string') {
      out.push({ kind: 'condition', name: record.Condition, pointer: `${pointer}/Condition` });
      return out;
    }
    for (const [key, item] of Object.entries(record))
      referencesIn(item, `${pointer}/${escapePointerToken(key)}`, out);
    return out;
  }
  const at = `${pointer}/${escapePointerToken(call.name)}`;
  const argument = call.argument;
  switch (call.name) {
    case 'Ref':
      if (typeof argument === 'string') out.push({ kind: 'ref', name: argument, pointer: at });
      return out;
    case 'Fn::GetAtt': {
      const target = getAttTarget(argument);
      if (target) out.push({ kind: 'getatt', ...target, pointer: at });
      else if (Array.isArray(argument) && argument.length === 2 && isNamedLater(argument)) {
        out.push({ kind: 'getatt', logicalId: argument[0] as string, path: [], pointer: at });
        referencesIn(argument[1], `${at}/1`, out);
      }
      return out;
    }
    case 'Fn::Sub': {
      const [template, variables] = Array.isArray(argument) ? argument : [argument, undefined];
      const local =
        typeof variables === 'object' && variables !== null
          ? new Set(Object.keys(variables))
          : new Set<string>();
      if (typeof template === 'string')
        for (const piece of subPieces(template)) {
          if (!('variable' in piece) || local.has(piece.variable)) continue;
          const name = piece.variable;
          const target = name.includes('.') && !name.startsWith('AWS::') ? getAttTarget(name) : undefined;
          if (target) out.push({ kind: 'getatt', ...target, pointer: at });
          else out.push({ kind: 'ref', name, pointer: at });
        }
      if (Array.isArray(argument)) referencesIn(variables, `${at}/1`, out);
      return out;
    }
    case 'Fn::If':
      if (Array.isArray(argument) && typeof argument[0] === 'string')
        out.push({ kind: 'condition', name: argument[0], pointer: `${at}/0` });
      if (Array.isArray(argument))
        argument.slice(1).forEach((item, i) => referencesIn(item, `${at}/${i + 1}`, out));
      return out;
    default:
      return referencesIn(argument, at, out);
  }
}

/**
 * @module Finding and replacing a template's reads of the recipe context: `Fn::GetAtt` of the logical
 * id `context` (`!GetAtt context.resource.properties.size`) and `${context.…}` in `Fn::Sub`. Pure: the
 * same walk finds the reads at registration (each replaced by a parameter, so the stack analysis sees
 * a value known only at deploy) and binds them at deploy (each replaced by the instance's value).
 */
import { getAttTarget, intrinsicOf } from '../stacks/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { CONTEXT } from './context.js';

/** One read of the context, where the template makes it. */
export interface ContextUse {
  path: string[];
  /** Pointer of the `Fn::GetAtt` (or of the `Fn::Sub` whose string reads it). */
  pointer: string;
  /** Read inside an `Fn::Sub` string: the value becomes text. */
  inSub: boolean;
}

/** The sections whose values may read the context (Parameters, Mappings, Metadata and Rules do not). */
const SECTIONS = ['Resources', 'Outputs', 'Conditions'] as const;

/**
 * A copy of the template `value` in which every context read is replaced by `replace(use)`; `Fn::Sub`
 * reads become variables of the `Fn::Sub` (named by `variable()`), so that the value replacing them is
 * never read as `${…}` text itself.
 */
export function rewriteContext(
  template: Record<string, unknown>,
  replace: (use: ContextUse) => unknown,
  variable: () => string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...template };
  for (const section of SECTIONS) {
    if (Object.hasOwn(template, section))
      out[section] = walk(template[section], `/${section}`, replace, variable);
  }
  return out;
}

/** Every context read of a template, in document order. */
export function contextUses(template: Record<string, unknown>): ContextUse[] {
  const uses: ContextUse[] = [];
  let n = 0;
  rewriteContext(
    template,
    (use) => {
      uses.push(use);
      return null;
    },
    () => `V${n++}`,
  );
  return uses;
}

function walk(
  value: unknown,
  pointer: string,
  replace: (use: ContextUse) => unknown,
  variable: () => string,
): unknown {
  if (Array.isArray(value)) return value.map((item, i) => walk(item, `${pointer}/${i}`, replace, variable));
  if (typeof value !== 'object' || value === null) return value;
  const call = intrinsicOf(value);
  if (call?.name === 'Fn::GetAtt') {
    const target = getAttTarget(call.argument as never);
    if (target?.logicalId === CONTEXT)
      return replace({ path: target.path, pointer: `${pointer}/Fn::GetAtt`, inSub: false });
  }
  if (call?.name === 'Fn::Sub') {
    const at = `${pointer}/Fn::Sub`;
    const [text, variables] = Array.isArray(call.argument) ? call.argument : [call.argument, undefined];
    if (typeof text === 'string') {
      const added: Record<string, unknown> = {};
      const rewritten = replaceSubVariables(text, (inner) => {
        if (!inner.startsWith(`${CONTEXT}.`)) return undefined;
        const name = variable();
        added[name] = replace({ path: inner.slice(CONTEXT.length + 1).split('.'), pointer: at, inSub: true });
        return name;
      });
      const vars =
        typeof variables === 'object' && variables !== null && !Array.isArray(variables)
          ? (walk(variables, `${at}/1`, replace, variable) as Record<string, unknown>)
          : variables;
      if (Object.keys(added).length === 0)
        return Array.isArray(call.argument) ? { 'Fn::Sub': [text, vars, ...call.argument.slice(2)] } : value;
      return { 'Fn::Sub': [rewritten, { ...(vars as Record<string, unknown> | undefined), ...added }] };
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    out[key] = walk(item, `${pointer}/${escapePointerToken(key)}`, replace, variable);
  return out;
}

/**
 * `text` with each `${name}` for which `rename(name)` answers replaced by `${answer}`; literal
 * `${!…}` and everything else kept as written (the same scan as the stacks' `Fn::Sub`).
 */
function replaceSubVariables(text: string, rename: (name: string) => string | undefined): string {
  let out = '';
  let at = 0;
  for (;;) {
    const start = text.indexOf('${', at);
    if (start < 0) break;
    const end = text.indexOf('}', start + 2);
    if (end < 0) break;
    const inner = text.slice(start + 2, end);
    const renamed = inner.startsWith('!') ? undefined : rename(inner.trim());
    out += text.slice(at, start) + (renamed === undefined ? text.slice(start, end + 1) : `\${${renamed}}`);
    at = end + 1;
  }
  return out + text.slice(at);
}

/**
 * Where a value would be read as a template function if put in a template as it is (an object whose
 * one key is `Ref`, `Condition` or `Fn::…`): such instance values are not bound (they would run with
 * the recipe's rights). Undefined when the value is inert.
 */
export function activePart(value: unknown, pointer = ''): string | undefined {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = activePart(value[i], `${pointer}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const keys = Object.keys(value);
  if (keys.length === 1 && (keys[0] === 'Ref' || keys[0] === 'Condition' || keys[0]!.startsWith('Fn::')))
    return pointer === '' ? '/' : pointer;
  for (const key of keys) {
    const found = activePart(
      (value as Record<string, unknown>)[key],
      `${pointer}/${escapePointerToken(key)}`,
    );
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * @module Registering a recipe checks it against its type before any instance exists: every context
 * value it reads exists and fits where it is used, every output lands on a read-only (or, for
 * secrets, write-only) property it fits, every required read-only property is produced, every
 * parameter gets a value, and the template itself validates as a stack template would — all
 * problems at once, located in the recipe's own text.
 */
import { resolverOf } from '../model/index.js';
import type { Diagnostic, ResourceType } from '../schema/index.js';
import { hasErrors } from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { closestName } from '../schema/similar-names.js';
import {
  getAttTarget,
  intrinsicOf,
  loadTemplate,
  locate,
  parseTypeReference,
  subPieces,
  type Template,
} from '../stacks/index.js';
import { CONTEXT, contextNames, fits, kindsOf, pathInfo, underWriteOnly, type Kind } from './context.js';
import { contextUses, rewriteContext, type ContextUse } from './rewrite.js';
import { recipeDiagnostic } from './rules.js';
import { outputTargets, readSpec, type OutputTarget, type RecipeSpec } from './spec.js';

export interface CheckOptions {
  text: string;
  file?: string;
  type: ResourceType;
  /** The environment's defaults for the template's parameters. */
  parameters: Record<string, unknown>;
  /** The stacks' validation, unscoped (an admin registers recipes). */
  validate(text: string): Promise<{ diagnostics: Diagnostic[]; types: string[] }>;
  /** A registered type, for the fit of inputs into the recipe's resources. */
  lowerType(typeName: string): Promise<ResourceType | undefined>;
}

export interface CheckResult {
  valid: boolean;
  diagnostics: Diagnostic[];
  /** The types the recipe makes. */
  types: string[];
  spec: RecipeSpec;
}

/** Names of the parameters standing for context values in the template the stacks analyse. */
export const PROBE_PREFIX = 'TpContext';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export async function checkRecipe(options: CheckOptions): Promise<CheckResult> {
  const { type, file } = options;
  const loaded = loadTemplate(options.text, file);
  const spec: RecipeSpec = { generated: [] };
  if (!loaded.template) return { valid: false, diagnostics: loaded.diagnostics, types: [], spec };
  const template = loaded.template;
  const doc = template.document.value as Record<string, unknown>;
  const mine: Diagnostic[] = [];
  const read = readSpec(doc);
  Object.assign(spec, read.spec);
  mine.push(...read.diagnostics);

  if (template.parameters.has(CONTEXT) || template.resources.has(CONTEXT))
    mine.push(
      recipeDiagnostic(
        'TP7007',
        template.parameters.has(CONTEXT) ? `/Parameters/${CONTEXT}` : `/Resources/${CONTEXT}`,
        `'${CONTEXT}' is what a recipe reads its instance from (!GetAtt ${CONTEXT}.resource.properties.…); rename this one`,
      ),
    );
  for (const name of spec.generated) {
    const p = template.parameters.get(name);
    if (!p || !p.noEcho || p.type !== 'String')
      mine.push(
        recipeDiagnostic(
          'TP7007',
          `/Metadata/${escapePointerToken('Typeplane::Recipe')}/GeneratedSecrets`,
          `GeneratedSecrets names ${name}, which must be a parameter of Type String with NoEcho: true`,
        ),
      );
  }

  // Context reads: each must exist, and fit where it is used.
  const uses = contextUses(doc);
  const probes = new Map<string, { name: string; kinds: Set<Kind>; secret: boolean }>();
  const taken = new Set([...template.parameters.keys(), ...template.resources.keys()]);
  let n = 0;
  for (const use of uses) {
    const found = pathInfo(type, use.path);
    // A path that does not exist still stands for a value to the stacks' analysis, so that it
    // reports only the template's own problems.
    const info = found ?? { kinds: new Set<Kind>(['string']), secret: false };
    if (!found) mine.push(missingContext(type, use));
    if (
      use.inSub &&
      !info.kinds.has('string') &&
      !info.kinds.has('number') &&
      !info.kinds.has('integer') &&
      !info.kinds.has('boolean')
    )
      mine.push(
        recipeDiagnostic(
          'TP7002',
          use.pointer,
          `${CONTEXT}.${use.path.join('.')} is ${[...info.kinds].join(' or ')}: it cannot be put in a string; read a field of it, or use !GetAtt`,
        ),
      );
    const key = use.path.join('.');
    if (!probes.has(key)) {
      let name: string;
      do name = `${PROBE_PREFIX}${++n}`;
      while (taken.has(name));
      probes.set(key, { name, ...info });
    }
    if (found && !use.inSub) {
      const problem = await inputFit(options, template, use, info.kinds);
      if (problem) mine.push(problem);
    }
  }

  // The template the stacks analyse: each context read a parameter, known at deploy.
  let i = 0;
  const probe = rewriteContext(
    doc,
    (use) => {
      const p = probes.get(use.path.join('.'));
      return p ? { Ref: p.name } : '';
    },
    () => `${PROBE_PREFIX}Sub${++i}`,
  );
  const parameters = isObject(probe.Parameters) ? { ...probe.Parameters } : {};
  for (const p of probes.values())
    parameters[p.name] = {
      Type: [...p.kinds].every((k) => k === 'number' || k === 'integer') ? 'Number' : 'String',
      ...(p.secret ? { NoEcho: true } : {}),
    };
  probe.Parameters = parameters;
  const probed = await options.validate(JSON.stringify(probe));
  const bound = boundParameters(type, template, options.parameters, spec);
  const fromStacks = probed.diagnostics
    // A parameter without a value gets TP7006 here (or a value at deploy): "no value yet" says nothing.
    .filter((d) => d.rule !== 'TP4025')
    .filter((d) => !(parameterOf(d.pointer) ?? '').startsWith(PROBE_PREFIX) || d.severity === 'error')
    .map((d) => relocated(d, probes, uses));

  // Parameters: each gets a value somewhere.
  for (const [name, p] of template.parameters) {
    if (p.default !== undefined || bound.has(name)) continue;
    mine.push(
      recipeDiagnostic(
        'TP7006',
        `/Parameters/${escapePointerToken(name)}`,
        `parameter ${name} gets no value: give it a Default, a value at the environment (recipe register --parameters ${name}=…), list it in GeneratedSecrets (NoEcho), or declare a property ${name} on ${type.typeName}`,
      ),
    );
  }
  for (const name of Object.keys(options.parameters))
    if (!template.parameters.has(name))
      mine.push(
        recipeDiagnostic(
          'TP7006',
          '/Parameters',
          `the environment sets parameter ${name}, which the template does not declare${hint(name, template.parameters.keys())}`,
        ),
      );
  for (const [name, p] of template.parameters) {
    if (options.parameters[name] !== undefined || p.default !== undefined) continue;
    const nodes = resolverOf(type).walk(`/properties/${escapePointerToken(name)}`);
    if (!nodes) continue;
    if (underWriteOnly(type, [name]) && !p.noEcho)
      mine.push(
        recipeDiagnostic(
          'TP7004',
          `/Parameters/${escapePointerToken(name)}`,
          `parameter ${name} is bound to the write-only property ${name}: declare it NoEcho: true, so its value stays masked and sealed`,
        ),
      );
    const want = new Set<Kind>(
      p.type === 'Number' ? ['number'] : p.type === 'String' ? ['string'] : ['array'],
    );
    const kinds = kindsOf(nodes);
    if (
      p.type === 'String'
        ? !fits(kinds, new Set(['string', 'number', 'integer', 'boolean']))
        : !fits(kinds, want)
    )
      mine.push(
        recipeDiagnostic(
          'TP7002',
          `/Parameters/${escapePointerToken(name)}`,
          `parameter ${name} (${p.type}) is bound to the property ${name}, which is ${[...kinds].join(' or ')}; read it with !GetAtt ${CONTEXT}.resource.properties.${name} instead`,
        ),
      );
  }

  // Outputs: where each lands, whether it fits, whether secrets stay secret.
  const mapped = outputTargets(type, doc, spec);
  mine.push(...mapped.malformed);
  const secretParameters = new Set(
    [...template.parameters.values()].filter((p) => p.noEcho).map((p) => p.name),
  );
  const secretProbes = new Map([...probes.values()].filter((p) => p.secret).map((p) => [p.name, p]));
  for (const target of mapped.targets)
    mine.push(...(await checkTarget(options, template, target, secretParameters, probes, secretProbes)));
  for (const name of mapped.unmapped)
    mine.push(
      recipeDiagnostic(
        'TP7009',
        `/Outputs/${escapePointerToken(name)}`,
        `output ${name} fills no property of ${type.typeName}: name it after a read-only property, or map it in Metadata Typeplane::Recipe Outputs`,
      ),
    );
  const produced = new Set(mapped.targets.map((t) => t.path[0]!));
  const required = Array.isArray(type.schema.required) ? (type.schema.required as string[]) : [];
  for (const name of required)
    if (type.readOnlyProperties.includes(`/properties/${escapePointerToken(name)}`) && !produced.has(name))
      mine.push(
        recipeDiagnostic(
          'TP7005',
          '/Outputs',
          `${type.typeName} requires the read-only property ${name}, which no output fills: add an output ${name} (or map one to it)`,
        ),
      );

  const diagnostics = [
    ...loaded.diagnostics,
    ...fromStacks,
    ...mine.map((d) => locate(d, template.document, file)),
  ];
  diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  return { valid: !hasErrors(diagnostics), diagnostics, types: probed.types, spec };

  function relocated(d: Diagnostic, probesByPath: typeof probes, all: ContextUse[]): Diagnostic {
    // A problem with a probe parameter is the context read's: located where the template reads it.
    const param = parameterOf(d.pointer);
    let pointer = d.pointer;
    if (param?.startsWith(PROBE_PREFIX)) {
      const path = [...probesByPath.entries()].find(([, p]) => p.name === param)?.[0];
      pointer = all.find((u) => u.path.join('.') === path)?.pointer ?? '';
    }
    const { line: _l, column: _c, ...rest } = d;
    return locate({ ...rest, pointer }, template.document, file);
  }
}

function parameterOf(pointer: string): string | undefined {
  const m = /^\/Parameters\/([^/]+)/.exec(pointer);
  return m?.[1];
}

function hint(name: string, candidates: Iterable<string>): string {
  const close = closestName(name, candidates);
  return close ? ` (did you mean ${close}?)` : '';
}

/** The parameters that get a value at deploy: from the environment, the instance, or generated. */
function boundParameters(
  type: ResourceType,
  template: Template,
  environment: Record<string, unknown>,
  spec: RecipeSpec,
): Set<string> {
  const out = new Set<string>();
  for (const name of template.parameters.keys()) {
    if (environment[name] !== undefined || spec.generated.includes(name)) out.add(name);
    else if (resolverOf(type).resolves(`/properties/${escapePointerToken(name)}`)) out.add(name);
  }
  return out;
}

function missingContext(type: ResourceType, use: ContextUse): Diagnostic {
  // The longest prefix that exists, and what could follow it instead of the segment that does not.
  let known = 0;
  for (let k = use.path.length - 1; k > 0; k--) {
    const prefix = use.path.slice(0, k);
    if (pathInfo(type, prefix) !== undefined || (k === 1 && CONTEXT_ROOTS.includes(prefix[0]!))) {
      known = k;
      break;
    }
  }
  const names = contextNames(type, use.path.slice(0, known));
  const close = closestName(use.path[known] ?? '', names);
  const where = known === 0 ? CONTEXT : `${CONTEXT}.${use.path.slice(0, known).join('.')}`;
  return recipeDiagnostic(
    'TP7001',
    use.pointer,
    `${CONTEXT}.${use.path.join('.')} does not exist: ${where} has ${names.length > 0 ? names.slice(0, 12).join(', ') : 'no fields'}${close ? ` (did you mean ${close}?)` : ''}`,
  );
}

const CONTEXT_ROOTS = ['resource', 'environment', 'application', 'recipe'];

/** Whether a context value read straight into a resource property fits that property's schema. */
async function inputFit(
  options: CheckOptions,
  template: Template,
  use: ContextUse,
  kinds: Set<Kind>,
): Promise<Diagnostic | undefined> {
  const m = /^\/Resources\/([^/]+)\/Properties\/(.+)\/Fn::GetAtt$/.exec(use.pointer);
  if (!m) return undefined;
  const declaration = template.resources.get(m[1]!);
  if (!declaration) return undefined;
  const tokens = m[2]!.split('/');
  // Inside a function's arguments the value is transformed: only a plain property value is compared.
  if (tokens.some((t) => t.startsWith('Fn::') || t === 'Ref')) return undefined;
  const lower = await options.lowerType(parseTypeReference(declaration.type).typeName);
  if (!lower) return undefined;
  const pointer = `/properties/${tokens.map((t) => (/^\d+$/.test(t) ? '*' : t)).join('/')}`;
  const nodes = resolverOf(lower).walk(pointer);
  if (!nodes) return undefined; // the stacks' analysis reports an unknown property
  const want = kindsOf(nodes);
  if (fits(kinds, want)) return undefined;
  return recipeDiagnostic(
    'TP7002',
    use.pointer,
    `${CONTEXT}.${use.path.join('.')} is ${[...kinds].join(' or ')}, but ${declaration.type} property ${tokens.join('.')} takes ${[...want].join(' or ')}`,
  );
}

/** The kinds an output expression may have, when they can be told from the template. */
async function expressionKinds(
  options: CheckOptions,
  template: Template,
  expression: unknown,
  probes: Map<string, { name: string; kinds: Set<Kind> }>,
): Promise<Set<Kind> | undefined> {
  if (typeof expression === 'string') return new Set(['string']);
  if (typeof expression === 'boolean') return new Set(['boolean']);
  if (typeof expression === 'number') return new Set([Number.isInteger(expression) ? 'integer' : 'number']);
  if (Array.isArray(expression)) return new Set(['array']);
  const call = intrinsicOf(expression);
  if (!call) return isObject(expression) ? new Set(['object']) : undefined;
  switch (call.name) {
    case 'Fn::Sub':
    case 'Fn::Join':
    case 'Fn::Base64':
      return new Set(['string']);
    case 'Ref': {
      const p = typeof call.argument === 'string' ? template.parameters.get(call.argument) : undefined;
      if (p) return new Set(p.type === 'Number' ? ['number'] : p.type === 'String' ? ['string'] : ['array']);
      return undefined;
    }
    case 'Fn::GetAtt': {
      const target = getAttTarget(call.argument as never);
      if (!target) return undefined;
      if (target.logicalId === CONTEXT) return probes.get(target.path.join('.'))?.kinds;
      const declaration = template.resources.get(target.logicalId);
      if (!declaration) return undefined;
      const lower = await options.lowerType(parseTypeReference(declaration.type).typeName);
      const nodes =
        lower && resolverOf(lower).walk(`/properties/${target.path.map(escapePointerToken).join('/')}`);
      return nodes ? kindsOf(nodes) : undefined;
    }
    default:
      return undefined;
  }
}

/** Names of parameters (and imports) an expression is built from. */
function secretSources(
  expression: unknown,
  secretParameters: Set<string>,
  secretProbes: Map<string, unknown>,
  probes: Map<string, { name: string }>,
): string[] {
  const found: string[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!isObject(v)) return;
    const call = intrinsicOf(v);
    if (call?.name === 'Ref' && typeof call.argument === 'string' && secretParameters.has(call.argument))
      found.push(`the NoEcho parameter ${call.argument}`);
    if (call?.name === 'Fn::ImportValue') found.push('an imported value (which may be a secret)');
    if (call?.name === 'Fn::GetAtt') {
      const target = getAttTarget(call.argument as never);
      const path = target?.logicalId === CONTEXT ? target.path.join('.') : undefined;
      const probe = path !== undefined ? probes.get(path) : undefined;
      if (probe && secretProbes.has(probe.name)) found.push(`the write-only ${CONTEXT}.${path}`);
    }
    if (call?.name === 'Fn::Sub') {
      const text = Array.isArray(call.argument) ? call.argument[0] : call.argument;
      if (typeof text === 'string')
        for (const piece of subPieces(text)) {
          if (!('variable' in piece)) continue;
          if (secretParameters.has(piece.variable)) found.push(`the NoEcho parameter ${piece.variable}`);
          if (piece.variable.startsWith(`${CONTEXT}.`)) {
            const probe = probes.get(piece.variable.slice(CONTEXT.length + 1));
            if (probe && secretProbes.has(probe.name)) found.push(`the write-only ${piece.variable}`);
          }
        }
    }
    for (const item of Object.values(v)) visit(item);
  };
  visit(expression);
  return found;
}

async function checkTarget(
  options: CheckOptions,
  template: Template,
  target: OutputTarget,
  secretParameters: Set<string>,
  probes: Map<string, { name: string; kinds: Set<Kind>; secret: boolean }>,
  secretProbes: Map<string, unknown>,
): Promise<Diagnostic[]> {
  const { type } = options;
  const out: Diagnostic[] = [];
  const shown = target.path.join('.');
  const pointer = `/properties/${target.path.map(escapePointerToken).join('/')}`;
  const nodes = resolverOf(type).walk(pointer);
  const writeOnly = underWriteOnly(type, target.path);
  const readOnly = type.readOnlyProperties.some((p) => pointer === p || pointer.startsWith(`${p}/`));
  if (!nodes || (!readOnly && !writeOnly)) {
    const candidates = [...type.readOnlyProperties, ...type.writeOnlyProperties].map((p) =>
      p.split('/').slice(2).join('.'),
    );
    const close = closestName(shown, candidates);
    out.push(
      recipeDiagnostic(
        'TP7003',
        target.pointer,
        `${target.output}${target.part ? `.${target.part.section}.${target.part.key}` : ''} fills ${shown}, ${nodes ? 'which is neither read-only nor write-only (a recipe fills only what the instance reports)' : `which ${type.typeName} does not have`}${close ? ` (did you mean ${close}?)` : candidates.length > 0 ? `; it has ${candidates.slice(0, 8).join(', ')}` : ''}`,
      ),
    );
    return out;
  }
  const secrets = secretSources(target.expression, secretParameters, secretProbes, probes);
  if (target.part?.section === 'secrets' && !writeOnly)
    out.push(
      recipeDiagnostic(
        'TP7004',
        target.pointer,
        `${shown} is not write-only: a recipe's secrets fill only write-only (sensitive) properties, where they stay sealed`,
      ),
    );
  else if (secrets.length > 0 && !writeOnly)
    out.push(
      recipeDiagnostic(
        'TP7004',
        target.pointer,
        `${shown} is not write-only, but this value is built from ${secrets[0]}: map it to a write-only property${target.part ? ' (under result.secrets)' : ''}`,
      ),
    );
  const kinds = await expressionKinds(options, template, target.expression, probes);
  const want = kindsOf(nodes);
  if (kinds && !fits(kinds, want))
    out.push(
      recipeDiagnostic(
        'TP7008',
        target.pointer,
        `${shown} takes ${[...want].join(' or ')}, but this value is ${[...kinds].join(' or ')}`,
      ),
    );
  return out;
}

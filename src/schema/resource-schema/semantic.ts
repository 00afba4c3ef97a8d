/**
 * @module Checks on a resource schema that need the whole document: property pointers resolve,
 * `$ref`s have targets, property lists do not contradict each other, regexes compile.
 *
 * Runs after the structural check and tolerates anything that check already reported (it skips
 * values of the wrong shape instead of failing on them).
 */
import { diagnostic, escapePointerToken, pointerTokens, type RuleId } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import { checkPattern, compilePattern } from '../regex.js';
import { COMMON_REF_PREFIX, commonSchema } from '../common.js';
import { KNOWN_FORMATS } from '../formats.js';
import { LIST_POINTER_PATTERN, POINTER_PATTERN } from './meta-schema.js';
import { closestName } from '../similar-names.js';
import { bicepKeywordFindings, NO_CONST, type BicepReport } from '../rules/bicep-expressible.js';

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const NONE: readonly string[] = [];
const isString = (x: unknown): x is string => typeof x === 'string';
/** The strings of a list (the structural check reports the rest); the list itself when all are, as a valid one's are. */
const stringsOf = (v: unknown): readonly string[] =>
  !Array.isArray(v) ? NONE : v.every(isString) ? v : v.filter(isString);

// Malformed pointers are the structural check's to report (TP2005); here they are skipped.
const POINTER = new RegExp(POINTER_PATTERN);
const LIST_POINTER = new RegExp(LIST_POINTER_PATTERN);

/** Property lists whose dangling pointers are warnings (upstream accepts them). */
const PROPERTY_LISTS = [
  'readOnlyProperties',
  'writeOnlyProperties',
  'createOnlyProperties',
  'conditionalCreateOnlyProperties',
  'deprecatedProperties',
] as const;

const COMPOSITIONS = ['allOf', 'anyOf', 'oneOf'] as const;
const COMMON_DEFINITION_PREFIX = `#/definitions/${COMMON_REF_PREFIX}`;

export interface SemanticResult {
  findings: Finding[];
  /** Whether any `$ref` names a built-in `typeplane:` schema. */
  usesCommonSchemas: boolean;
  /** Whether any property declares a `relationshipRef`. */
  hasRelationshipRefs: boolean;
  /** The local `$ref`s (`#/definitions/…`, `#/properties/…`) of the schema nodes it walked, and the node each names (undefined: none). */
  localRefs: ReadonlyMap<string, unknown>;
  /** With `bicep`: the Bicep warnings (TP5001–TP5003) of the document's model, as `bicepExpressibleFindings` makes them. */
  bicepFindings?: Finding[];
}

export interface SemanticOptions {
  /**
   * Also make the Bicep warnings, in the same walk. Its nodes are the model's (properties,
   * definitions and top-level branches, `$ref`s not followed), as that rule walks them; not the
   * configuration settings'. A caller that inlines built-in schemas into the definitions afterwards
   * (`usesCommonSchemas`) must walk the model again: those definitions were not here to walk.
   */
  bicep?: boolean;
}

export function checkSemantics(doc: Schema, options: SemanticOptions = {}): SemanticResult {
  const findings: Finding[] = [];
  const refs = new Map<string, unknown>();
  const resolver = new PointerResolver(doc);
  // Without a model (missing or empty `properties`, already reported) no pointer can resolve: say nothing more.
  const hasModel = isObject(doc.properties) && Object.keys(doc.properties).length > 0;
  const declaredNames = hasModel ? Object.keys(doc.properties as object) : [];
  /** "; did you mean '/properties/Name'?" for a pointer whose property name is mistyped, else nothing. */
  const near = (pointer: string): string => {
    const match = /^\/properties\/([^/]+)$/.exec(pointer);
    const name = match ? closestName(match[1]!, declaredNames) : undefined;
    return name ? `; did you mean '/properties/${escapePointerToken(name)}'?` : '';
  };

  // Identifiers must resolve; other lists only warn.
  stringsOf(doc.primaryIdentifier).forEach((p, i) => {
    if (checkable(hasModel, p) && !resolver.resolves(p)) {
      findings.push(
        diagnostic(
          'TP2010',
          `/primaryIdentifier/${i}`,
          `primaryIdentifier '${p}' does not name a declared property${near(p) || "; declare it under 'properties' or fix the pointer"}`,
        ),
      );
    }
  });
  if (Array.isArray(doc.additionalIdentifiers)) {
    doc.additionalIdentifiers.forEach((list, i) =>
      stringsOf(list).forEach((p, j) => {
        if (checkable(hasModel, p) && !resolver.resolves(p)) {
          findings.push(
            diagnostic(
              'TP2010',
              `/additionalIdentifiers/${i}/${j}`,
              `additionalIdentifiers pointer '${p}' does not name a declared property${near(p) || '; declare it or fix the pointer'}`,
            ),
          );
        }
      }),
    );
  }
  for (const list of PROPERTY_LISTS) {
    stringsOf(doc[list]).forEach((p, i) => {
      if (!hasModel || !LIST_POINTER.test(p)) return;
      const declared = p.startsWith('/definitions/')
        ? resolveLocalRef(doc, `#${p}`) !== undefined
        : resolver.resolves(p);
      if (!declared) {
        findings.push(
          diagnostic(
            'TP2011',
            `/${list}/${i}`,
            `${list} entry '${p}' does not name a declared property; it has no effect until it does${near(p)}`,
          ),
        );
      }
    });
  }
  const tagProperty = isObject(doc.tagging) ? doc.tagging.tagProperty : undefined;
  if (
    typeof tagProperty === 'string' &&
    checkable(hasModel, tagProperty) &&
    !resolver.resolves(tagProperty)
  ) {
    findings.push(
      diagnostic(
        'TP2044',
        '/tagging/tagProperty',
        `tagging.tagProperty '${tagProperty}' does not name a declared property${near(tagProperty)}`,
      ),
    );
  }

  // Members that supply a referenced type's identifiers must be properties of this model.
  const references =
    isObject(doc.traits) && Array.isArray(doc.traits.references) ? doc.traits.references : [];
  references.forEach((ref, i) => {
    if (!isObject(ref) || !isObject(ref.ids)) return;
    for (const [target, member] of Object.entries(ref.ids)) {
      if (typeof member === 'string' && checkable(hasModel, member) && !resolver.resolves(member)) {
        findings.push(
          diagnostic(
            'TP2046',
            `/traits/references/${i}/ids/${escapePointerToken(target)}`,
            `reference member '${member}' does not name a declared property; point it at the property that holds ${target}`,
          ),
        );
      }
    }
  });

  // Lists that must not overlap.
  overlap(
    doc,
    findings,
    'createOnlyProperties',
    'conditionalCreateOnlyProperties',
    'TP2012',
    'keep it in one of the two lists',
  );
  overlap(
    doc,
    findings,
    'readOnlyProperties',
    'conditionalCreateOnlyProperties',
    'TP2013',
    'a read-only property cannot be set at creation; remove it from conditionalCreateOnlyProperties',
  );
  overlap(
    doc,
    findings,
    'readOnlyProperties',
    'writeOnlyProperties',
    'TP2014',
    'it can be neither written nor read back',
  );

  // Identifiers that can change after creation (one that resolves nowhere is already an error).
  const stable = new Set([...stringsOf(doc.readOnlyProperties), ...stringsOf(doc.createOnlyProperties)]);
  stringsOf(doc.primaryIdentifier).forEach((p, i) => {
    if (!stable.has(p) && checkable(hasModel, p) && resolver.resolves(p)) {
      findings.push(
        diagnostic(
          'TP2042',
          `/primaryIdentifier/${i}`,
          `identifier '${p}' is neither read-only nor create-only, so an update could change it; add it to createOnlyProperties or readOnlyProperties`,
        ),
      );
    }
  });

  // An identifier is in every URL, answer and log line: it cannot be a secret.
  const writeOnly = stringsOf(doc.writeOnlyProperties);
  stringsOf(doc.primaryIdentifier).forEach((p, i) => {
    const secret = writeOnly.find((w) => w === p || p.startsWith(`${w}/`) || w.startsWith(`${p}/`));
    if (secret !== undefined && checkable(hasModel, p))
      findings.push(
        diagnostic(
          'TP2018',
          `/primaryIdentifier/${i}`,
          `identifier '${p}' is write-only (writeOnlyProperties has '${secret}'), but an identifier is shown in every URL, answer and log; identify the resource by a property that is not secret, or remove '${secret}' from writeOnlyProperties`,
        ),
      );
  });

  // Handler permissions.
  if (isObject(doc.handlers)) {
    for (const [action, handler] of Object.entries(doc.handlers)) {
      if (!isObject(handler)) continue;
      stringsOf(handler.permissions).forEach((permission, i) => {
        if (permission === '*' || permission.endsWith(':*')) {
          findings.push(
            diagnostic(
              'TP2041',
              `/handlers/${escapePointerToken(action)}/permissions/${i}`,
              `wildcard permission '${permission}' grants more than the handler needs; list the actions it calls`,
            ),
          );
        }
      });
    }
  }

  // Every schema node in properties, definitions and top-level compositions.
  const bicepFindings: Finding[] | undefined = options.bicep ? [] : undefined;
  const walk: SchemaWalk = { doc, findings, refs, usesCommonSchemas: false, hasRelationshipRefs: false };
  const bicep: BicepReport | undefined =
    bicepFindings && ((rule, at, message) => bicepFindings.push(diagnostic(rule, at, message)));
  if (isObject(doc.properties)) visitMembers(walk, doc.properties, '/properties/', bicep);
  if (isObject(doc.definitions)) visitMembers(walk, doc.definitions, '/definitions/', bicep);
  visitBranches(walk, doc, '', bicep);
  // Configuration settings are property schemas too; their $refs point at the document's definitions.
  const settings = isObject(doc.typeConfiguration) ? doc.typeConfiguration.properties : undefined;
  if (isObject(settings)) visitMembers(walk, settings, '/typeConfiguration/properties/', undefined);
  return {
    findings,
    usesCommonSchemas: walk.usesCommonSchemas,
    hasRelationshipRefs: walk.hasRelationshipRefs,
    localRefs: refs,
    ...(bicepFindings ? { bicepFindings } : {}),
  };
}

/** Whether a pointer is one to check: well formed, in a document with a model. */
function checkable(hasModel: boolean, pointer: string): boolean {
  return hasModel && POINTER.test(pointer);
}

function overlap(doc: Schema, findings: Finding[], a: string, b: string, rule: RuleId, say: string): void {
  const first = new Set(stringsOf(doc[a]));
  stringsOf(doc[b]).forEach((p, i) => {
    if (first.has(p))
      findings.push(diagnostic(rule, `/${b}/${i}`, `'${p}' is in both ${a} and ${b}; ${say}`));
  });
}

/** The state of one walk over a document's schema nodes. */
interface SchemaWalk {
  doc: Schema;
  findings: Finding[];
  refs: Map<string, unknown>;
  usesCommonSchemas: boolean;
  hasRelationshipRefs: boolean;
}

/**
 * Checks a schema node and those below it. Pointers are built only for members that exist.
 *
 * `bicep`, where the node's Bicep warnings go: given on the nodes the Bicep rule's walk reaches, not
 * within `contains`, `dependencies` or the configuration settings. That walk also enters
 * `additionalProperties` schemas and `items` lists, which a resource schema may not have (TP2023,
 * TP2025: errors, so no types and no warnings): this walk need not.
 *
 * The keywords are gathered in one pass over the node's own keys (most have three or four), not read
 * by name: the corpus's nodes come in hundreds of shapes, and each of some twenty named reads of a
 * node would look its name up among all of them.
 */
function visit(walk: SchemaWalk, node: unknown, at: string, bicep: BicepReport | undefined): void {
  if (!isObject(node)) return;
  let type: unknown;
  let ref: unknown;
  let properties: unknown;
  let additionalProperties: unknown;
  let patternProperties: unknown;
  let items: unknown;
  let enumValues: unknown;
  let constValue: unknown = NO_CONST;
  let pattern: unknown;
  let format: unknown;
  let relationshipRef: unknown;
  let contains: unknown;
  let allOf: unknown;
  let anyOf: unknown;
  let oneOf: unknown;
  let dependencies: unknown;
  for (const key in node) {
    // One load for every key: one site whose feedback every node feeds.
    const value = node[key];
    switch (key) {
      case 'type':
        type = value;
        break;
      case 'description':
        break;
      case 'properties':
        properties = value;
        break;
      case 'additionalProperties':
        additionalProperties = value;
        break;
      case '$ref':
        ref = value;
        break;
      case 'items':
        items = value;
        break;
      case 'enum':
        enumValues = value;
        break;
      case 'pattern':
        pattern = value;
        break;
      case 'relationshipRef':
        relationshipRef = value;
        break;
      case 'format':
        format = value;
        break;
      case 'patternProperties':
        patternProperties = value;
        break;
      case 'const':
        constValue = value;
        break;
      case 'anyOf':
        anyOf = value;
        break;
      case 'oneOf':
        oneOf = value;
        break;
      case 'allOf':
        allOf = value;
        break;
      case 'contains':
        contains = value;
        break;
      case 'dependencies':
        dependencies = value;
        break;
    }
  }
  const { findings } = walk;
  if (typeof ref === 'string' && checkRef(walk, ref, at)) walk.usesCommonSchemas = true;
  if (typeof pattern === 'string') {
    const problem = checkPattern(pattern);
    if (problem)
      findings.push(
        diagnostic(
          'TP2028',
          `${at}/pattern`,
          `pattern is not a valid regular expression (${problem}); Typeplane uses RE2 syntax`,
        ),
      );
  }
  if (isObject(patternProperties)) {
    for (const key of Object.keys(patternProperties)) {
      const problem = checkPattern(key);
      if (problem)
        findings.push({
          ...diagnostic(
            'TP2028',
            `${at}/patternProperties/${escapePointerToken(key)}`,
            `patternProperties key is not a valid regular expression (${problem}); Typeplane uses RE2 syntax`,
          ),
          target: 'key',
        });
    }
  }
  if (typeof format === 'string' && !KNOWN_FORMATS.has(format)) {
    findings.push(
      diagnostic(
        'TP2043',
        `${at}/format`,
        `format '${format}' is not known, so values are not checked against it; known formats include date-time, uri, email, uuid, ipv4`,
      ),
    );
  }
  if (isObject(properties) && additionalProperties !== false) {
    findings.push(
      diagnostic(
        'TP2040',
        at,
        'object declares \'properties\' without "additionalProperties": false, so unknown members are accepted; add it',
      ),
    );
  }
  if (relationshipRef !== undefined) walk.hasRelationshipRefs = true;
  if (bicep) bicepKeywordFindings(type, constValue, enumValues, patternProperties, at, bicep);
  if (isObject(properties)) visitMembers(walk, properties, `${at}/properties/`, bicep);
  if (isObject(patternProperties)) visitMembers(walk, patternProperties, `${at}/patternProperties/`, bicep);
  if (items !== undefined) visit(walk, items, `${at}/items`, bicep);
  if (contains !== undefined) visit(walk, contains, `${at}/contains`, undefined);
  if (Array.isArray(allOf)) visitList(walk, allOf, `${at}/allOf/`, bicep);
  if (Array.isArray(anyOf)) visitList(walk, anyOf, `${at}/anyOf/`, bicep);
  if (Array.isArray(oneOf)) visitList(walk, oneOf, `${at}/oneOf/`, bicep);
  if (isObject(dependencies)) visitMembers(walk, dependencies, `${at}/dependencies/`, undefined);
}

/** The `allOf`, `anyOf` and `oneOf` branches of the document itself (loops by index: this runs for every node). */
function visitBranches(walk: SchemaWalk, node: Schema, at: string, bicep: BicepReport | undefined): void {
  for (let k = 0; k < COMPOSITIONS.length; k++) {
    const key = COMPOSITIONS[k]!;
    const branches = node[key];
    if (Array.isArray(branches)) visitList(walk, branches, `${at}/${key}/`, bicep);
  }
}

function visitList(walk: SchemaWalk, list: unknown[], prefix: string, bicep: BicepReport | undefined): void {
  for (let i = 0; i < list.length; i++) visit(walk, list[i], prefix + i, bicep);
}

function visitMembers(
  walk: SchemaWalk,
  members: Schema,
  prefix: string,
  bicep: BicepReport | undefined,
): void {
  for (const name in members)
    if (Object.hasOwn(members, name)) visit(walk, members[name], prefix + escapePointerToken(name), bicep);
}

/** Checks a node's `$ref`; true when it refers to a built-in schema. */
function checkRef(walk: SchemaWalk, ref: string, at: string): boolean {
  const { findings, refs } = walk;
  if (ref.startsWith('#/definitions/') || ref.startsWith('#/properties/')) {
    let target = refs.get(ref);
    if (target === undefined && !refs.has(ref)) refs.set(ref, (target = resolveLocalRef(walk.doc, ref)));
    if (target === undefined) {
      findings.push(
        diagnostic(
          'TP2015',
          `${at}/$ref`,
          `$ref '${ref}' points at nothing; declare it under ${ref.startsWith('#/definitions/') ? "'definitions'" : "'properties'"} or fix the name`,
        ),
      );
    }
    return false;
  }
  if (ref.startsWith(COMMON_REF_PREFIX)) {
    if (!commonSchema(ref))
      findings.push(diagnostic('TP2015', `${at}/$ref`, `$ref '${ref}' is not a built-in Typeplane schema`));
    return true;
  }
  findings.push(
    diagnostic(
      'TP2016',
      `${at}/$ref`,
      `$ref '${ref}' is not local; refer to '#/definitions/<Name>' (or a built-in 'typeplane:' schema) and copy external shapes into definitions`,
    ),
  );
  return false;
}

/** The node a local `$ref` (`#/definitions/…`, `#/properties/…`) names, or undefined. */
export function resolveLocalRef(doc: Schema, ref: string): unknown {
  let node: unknown = doc;
  if (ref.length <= 1) return node;
  // The tokens after `#/`, read in place (this runs for every `$ref` of every walk).
  const escaped = ref.includes('~');
  for (let start = 2; ;) {
    const end = ref.indexOf('/', start);
    const raw = end < 0 ? ref.slice(start) : ref.slice(start, end);
    const token = escaped ? raw.replace(/~1/g, '/').replace(/~0/g, '~') : raw;
    if (!isObject(node) || !Object.hasOwn(node, token)) return undefined;
    node = node[token];
    if (end < 0) return node;
    start = end + 1;
  }
}

/**
 * Resolves CloudFormation property pointers (`/properties/A/B/*\/C`) against the schema: through
 * `$ref`s, nested objects, arrays (`*`) and composition branches.
 */
export class PointerResolver {
  private readonly cache = new Map<string, boolean>();
  /** What each `$ref` met so far names: pointers share the nodes on their way. */
  private readonly targets = new Map<string, unknown>();
  constructor(private readonly doc: Schema) {}

  /** Where every pointer starts: the model's properties and top-level branches. */
  private root: Schema | undefined;

  resolves(pointer: string): boolean {
    let verdict = this.cache.get(pointer);
    if (verdict === undefined) {
      verdict = this.declaredAtTop(pointer) || this.walk(pointer) !== undefined;
      this.cache.set(pointer, verdict);
    }
    return verdict;
  }

  /**
   * Most pointers name a property of the model itself (`/properties/Name`): found there, the walk
   * would find it first. One that is not there (or is nested, or escaped) is walked.
   */
  private declaredAtTop(pointer: string): boolean {
    if (!pointer.startsWith('/properties/') || pointer.indexOf('/', 12) >= 0 || pointer.includes('~'))
      return false;
    const properties = this.doc.properties;
    const name = pointer.slice(12);
    return isObject(properties) && Object.hasOwn(properties, name) && isObject(properties[name]);
  }

  /** The schema nodes a pointer may land on, or `undefined` when it lands nowhere. */
  walk(pointer: string): Schema[] | undefined {
    const tokens = pointerTokens(pointer);
    if (tokens[0] !== 'properties' || tokens.length < 2) return undefined;
    this.root ??= {
      properties: this.doc.properties,
      allOf: this.doc.allOf,
      anyOf: this.doc.anyOf,
      oneOf: this.doc.oneOf,
    };
    let nodes: Schema[] = [this.root];
    for (let t = 1; t < tokens.length; t++) {
      const token = tokens[t]!;
      const next: Schema[] = [];
      for (const node of this.expand(nodes)) {
        if (token === '*') {
          if (isObject(node.items)) next.push(node.items);
          continue;
        }
        const properties = node.properties;
        if (isObject(properties) && Object.hasOwn(properties, token) && isObject(properties[token]))
          next.push(properties[token]);
        if (isObject(node.patternProperties)) {
          for (const [pattern, child] of Object.entries(node.patternProperties)) {
            if (isObject(child) && safeTest(pattern, token)) next.push(child);
          }
        }
      }
      if (next.length === 0) return undefined;
      nodes = next;
    }
    return this.expand(nodes);
  }

  /** The nodes themselves, their `$ref` targets and their composition branches, transitively. */
  private expand(nodes: Schema[]): Schema[] {
    // Most nodes lead nowhere else: they are their own expansion.
    if (nodes.length === 1 && !leadsFurther(nodes[0]!)) return nodes;
    const out: Schema[] = [];
    const seen = new Set<Schema>();
    const stack = [...nodes];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (seen.has(node)) continue;
      seen.add(node);
      out.push(node);
      if (typeof node.$ref === 'string') {
        // Built-in schemas refer to each other as `#/definitions/typeplane:…`, the form they take once inlined.
        const ref = node.$ref.startsWith(COMMON_DEFINITION_PREFIX)
          ? node.$ref.slice('#/definitions/'.length)
          : node.$ref;
        let target = this.targets.get(ref);
        if (target === undefined && !this.targets.has(ref)) {
          target = ref.startsWith(COMMON_REF_PREFIX) ? commonSchema(ref) : resolveLocalRef(this.doc, ref);
          this.targets.set(ref, target);
        }
        if (isObject(target)) stack.push(target);
      }
      for (let k = 0; k < COMPOSITIONS.length; k++) {
        const branches = node[COMPOSITIONS[k]!];
        if (Array.isArray(branches))
          for (let i = 0; i < branches.length; i++) if (isObject(branches[i])) stack.push(branches[i]);
      }
    }
    return out;
  }
}

/**
 * Whether a node has a `$ref` or composition branches: the steps `PointerResolver.expand` follows,
 * and those that stay at the node's place in the value (ref-cycles.ts).
 */
export function leadsFurther(node: Schema): boolean {
  return (
    typeof node.$ref === 'string' ||
    Array.isArray(node.allOf) ||
    Array.isArray(node.anyOf) ||
    Array.isArray(node.oneOf)
  );
}

const matchers = new Map<string, ((input: string) => boolean) | undefined>();

/** Pattern test with RE2 semantics: user patterns never run on a backtracking engine. */
function safeTest(pattern: string, value: string): boolean {
  if (!matchers.has(pattern)) matchers.set(pattern, compilePattern(pattern));
  return matchers.get(pattern)?.(value) ?? false;
}

/**
 * @module A template: the CloudFormation format (JSON or YAML with its short forms), read into
 * declarations with their source positions kept. Structure only; meaning is checked by `validate.ts`.
 */
import {
  parseSource,
  parseSourceYielding,
  type Diagnostic,
  type ParseResult,
  type SourceDocument,
} from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { allowedPatternProblem } from './lookaround.js';
import { stackDiagnostic } from './rules.js';
import { isCustomResourceType } from './custom-resources/type.js';
import { TEMPLATE_TAGS, unknownTagMessage } from './yaml-tags.js';
import { extensionFunctions, readTransform, withoutLoops } from './language-extensions/transforms.js';
import { ssmParameterType } from './parameter-store/ssm-types.js';
import { readPolicy, type DeletionPolicy, type ReplacePolicy } from './retention.js';
import { NESTED_TEMPLATES } from './nested/names.js';
import { withNestedTemplates } from './nested/packaged.js';

export type ParameterType = 'String' | 'Number' | 'CommaDelimitedList' | 'List<Number>';

export interface ParameterDeclaration {
  name: string;
  type: ParameterType;
  default?: unknown;
  allowedValues?: unknown[];
  allowedPattern?: string;
  minLength?: number;
  maxLength?: number;
  minValue?: number;
  maxValue?: number;
  noEcho: boolean;
  description?: string;
  constraintDescription?: string;
  /**
   * An SSM parameter type's: its value names an SSM parameter, whose value it takes (`value`) or
   * which must exist (`name`); see parameter-store/.
   */
  parameterStore?: 'value' | 'name';
}

export type { DeletionPolicy as Policy } from './retention.js';

export interface ResourceDeclaration {
  logicalId: string;
  /** As written: `AWS::S3::Bucket`, `Applications.Datastores/redisCaches@2023-10-01-preview`. */
  type: string;
  properties: Record<string, unknown>;
  dependsOn: string[];
  condition?: string;
  deletionPolicy: DeletionPolicy;
  updateReplacePolicy: ReplacePolicy;
}

export interface OutputDeclaration {
  name: string;
  value: unknown;
  description?: string;
  condition?: string;
  exportName?: unknown;
}

export interface Template {
  document: SourceDocument;
  description?: string;
  parameters: Map<string, ParameterDeclaration>;
  mappings: Record<string, unknown>;
  conditions: Map<string, unknown>;
  resources: Map<string, ResourceDeclaration>;
  outputs: Map<string, OutputDeclaration>;
  /**
   * Parameters and conditions a transform used (a loop's collection, a policy), which the template it
   * made no longer names.
   */
  usedByTransform?: ReadonlySet<string>;
}

const SECTIONS = new Set([
  'AWSTemplateFormatVersion',
  'Description',
  'Metadata',
  'Parameters',
  'Rules',
  'Mappings',
  'Conditions',
  'Transform',
  'Resources',
  'Outputs',
  // Nested stacks' templates, packaged with the parent (nested/packaged.ts).
  NESTED_TEMPLATES,
]);
const RESOURCE_KEYS = new Set([
  'Type',
  'Properties',
  'DependsOn',
  'Condition',
  'DeletionPolicy',
  'UpdateReplacePolicy',
  'Metadata',
  'CreationPolicy',
  'UpdatePolicy',
]);
const PARAMETER_KEYS = new Set([
  'Type',
  'Default',
  'AllowedValues',
  'AllowedPattern',
  'MinLength',
  'MaxLength',
  'MinValue',
  'MaxValue',
  'NoEcho',
  'Description',
  'ConstraintDescription',
]);
/** Logical ids and parameter names: alphanumerics, as CloudFormation has them. */
const LOGICAL_ID = /^[A-Za-z0-9]{1,255}$/;
/** Templates larger than this are refused (a stack's template is stored with it). */
export const MAX_TEMPLATE_BYTES = 1024 * 1024;
export const MAX_RESOURCES = 2000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What reading a template gives: `template` is undefined when the text cannot be read as one at all. */
export interface LoadedTemplate {
  template?: Template;
  diagnostics: Diagnostic[];
}

/**
 * A transform run on the template as written before its sections are read (AWS::LanguageExtensions,
 * see language-extensions/): the document to read instead, locating its pointers where they were
 * written, and the transform's problems, with pointers into the template as written.
 */
export type Expand = (
  document: SourceDocument,
  parameters: ReadonlyMap<string, ParameterDeclaration>,
) => { document: SourceDocument; diagnostics: Diagnostic[]; used: ReadonlySet<string> };

/** Read a template; `expand` runs `Transform: AWS::LanguageExtensions` (refused without it). */
export function loadTemplate(input: string, file?: string, expand?: Expand): LoadedTemplate {
  return tooLargeTemplate(input, file) ?? readTemplate(parseSource(input, parseOptions(file)), file, expand);
}

/**
 * As {@link loadTemplate}, giving the event loop a turn while a large YAML template is parsed: what
 * the server calls.
 */
export async function loadTemplateYielding(
  input: string,
  file?: string,
  expand?: Expand,
): Promise<LoadedTemplate> {
  return (
    tooLargeTemplate(input, file) ??
    readTemplate(await parseSourceYielding(input, parseOptions(file)), file, expand)
  );
}

const parseOptions = (file: string | undefined) => ({
  ...(file ? { file } : {}),
  yamlTags: TEMPLATE_TAGS,
  unknownYamlTag: unknownTagMessage,
});

function tooLargeTemplate(input: string, file: string | undefined): LoadedTemplate | undefined {
  if (Buffer.byteLength(input) > MAX_TEMPLATE_BYTES)
    return {
      diagnostics: [
        locate(
          stackDiagnostic(
            'TP4001',
            '',
            `template is ${Buffer.byteLength(input)} bytes, over the ${MAX_TEMPLATE_BYTES} limit; split it into several stacks (exports and Fn::ImportValue connect them)`,
          ),
          undefined,
          file,
        ),
      ],
    };
  return undefined;
}

function readTemplate(parsed: ParseResult, file: string | undefined, expand?: Expand): LoadedTemplate {
  if (!parsed.document) return { diagnostics: parsed.diagnostics };
  const document = parsed.document;
  const diagnostics: Diagnostic[] = [];
  const problem = (rule: Parameters<typeof stackDiagnostic>[0], pointer: string, message: string) =>
    diagnostics.push(stackDiagnostic(rule, pointer, message));
  const root = document.value;
  if (!isObject(root)) {
    problem('TP4001', '', 'a template is a mapping with Resources (and Parameters, Outputs, …)');
    return { diagnostics: diagnostics.map((d) => locate(d, document, file)) };
  }
  // A transform Typeplane does not run (SAM, a macro) may read sections of its own (SAM's Globals):
  // its refusal, below, says what is wrong; naming each such section too would only bury it.
  const transformRefused = root.Transform !== undefined && readTransform(root.Transform).refused.length > 0;
  for (const key of Object.keys(root))
    if (!SECTIONS.has(key) && !transformRefused)
      problem(
        'TP4001',
        `/${escapePointerToken(key)}`,
        `unknown section '${key}'; the sections are ${[...SECTIONS].join(', ')}`,
      );
  const template: Template = {
    document,
    parameters: new Map(),
    mappings: {},
    conditions: new Map(),
    resources: new Map(),
    outputs: new Map(),
  };
  if (root.Description !== undefined) {
    if (typeof root.Description === 'string') template.description = root.Description;
    else problem('TP4001', '/Description', 'Description must be a string');
  }
  // The sections read: as written, or as the transform expanded them.
  let body: Record<string, unknown> = root;
  const section = (name: string): Record<string, unknown> => {
    const value = body[name];
    if (value === undefined || value === null) return {};
    if (!isObject(value)) {
      problem('TP4001', `/${name}`, `${name} must be a mapping of names to declarations`);
      return {};
    }
    return value;
  };
  for (const [name, declaration] of Object.entries(section('Parameters'))) {
    const parameter = readParameter(name, declaration, (pointer, message) =>
      problem('TP4011', `/Parameters/${escapePointerToken(name)}${pointer}`, message),
    );
    if (parameter) template.parameters.set(name, parameter);
  }
  // A transform runs before the other sections are read, with the parameters' values.
  let transformDiagnostics: Diagnostic[] = [];
  let extended = false;
  if (root.Transform !== undefined) {
    const transform = readTransform(root.Transform);
    extended = transform.languageExtensions;
    for (const refused of transform.refused) problem('TP4018', refused.pointer, refused.message);
    if (transform.languageExtensions && expand) {
      const expanded = expand(document, template.parameters);
      transformDiagnostics = expanded.diagnostics.map((d) => locate(d, document, file));
      template.document = expanded.document;
      template.usedByTransform = expanded.used;
      body = expanded.document.value as Record<string, unknown>;
    } else if (transform.languageExtensions)
      problem('TP4018', '/Transform', "AWS::LanguageExtensions is expanded in a stack's template only");
  }
  // Loops left unexpanded are said to be so, once each, not read as a resource, output or condition.
  if (template.document === document) {
    const unexpanded = withoutLoops(root);
    for (const pointer of unexpanded.loops)
      problem(
        'TP4018',
        pointer,
        'Fn::ForEach is a loop of the AWS::LanguageExtensions transform: declare `Transform: AWS::LanguageExtensions` to have it expanded',
      );
    body = unexpanded.root;
    if (!extended)
      for (const used of extensionFunctions(unexpanded.root)) problem('TP4018', used.pointer, used.message);
  }
  const mappings = section('Mappings');
  for (const [name, map] of Object.entries(mappings)) {
    if (!isObject(map) || !Object.values(map).every(isObject))
      problem(
        'TP4001',
        `/Mappings/${escapePointerToken(name)}`,
        `mapping '${name}' must map keys to mappings of keys to values`,
      );
  }
  template.mappings = mappings;
  for (const [name, expression] of Object.entries(section('Conditions')))
    template.conditions.set(name, expression);
  const resources = section('Resources');
  if (Object.keys(resources).length === 0)
    problem('TP4002', '/Resources', 'a template declares at least one resource under Resources');
  if (Object.keys(resources).length > MAX_RESOURCES)
    problem(
      'TP4002',
      '/Resources',
      `a template declares at most ${MAX_RESOURCES} resources; split it into several stacks`,
    );
  for (const [logicalId, declaration] of Object.entries(resources).slice(0, MAX_RESOURCES)) {
    const resource = readResource(logicalId, declaration, (rule, pointer, message) =>
      problem(rule, `/Resources/${escapePointerToken(logicalId)}${pointer}`, message),
    );
    if (resource) template.resources.set(logicalId, resource);
  }
  withNestedTemplates(root[NESTED_TEMPLATES], template.resources.values(), (pointer, message) =>
    problem('TP4001', pointer, message),
  );
  for (const [name, declaration] of Object.entries(section('Outputs'))) {
    const at = `/Outputs/${escapePointerToken(name)}`;
    if (!LOGICAL_ID.test(name)) problem('TP4017', at, `output name '${name}' must be alphanumeric`);
    if (!isObject(declaration) || declaration.Value === undefined) {
      problem('TP4017', at, `output '${name}' needs a Value`);
      continue;
    }
    const output: OutputDeclaration = { name, value: declaration.Value };
    if (typeof declaration.Description === 'string') output.description = declaration.Description;
    if (declaration.Condition !== undefined) {
      if (typeof declaration.Condition === 'string') output.condition = declaration.Condition;
      else problem('TP4017', `${at}/Condition`, 'Condition names a condition (a string)');
    }
    if (declaration.Export !== undefined) {
      if (isObject(declaration.Export) && declaration.Export.Name !== undefined)
        output.exportName = declaration.Export.Name;
      else problem('TP4017', `${at}/Export`, 'Export is {Name: <export name>}');
    }
    template.outputs.set(name, output);
  }
  return {
    template,
    // The transform's problems first: they cause those of what it made.
    diagnostics: [...transformDiagnostics, ...diagnostics.map((d) => locate(d, template.document, file))],
  };
}

/** A diagnostic with its file, line and column (the member's name for a missing value). */
export function locate(
  d: Diagnostic,
  document: SourceDocument | undefined,
  file: string | undefined,
): Diagnostic {
  // A short form (`!Equals [a]`) has no member for its function's name: the nearest enclosing value is.
  let pointer = d.pointer;
  let position = document?.locate(pointer, 'key');
  while (!position && pointer !== '') {
    pointer = pointer.slice(0, pointer.lastIndexOf('/'));
    position = document?.locate(pointer, 'value');
  }
  position ??= { line: 1, column: 1 };
  return { ...d, ...(file ? { file } : {}), line: position.line, column: position.column };
}

const PARAMETER_TYPES: Record<string, ParameterType> = {
  String: 'String',
  Number: 'Number',
  CommaDelimitedList: 'CommaDelimitedList',
  'List<Number>': 'List<Number>',
};

function readParameter(
  name: string,
  declaration: unknown,
  problem: (pointer: string, message: string) => void,
): ParameterDeclaration | undefined {
  if (!LOGICAL_ID.test(name)) problem('', `parameter name '${name}' must be alphanumeric`);
  if (!isObject(declaration)) {
    problem('', `parameter '${name}' must be a mapping with a Type`);
    return undefined;
  }
  for (const key of Object.keys(declaration))
    if (!PARAMETER_KEYS.has(key)) problem(`/${escapePointerToken(key)}`, `unknown parameter key '${key}'`);
  const rawType = declaration.Type;
  let type: ParameterType | undefined = typeof rawType === 'string' ? PARAMETER_TYPES[rawType] : undefined;
  const ssm = typeof rawType === 'string' ? ssmParameterType(rawType) : undefined;
  if (ssm) type = ssm.type;
  // AWS-specific parameter types (key names, subnet ids, …) hold strings, or lists of them.
  if (!type && typeof rawType === 'string' && /^AWS::[A-Za-z0-9:]+$/.test(rawType)) type = 'String';
  if (!type && typeof rawType === 'string' && /^List<AWS::[A-Za-z0-9:]+>$/.test(rawType))
    type = 'CommaDelimitedList';
  if (!type) {
    problem(
      '/Type',
      typeof rawType === 'string' && rawType.startsWith('AWS::SSM::Parameter::')
        ? `Type ${JSON.stringify(rawType)} is not an SSM parameter type: write AWS::SSM::Parameter::Name or AWS::SSM::Parameter::Value<T>, T one of String, List<String>, CommaDelimitedList, an AWS-specific type (AWS::EC2::Image::Id) or a list of one`
        : `Type must be String, Number, CommaDelimitedList, List<Number> or an AWS-specific type (AWS::EC2::Subnet::Id, List<AWS::EC2::Subnet::Id>, …), not ${JSON.stringify(rawType)}`,
    );
    // Still declared, so a Ref to it is not reported as a second, misleading problem.
    type = 'String';
  }
  const parameter: ParameterDeclaration = { name, type, noEcho: false };
  if (ssm) parameter.parameterStore = ssm.parameterStore;
  const number = (key: string): number | undefined => {
    const v = declaration[key];
    if (v === undefined) return undefined;
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isFinite(n)) {
      problem(`/${key}`, `${key} must be a number`);
      return undefined;
    }
    return n;
  };
  if (declaration.Default !== undefined) parameter.default = declaration.Default;
  if (declaration.AllowedValues !== undefined) {
    if (Array.isArray(declaration.AllowedValues)) parameter.allowedValues = declaration.AllowedValues;
    else problem('/AllowedValues', 'AllowedValues must be a list');
  }
  if (declaration.AllowedPattern !== undefined) {
    if (typeof declaration.AllowedPattern === 'string') {
      parameter.allowedPattern = declaration.AllowedPattern;
      // Bounded as a schema's patterns are (its length, its RE2 program), or read as Java's when it
      // has lookaround, which RE2 has not (lookaround.ts).
      const refused = allowedPatternProblem(declaration.AllowedPattern);
      if (refused !== undefined) problem('/AllowedPattern', `AllowedPattern is refused: ${refused}`);
    } else problem('/AllowedPattern', 'AllowedPattern must be a string (a regular expression)');
  }
  for (const [key, field] of [
    ['MinLength', 'minLength'],
    ['MaxLength', 'maxLength'],
    ['MinValue', 'minValue'],
    ['MaxValue', 'maxValue'],
  ] as const) {
    const n = number(key);
    if (n !== undefined) parameter[field] = n;
  }
  const noEcho = declaration.NoEcho;
  if (noEcho !== undefined) {
    if (noEcho === true || noEcho === 'true') parameter.noEcho = true;
    else if (noEcho !== false && noEcho !== 'false') problem('/NoEcho', 'NoEcho must be true or false');
  }
  if (typeof declaration.Description === 'string') parameter.description = declaration.Description;
  if (typeof declaration.ConstraintDescription === 'string')
    parameter.constraintDescription = declaration.ConstraintDescription;
  return parameter;
}

function readResource(
  logicalId: string,
  declaration: unknown,
  problem: (rule: 'TP4003' | 'TP4018', pointer: string, message: string) => void,
): ResourceDeclaration | undefined {
  if (!LOGICAL_ID.test(logicalId))
    problem('TP4003', '', `logical id '${logicalId}' must be alphanumeric (A-Z, a-z, 0-9)`);
  if (!isObject(declaration)) {
    problem('TP4003', '', `resource '${logicalId}' must be a mapping with a Type`);
    return undefined;
  }
  // A custom resource's legacy `Version` ("1.0", in published samples) is taken and ignored, as
  // CloudFormation takes it.
  const customVersion = (key: string) =>
    key === 'Version' && typeof declaration.Type === 'string' && isCustomResourceType(declaration.Type);
  for (const key of Object.keys(declaration))
    if (!RESOURCE_KEYS.has(key) && !customVersion(key))
      problem(
        'TP4003',
        `/${escapePointerToken(key)}`,
        `unknown resource attribute '${key}'; the attributes are ${[...RESOURCE_KEYS].join(', ')}`,
      );
  if (typeof declaration.Type !== 'string' || declaration.Type === '') {
    problem(
      'TP4003',
      declaration.Type === undefined ? '' : '/Type',
      `resource '${logicalId}' needs a Type (a registered type name)`,
    );
    return undefined;
  }
  const resource: ResourceDeclaration = {
    logicalId,
    type: declaration.Type,
    properties: {},
    dependsOn: [],
    deletionPolicy: 'Delete',
    updateReplacePolicy: 'Delete',
  };
  if (declaration.Properties !== undefined) {
    if (isObject(declaration.Properties)) resource.properties = declaration.Properties;
    else problem('TP4003', '/Properties', 'Properties must be a mapping');
  }
  const dependsOn = declaration.DependsOn;
  if (typeof dependsOn === 'string') resource.dependsOn = [dependsOn];
  else if (Array.isArray(dependsOn) && dependsOn.every((d) => typeof d === 'string'))
    resource.dependsOn = dependsOn;
  else if (dependsOn !== undefined)
    problem('TP4003', '/DependsOn', 'DependsOn is a logical id or a list of them');
  if (declaration.Condition !== undefined) {
    if (typeof declaration.Condition === 'string') resource.condition = declaration.Condition;
    else problem('TP4003', '/Condition', 'Condition names a condition (a string)');
  }
  for (const key of ['DeletionPolicy', 'UpdateReplacePolicy'] as const) {
    if (declaration[key] === undefined) continue;
    const read = readPolicy(key, declaration[key], declaration.Type);
    if ('problem' in read) problem('TP4003', `/${key}`, read.problem);
    else if (key === 'DeletionPolicy') resource.deletionPolicy = read.policy;
    else resource.updateReplacePolicy = read.policy as ReplacePolicy;
  }
  return resource;
}

/**
 * @module A resource type's schema compiled into validators for the models the engine handles:
 * desired states coming in from users, and models coming back from providers.
 *
 * ajv (draft-07) generates the validators. Published schemas have quirks, so ajv runs non-strict, and
 * formats it does not know (`timestamp`, …) are ignored rather than refused; the schema toolkit has
 * already warned about them (TP2043). Patterns run on RE2 (see `re2.ts`).
 *
 * Each validator is a separate ajv instance, so that it is garbage once nobody holds its type: one
 * shared instance would keep every schema it ever compiled alive.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { TypeplaneError, type ErrorDetail } from '../errors.js';
import type { Model } from '../model/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import type { JsonSchema, ResourceType } from '../schema/model.js';
import { toDetails } from './messages.js';
import { schemaLimitExceeded } from './limits.js';
import { outputSchema } from './output-schema.js';
import { PATTERN_WORK_LIMIT, PatternWorkExceeded, re2Engine, withPatternBudget } from './re2.js';
import { compileRules, type RuleCheck } from './rules.js';

// ajv-formats is CommonJS; under `nodenext` its default import is `module.exports`, whose `default` is the plugin.
const addFormats = addFormatsModule.default;

export interface CompiledType {
  type: ResourceType;
  /** The registered version this was compiled from (set by the registry). */
  version?: string;
  /** Validates a desired state; applies schema `default`s in place; returns problems (empty = valid). */
  validateInput(model: Model): ErrorDetail[];
  /** Validates a model returned by a provider against the schema's shape with every `required` removed (nested too). */
  validateOutput(model: Model): ErrorDetail[];
  /** Validates a type configuration (defaults applied in place); absent when the type takes none. */
  validateConfiguration?(configuration: Model): ErrorDetail[];
  /**
   * The verdicts of the schema's validation rules (CEL) on a desired state, `current` the state an
   * update or PUT starts from (transition rules, ratcheting); absent when the schema has none.
   */
  checkRules?: RuleCheck;
}

/**
 * The most generated code one validator may have (all its functions together). The largest of the
 * 1,489 published AWS schemas (AWS::WAFv2::WebACL) needs about 0.37 MB; a schema needing more is
 * refused rather than handed to the JavaScript engine to parse.
 */
export const MAX_VALIDATOR_SOURCE = 4 * 1024 * 1024;

/** Keywords of resource schemas and manifests that annotate without constraining. */
export const ANNOTATION_KEYWORDS = [
  'insertionOrder',
  'arrayType',
  'relationshipRef',
  'x-typeplane-sensitive',
  'x-radius-sensitive',
  // On a string naming a secret: the secret's keys (a manifest's `schema`).
  'x-typeplane-secretSchema',
] as const;

const cache = new WeakMap<ResourceType, CompiledType>();

/**
 * The validators of a type, compiled on first use and cached for as long as the type object lives.
 * The input validator is compiled at once, so a schema ajv cannot handle is refused here; the output
 * validator (a relaxation of the same schema) when first needed.
 *
 * @throws TypeplaneError `InvalidTypeConfiguration` when the schema cannot be compiled or is too large.
 */
export function compileType(type: ResourceType): CompiledType {
  const hit = cache.get(type);
  if (hit) return hit;
  const input = compileValidator(type, type.schema, true);
  let output: ValidateFunction | undefined;
  const compiledType: CompiledType = {
    type,
    validateInput: (model) => runValidator(input, model, type.schema),
    validateOutput: (model) => {
      output ??= compileValidator(type, outputSchema(type.schema), false);
      return runValidator(output, model, type.schema);
    },
  };
  const checkRules = compileRules(type);
  if (checkRules) compiledType.checkRules = checkRules;
  if (type.typeConfiguration) {
    const configuration = compileValidator(type, type.typeConfiguration, true);
    compiledType.validateConfiguration = (value) =>
      configuration(value) ? [] : toDetails(configuration.errors, type.typeConfiguration);
  }
  cache.set(type, compiledType);
  return compiledType;
}

/** The validator's problems with `model` (checked against `schema`), or the one value too long for the pattern budget. */
function runValidator(validate: ValidateFunction, model: Model, schema: unknown): ErrorDetail[] {
  const outcome = withPatternBudget(() => validate(model));
  if (outcome instanceof PatternWorkExceeded) return [patternWorkProblem(model, outcome)];
  return outcome ? [] : toDetails(validate.errors, schema);
}

/**
 * The budget is charged inside ajv, which knows where the value is but does not say: the first
 * string (value or member name) of that length is named, which is the one in all but contrived cases.
 */
function patternWorkProblem(model: Model, over: PatternWorkExceeded): ErrorDetail {
  const message =
    `is a string of ${over.inputLength} characters, too long to check against the pattern ${JSON.stringify(over.pattern.length > 80 ? `${over.pattern.slice(0, 80)}…` : over.pattern)} ` +
    `(${over.programSize} RE2 instructions; characters × instructions, all patterns of a model together, may be at most ${PATTERN_WORK_LIMIT}); shorten it`;
  const find = (value: unknown, pointer: string): string | undefined => {
    if (typeof value === 'string') return value.length === over.inputLength ? pointer : undefined;
    if (typeof value !== 'object' || value === null) return undefined;
    for (const [key, member] of Object.entries(value)) {
      const at = `${pointer}/${escapePointerToken(key)}`;
      if (!Array.isArray(value) && key.length === over.inputLength) return at;
      const found = find(member, at);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return { pointer: find(model, '') ?? '', message };
}

class SourceTooLarge extends Error {}

function compileValidator(type: ResourceType, schema: JsonSchema, useDefaults: boolean): ValidateFunction {
  // Limits first: the meta-schema check itself is quadratic in the length of an enum.
  const overLimit = schemaLimitExceeded(schema);
  if (overLimit !== undefined) {
    throw new TypeplaneError(
      'InvalidTypeConfiguration',
      `the schema of ${type.typeName} is too complex to validate: ${overLimit}`,
    );
  }
  checkMetaSchema(type, schema);
  let size = 0;
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    useDefaults,
    validateFormats: true,
    // Checked once against a shared meta-schema validator instead of compiling it per instance.
    validateSchema: false,
    addUsedSchema: false,
    // Silenced: ajv would log every unknown format, and the whole generated code of a failed compilation.
    logger: false,
    code: {
      regExp: re2Engine,
      // ajv's optimiser costs ~40% of compile time on the AWS corpus and gains nothing measurable per validation.
      optimize: false,
      // Called with the code of every function ajv generates, before it is evaluated.
      process: (source) => {
        size += source.length;
        if (size > MAX_VALIDATOR_SOURCE) throw new SourceTooLarge();
        return source;
      },
    },
  });
  addFormats(ajv);
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword(keyword);
  try {
    return ajv.compile(schema);
  } catch (e) {
    if (e instanceof SourceTooLarge) {
      throw new TypeplaneError(
        'InvalidTypeConfiguration',
        `the schema of ${type.typeName} is too large to validate: its validator would exceed ${MAX_VALIDATOR_SOURCE / 1024 / 1024} MB of code; split the type or simplify its schema`,
      );
    }
    throw new TypeplaneError(
      'InvalidTypeConfiguration',
      `the schema of ${type.typeName} cannot be compiled: ${(e as Error).message}`,
    );
  }
}

let metaAjv: Ajv | undefined;

/**
 * Checks a schema against the draft-07 meta-schema. No formats are loaded here on purpose: the
 * meta-schema marks `pattern` as `format: regex` in ECMAScript syntax, and Typeplane's patterns are RE2.
 */
function checkMetaSchema(type: ResourceType, schema: JsonSchema): void {
  metaAjv ??= new Ajv({ allErrors: true, strict: false, logger: false });
  if (metaAjv.validateSchema(schema) === true) return;
  const errors = (metaAjv.errors ?? []) as ErrorObject[];
  const details = errors
    .slice(0, 20)
    .map((e) => ({ pointer: e.instancePath, message: e.message ?? e.keyword }));
  throw new TypeplaneError(
    'InvalidTypeConfiguration',
    `the schema of ${type.typeName} is not a valid JSON Schema: ${metaAjv.errorsText(errors, { dataVar: 'schema' })}`,
    details,
  );
}

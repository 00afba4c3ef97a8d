/**
 * @module A template's `Transform` section: which transforms it names, and, for each one Typeplane
 * does not run, why and what to do instead. `AWS::LanguageExtensions` is the one it runs.
 */
import { escapePointerToken } from '../../schema/diagnostics.js';

const LANGUAGE_EXTENSIONS = 'AWS::LanguageExtensions';
/** How a loop's key starts: `Fn::ForEach::<LoopName>`. */
export const LOOP_PREFIX = 'Fn::ForEach::';

export interface TransformSection {
  /** Whether `AWS::LanguageExtensions` is among the transforms named. */
  languageExtensions: boolean;
  /** Each transform refused, where it is named and why. */
  refused: { pointer: string; message: string }[];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Read `Transform`: a name, `{Name, Parameters}`, or a list of them (CloudFormation's forms).
 *
 * @example readTransform(['AWS::LanguageExtensions', 'AWS::Serverless-2016-10-31'])
 *   // → { languageExtensions: true, refused: [{ pointer: '/Transform/1', message: 'Transform AWS::Serverless-2016-10-31 (SAM) is not supported: …' }] }
 */
export function readTransform(section: unknown): TransformSection {
  const out: TransformSection = { languageExtensions: false, refused: [] };
  const read = (item: unknown, pointer: string) => {
    const name = isObject(item) ? item.Name : item;
    if (typeof name !== 'string' || name === '') {
      out.refused.push({
        pointer,
        message:
          'Transform names a transform (AWS::LanguageExtensions), or is {Name, Parameters}, or a list of them',
      });
      return;
    }
    if (name === LANGUAGE_EXTENSIONS) out.languageExtensions = true;
    else {
      const location = isObject(item) && isObject(item.Parameters) ? item.Parameters.Location : undefined;
      out.refused.push({
        pointer: isObject(item) ? `${pointer}/Name` : pointer,
        message: `Transform ${transformRefusal(name, location)}`,
      });
    }
  };
  if (Array.isArray(section)) section.forEach((item, i) => read(item, `/Transform/${i}`));
  else read(section, '/Transform');
  return out;
}

/**
 * Why the transform `name` is not run, and what to do, as a phrase after the transform's name
 * (`Transform …`, `Fn::Transform …`).
 */
export function transformRefusal(name: string, location?: unknown): string {
  const processed =
    'deploy the template as AWS processed it instead (after a change set, `aws cloudformation get-template --stack-name <stack> --template-stage Processed` prints it), without this transform';
  if (name.startsWith('AWS::Serverless'))
    return `${name} (SAM) is not supported: Typeplane runs no SAM translator; ${processed}, or write the resources SAM would make (AWS::Lambda::Function, AWS::IAM::Role, …) in the template`;
  if (name === 'AWS::Include')
    return `AWS::Include is not supported: Typeplane reads no snippet from Amazon S3; paste the snippet${typeof location === 'string' ? ` at ${location}` : ''} into the template where the transform stands`;
  if (name.startsWith('AWS::'))
    return `${name} is not supported (Typeplane runs AWS::LanguageExtensions only); ${processed}`;
  return `${name} is a macro, which CloudFormation runs as an AWS Lambda function, and Typeplane runs none; ${processed}`;
}

/** The root without the loops of its Resources, Outputs and Conditions, for a template not expanded. */
export function withoutLoops(root: Record<string, unknown>): {
  root: Record<string, unknown>;
  loops: string[];
} {
  const loops: string[] = [];
  const out = { ...root };
  for (const section of ['Resources', 'Outputs', 'Conditions']) {
    const value = root[section];
    if (!isObject(value) || !Object.keys(value).some((k) => k.startsWith(LOOP_PREFIX))) continue;
    out[section] = Object.fromEntries(
      Object.entries(value).filter(([key]) => {
        if (!key.startsWith(LOOP_PREFIX)) return true;
        loops.push(`/${section}/${escapePointerToken(key)}`);
        return false;
      }),
    );
  }
  return { root: out, loops };
}

/** Most places {@link extensionFunctions} reports (the first ones say what to do). */
const MAX_REPORTED = 20;

/**
 * Where a template not expanded uses a function only `AWS::LanguageExtensions` defines — `Fn::Length`,
 * `Fn::ToJsonString`, `Fn::FindInMap` with a `DefaultValue` — each with what to do: CloudFormation
 * refuses them without the transform. Walked without recursion, over the template's own values.
 */
export function extensionFunctions(root: Record<string, unknown>): { pointer: string; message: string }[] {
  const found: { pointer: string; message: string }[] = [];
  const fix = 'declare `Transform: AWS::LanguageExtensions` at the top of the template to have it evaluated';
  const pending: { value: unknown; pointer: string }[] = [{ value: root, pointer: '' }];
  while (pending.length > 0 && found.length < MAX_REPORTED) {
    const { value, pointer } = pending.pop()!;
    if (Array.isArray(value)) {
      value.forEach((v, i) => pending.push({ value: v, pointer: `${pointer}/${i}` }));
      continue;
    }
    if (!isObject(value)) continue;
    const keys = Object.keys(value);
    if (keys.length === 1 && (keys[0] === 'Fn::Length' || keys[0] === 'Fn::ToJsonString'))
      found.push({
        pointer: `${pointer}/${keys[0]}`,
        message: `${keys[0]} is a function of the AWS::LanguageExtensions transform: ${fix}`,
      });
    else if (keys.length === 1 && keys[0] === 'Fn::FindInMap') {
      const args = value['Fn::FindInMap'];
      if (Array.isArray(args) && args.length === 4 && isObject(args[3]) && 'DefaultValue' in args[3])
        found.push({
          pointer: `${pointer}/Fn::FindInMap/3/DefaultValue`,
          message: `Fn::FindInMap's DefaultValue is a feature of the AWS::LanguageExtensions transform: ${fix}, or drop the DefaultValue`,
        });
    }
    for (const [k, v] of Object.entries(value))
      pending.push({ value: v, pointer: `${pointer}/${escapePointerToken(k)}` });
  }
  return found.sort((a, b) => (a.pointer < b.pointer ? -1 : 1));
}

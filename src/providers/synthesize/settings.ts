/**
 * @module The state provider's settings in the server's configuration:
 *
 * ```yaml
 * stateProvider:
 *   synthesize: ['AWS::*']   # type-name globs: emulate these types' services (off by default)
 *   region: eu-west-1        # the emulated account; defaults: the server's --region,
 *   accountId: '111122223333' #   --account-id and --partition, else us-east-1,
 *   partition: aws           #   123456789012 and aws
 * ```
 */
import { globMatches } from '../../auth/index.js';

export interface StateProviderSettings {
  /** Types whose creates synthesize read-only values and names (globs: `*` is any run of characters). */
  synthesize?: string[];
  region?: string;
  accountId?: string;
  partition?: string;
}

/** Characters a glob may hold: those of type names and `*` (as token type globs). */
const GLOB = /^[A-Za-z0-9_.:/*-]{1,256}$/;
const MAX_GLOBS = 64;

/** The emulated account's settings and the forms they must have (as the server's flags have). */
const ACCOUNT_SETTINGS = [
  ['region', /^[a-z0-9-]{1,64}$/, 'letters, digits and hyphens (us-east-1)'],
  ['accountId', /^\d{12}$/, "twelve digits, quoted in YAML ('123456789012')"],
  ['partition', /^[a-z-]{1,32}$/, 'lowercase letters and hyphens (aws)'],
] as const;

/** A problem of the settings: where (`stateProvider.synthesize[1]`) and what is wrong with it. */
export interface SettingsProblem {
  where: string;
  what: string;
}

/** The problems of a configuration's `stateProvider` value, all of them; none when it is right. */
export function stateProviderProblems(value: unknown): SettingsProblem[] {
  const at = 'stateProvider';
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [{ where: at, what: 'must be an object (e.g. { synthesize: [AWS::*] })' }];
  const record = value as Record<string, unknown>;
  const problems: SettingsProblem[] = [];
  const known = ['synthesize', ...ACCOUNT_SETTINGS.map(([key]) => key)];
  for (const key of Object.keys(record))
    if (!known.includes(key))
      problems.push({
        where: `${at}.${key}`,
        what: `is not a setting of the state provider (known: ${known.join(', ')})`,
      });
  const globs = record.synthesize;
  if (globs !== undefined) {
    if (!Array.isArray(globs) || globs.length === 0)
      problems.push({
        where: `${at}.synthesize`,
        what: "must be a list of type-name globs, like ['AWS::*']",
      });
    else if (globs.length > MAX_GLOBS)
      problems.push({ where: `${at}.synthesize`, what: `has ${globs.length} globs; at most ${MAX_GLOBS}` });
    else
      globs.forEach((glob, i) => {
        if (typeof glob !== 'string' || !GLOB.test(glob))
          problems.push({
            where: `${at}.synthesize[${i}]`,
            what: `${JSON.stringify(glob)} is not a type glob: use the characters of type names and '*' (like 'AWS::EC2::*')`,
          });
      });
  }
  for (const [key, form, example] of ACCOUNT_SETTINGS) {
    const setting = record[key];
    if (setting !== undefined && !(typeof setting === 'string' && form.test(setting)))
      problems.push({ where: `${at}.${key}`, what: `must be ${example}, not ${JSON.stringify(setting)}` });
  }
  return problems;
}

/** Whether any glob reaches the type. */
export function synthesizes(globs: readonly string[], typeName: string): boolean {
  return globs.some((glob) => globMatches(glob, typeName));
}

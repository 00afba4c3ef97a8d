/**
 * @module The value of a secret made with `GenerateSecretString` and no `SecretString`: the password
 * Secrets Manager would generate (its length, the character types it includes or excludes, one of
 * each included type unless told otherwise, set under `GenerateStringKey` of `SecretStringTemplate`),
 * derived from the server's key, the secret's identifier and the settings. So it is the same at each
 * reading, unknowable without the key, and a new one when the settings change, as AWS makes a new
 * version then.
 */

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
/** Secrets Manager's longest generated password. */
const MAX_LENGTH = 4096;

/**
 * The generated SecretString, or what is wrong with the settings. `mac` is the server's keyed hash
 * (hex); `place` names the secret.
 */
export function generatedSecretString(
  settings: Record<string, unknown>,
  mac: (data: string) => string,
  place: string,
): { value: string } | { problem: string } {
  const excluded = typeof settings.ExcludeCharacters === 'string' ? settings.ExcludeCharacters : '';
  const types = [
    settings.ExcludeUppercase === true ? '' : UPPER,
    settings.ExcludeLowercase === true ? '' : LOWER,
    settings.ExcludeNumbers === true ? '' : DIGITS,
    settings.ExcludePunctuation === true ? '' : PUNCTUATION,
    settings.IncludeSpace === true ? ' ' : '',
  ]
    .map((set) => [...set].filter((c) => !excluded.includes(c)).join(''))
    .filter((set) => set !== '');
  const pool = types.join('');
  if (pool === '') return { problem: 'its GenerateSecretString excludes every character' };
  const length = settings.PasswordLength ?? 32;
  if (typeof length !== 'number' || !Number.isInteger(length) || length < 1 || length > MAX_LENGTH)
    return {
      problem: `its GenerateSecretString's PasswordLength must be an integer from 1 to ${MAX_LENGTH}`,
    };
  // A stream of keyed bytes: 32 a hash, as many hashes as the length needs.
  const bytes: number[] = [];
  for (let block = 0; bytes.length < length + types.length; block++)
    bytes.push(...Buffer.from(mac(`${place}\u0000${JSON.stringify(settings)}\u0000${block}`), 'hex'));
  const chars = bytes.slice(0, length).map((b) => pool[b % pool.length]!);
  // One of each included type, each at a position of its own the stream picks, as Secrets Manager's default.
  if (settings.RequireEachIncludedType !== false && length >= types.length) {
    const free = [...chars.keys()];
    types.forEach((set, i) => {
      const at = free.splice(bytes[length + i]! % free.length, 1)[0]!;
      chars[at] = set[bytes[at]! % set.length]!;
    });
  }
  const password = chars.join('');
  if (settings.GenerateStringKey === undefined) return { value: password };
  if (typeof settings.GenerateStringKey !== 'string' || typeof settings.SecretStringTemplate !== 'string')
    return {
      problem: "its GenerateSecretString's GenerateStringKey needs a SecretStringTemplate (a JSON object)",
    };
  let template: unknown;
  try {
    template = JSON.parse(settings.SecretStringTemplate);
  } catch {
    template = undefined;
  }
  if (typeof template !== 'object' || template === null || Array.isArray(template))
    return { problem: "its GenerateSecretString's SecretStringTemplate is not a JSON object" };
  return { value: JSON.stringify({ ...template, [settings.GenerateStringKey]: password }) };
}

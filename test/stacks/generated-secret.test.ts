/**
 * A secret made with GenerateSecretString (and no SecretString) has the password Secrets Manager
 * would generate: its length and character types as asked, one of each included type, set under
 * GenerateStringKey of SecretStringTemplate; derived from the server's key, so the same at each
 * reading, another for another secret or other settings or another key.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { generatedSecretString } from '../../src/stacks/parameter-store/generated-secret.js';

const keyed = (key: string) => (data: string) => createHmac('sha256', key).update(data).digest('hex');
const value = (settings: Record<string, unknown>, place = 'secret-1', key = 'k1') => {
  const out = generatedSecretString(settings, keyed(key), place);
  assert.ok('value' in out, JSON.stringify(out));
  return out.value;
};

test('the password has the length and the character types asked for, one of each included type', () => {
  const plain = value({});
  assert.equal(plain.length, 32, 'the default length is 32, as in Secrets Manager');
  for (const set of [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9 ]/]) assert.match(plain, set);
  assert.doesNotMatch(plain, / /, 'no space unless IncludeSpace');
  for (let n = 0; n < 50; n++) {
    const short = value({ PasswordLength: 4, ExcludeCharacters: 'AEIOUaeiou01' }, `s${n}`);
    assert.equal(short.length, 4);
    for (const set of [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9]/]) assert.match(short, set, short);
    assert.doesNotMatch(short, /[AEIOUaeiou01]/);
  }
  assert.match(
    value({ ExcludePunctuation: true, ExcludeUppercase: true, PasswordLength: 64 }),
    /^[a-z0-9]{64}$/,
  );
});

test('GenerateStringKey sets the password into SecretStringTemplate; bad settings say what is wrong', () => {
  const json = JSON.parse(
    value({ SecretStringTemplate: '{"username":"app"}', GenerateStringKey: 'password', PasswordLength: 12 }),
  );
  assert.equal(json.username, 'app');
  assert.equal(json.password.length, 12);
  const problem = (settings: Record<string, unknown>) =>
    (generatedSecretString(settings, keyed('k1'), 'p') as { problem: string }).problem;
  assert.match(problem({ GenerateStringKey: 'password' }), /needs a SecretStringTemplate/);
  assert.match(problem({ GenerateStringKey: 'p', SecretStringTemplate: '[1]' }), /not a JSON object/);
  assert.match(problem({ PasswordLength: 0 }), /from 1 to 4096/);
  assert.match(
    problem({
      ExcludeUppercase: true,
      ExcludeLowercase: true,
      ExcludeNumbers: true,
      ExcludePunctuation: true,
    }),
    /excludes every character/,
  );
});

test('the same secret, settings and key give the same password; any other gives another', () => {
  const settings = { PasswordLength: 20 };
  assert.equal(value(settings), value(settings));
  assert.notEqual(value(settings), value(settings, 'secret-2'));
  assert.notEqual(value(settings), value(settings, 'secret-1', 'k2'));
  assert.notEqual(value(settings), value({ ...settings, ExcludeCharacters: '"' }));
});

/**
 * @module Dynamic references, as CloudFormation writes them inside string property values (the whole
 * value or part of it): `{{resolve:ssm:name}}`, `{{resolve:ssm-secure:name}}` and
 * `{{resolve:secretsmanager:secret-id:SecretString:json-key:version-stage:version-id}}`. Read here,
 * checked at analysis, resolved only when a resource is created or updated: a stack keeps the
 * reference, never the value.
 */
import type { ResourceType } from '../../schema/index.js';
import { escapePointerToken } from '../../schema/diagnostics.js';
import { touchesWriteOnly } from '../../model/index.js';
import { Unknown } from '../intrinsics.js';
import type { ParameterStore } from './store.js';

/** The most dynamic references one template may hold, as CloudFormation allows. */
export const MAX_DYNAMIC_REFERENCES = 60;

/** Every `{{resolve:…}}` of a string. */
const REFERENCE = /\{\{resolve:([^}]*)\}\}/g;
const SSM_NAME = /^[A-Za-z0-9_.\-/]{1,2048}$/;

export type DynamicReference =
  | { service: 'ssm' | 'ssm-secure'; text: string; name: string }
  | { service: 'secretsmanager'; text: string; secretId: string; jsonKey?: string };

/** Whether a reference's value is a secret: never shown, never stored in plain text. */
export const isSecure = (reference: DynamicReference) => reference.service !== 'ssm';

/** The type a reference reads. */
export const typeRead = (reference: DynamicReference) =>
  reference.service === 'secretsmanager' ? 'AWS::SecretsManager::Secret' : 'AWS::SSM::Parameter';

/** Whether a string holds a dynamic reference (well formed or not). */
export const holdsReference = (text: string) => text.includes('{{resolve:');

/**
 * Whether any string of a JSON value, a member's name included, holds a dynamic reference: what
 * holdsReference(JSON.stringify(value)) answers (the marker has nothing JSON escapes), without the
 * text. A recipe's instance asks it of each resource it makes.
 */
export function holdsReferenceIn(value: unknown): boolean {
  if (typeof value === 'string') return holdsReference(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsReferenceIn(item)) return true;
    return false;
  }
  for (const key in value as Record<string, unknown>)
    if (holdsReference(key) || holdsReferenceIn((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** The references of a string, each read, or what is wrong with the first that cannot be. */
export function parseReferences(text: string): DynamicReference[] | string {
  const out: DynamicReference[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    const parsed = parseReference(match[0], match[1]!);
    if (typeof parsed === 'string') return parsed;
    out.push(parsed);
  }
  if (out.length === 0) return `'{{resolve:' starts no reference here (a reference is {{resolve:service:…}})`;
  return out;
}

function parseReference(text: string, body: string): DynamicReference | string {
  const colon = body.indexOf(':');
  const service = colon < 0 ? body : body.slice(0, colon);
  const rest = colon < 0 ? '' : body.slice(colon + 1);
  if (service === 'ssm' || service === 'ssm-secure') {
    const parts = rest.split(':');
    // A parameter's ARN (arn:partition:ssm:region:account:parameter/name) names it too: a
    // hierarchical name's leading / is left out of its ARN.
    if (parts[0] === 'arn') {
      const resource = parts.splice(0, 6)[5] ?? '';
      const name = resource.startsWith('parameter/') ? resource.slice('parameter/'.length) : '';
      parts.unshift(name.includes('/') ? `/${name}` : name);
    }
    const [name = '', version, ...more] = parts;
    if (!SSM_NAME.test(name) || more.length > 0)
      return `${text}: a parameter name is letters, digits and _ . - / ({{resolve:${service}:name}}), or its ARN`;
    if (version !== undefined)
      return `${text}: Typeplane keeps each parameter's current value only, not its versions; drop ':${version}'`;
    return { service, text, name };
  }
  if (service === 'secretsmanager') {
    const parts = rest.split(':');
    // A secret's ARN holds colons of its own: arn:partition:secretsmanager:region:account:secret:name.
    const secretId = parts[0] === 'arn' ? parts.splice(0, 7).join(':') : parts.shift()!;
    const [secretString, jsonKey, versionStage, versionId, ...more] = parts;
    if (secretId === '' || more.length > 0)
      return `${text}: write {{resolve:secretsmanager:secret-id:SecretString:json-key:version-stage:version-id}}, the fields after secret-id optional`;
    if (secretString !== undefined && secretString !== '' && secretString !== 'SecretString')
      return `${text}: the field after the secret id is SecretString (or empty), not '${secretString}'`;
    if ((versionStage ?? '') !== '' && versionStage !== 'AWSCURRENT')
      return `${text}: Typeplane keeps each secret's current value only (AWSCURRENT), not stage '${versionStage}'`;
    if ((versionId ?? '') !== '')
      return `${text}: Typeplane keeps each secret's current value only, not its versions; drop the version id`;
    return { service, text, secretId, ...(jsonKey ? { jsonKey } : {}) };
  }
  return `${text}: the services are ssm, ssm-secure and secretsmanager, not '${service}'`;
}

/**
 * What is wrong with the dynamic references of a resource's evaluated properties (each with its
 * pointer), the references found, and the properties with every string holding one unknown: its value
 * is known when the resource is made, and is checked against the type's schema then.
 */
export function checkDynamicReferences(
  type: ResourceType | undefined,
  properties: Record<string, unknown>,
  at: string,
): {
  problems: { pointer: string; message: string }[];
  references: DynamicReference[];
  properties: Record<string, unknown>;
} {
  const problems: { pointer: string; message: string }[] = [];
  const references: DynamicReference[] = [];
  const walk = (value: unknown, pointer: string): unknown => {
    if (typeof value === 'string') {
      if (!holdsReference(value)) return value;
      const parsed = parseReferences(value);
      if (typeof parsed === 'string') problems.push({ pointer: `${at}${pointer}`, message: parsed });
      else {
        references.push(...parsed);
        const secure = parsed.find(isSecure);
        if (secure && type && !touchesWriteOnly(type, pointer))
          problems.push({
            pointer: `${at}${pointer}`,
            message: `${secure.text} is a secret, and ${type.typeName}${pointer.replace(/\//g, '.')} is not write-only: its value would be stored and shown in plain text; use it in a write-only property (a password), or use {{resolve:ssm:…}} for a value that is not secret`,
          });
      }
      return new Unknown([pointer]);
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${pointer}/${i}`));
    if (typeof value === 'object' && value !== null && !(value instanceof Unknown)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, `${pointer}/${escapePointerToken(k)}`);
      return out;
    }
    return value;
  };
  return { problems, references, properties: walk(properties, '') as Record<string, unknown> };
}

/** Why a reference cannot be resolved now. */
export class UnresolvedReference extends Error {}

/**
 * `value` with each dynamic reference in its strings replaced by what it names now, and the secret
 * values among them (to mask wherever a message might quote one). A reference to nothing throws
 * {@link UnresolvedReference}. Each distinct reference is looked up once.
 */
export async function resolveReferences(
  value: unknown,
  store: ParameterStore,
  /** Throws when the reference may not be read (its caller does not reach the type it reads). */
  mayRead: (reference: DynamicReference) => void = () => {},
  /** Which references to resolve (the others stay as written); all by default. */
  wanted: (reference: DynamicReference) => boolean = () => true,
): Promise<{ value: unknown; secrets: string[] }> {
  const resolved = new Map<string, string>();
  const secrets: string[] = [];
  const lookup = async (reference: DynamicReference): Promise<string> => {
    const known = resolved.get(reference.text);
    if (known !== undefined) return known;
    mayRead(reference);
    const text = await resolveOne(reference, store);
    resolved.set(reference.text, text);
    if (isSecure(reference) && text !== '') secrets.push(text);
    return text;
  };
  const walk = async (v: unknown): Promise<unknown> => {
    if (typeof v === 'string') {
      if (!holdsReference(v)) return v;
      const parsed = parseReferences(v);
      if (typeof parsed === 'string') throw new UnresolvedReference(parsed);
      for (const reference of parsed) if (wanted(reference)) await lookup(reference);
      return v.replace(REFERENCE, (text) => resolved.get(text) ?? text);
    }
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (const item of v) out.push(await walk(item));
      return out;
    }
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[k] = await walk(item);
      return out;
    }
    return v;
  };
  return { value: await walk(value), secrets };
}

async function resolveOne(reference: DynamicReference, store: ParameterStore): Promise<string> {
  if (reference.service !== 'secretsmanager') {
    const found = await store.parameter(reference.name);
    if ('missing' in found) throw new UnresolvedReference(`${reference.text}: ${found.missing}`);
    if (reference.service === 'ssm' && found.found.type === 'SecureString')
      throw new UnresolvedReference(
        `${reference.text}: parameter '${reference.name}' is a SecureString; read it with {{resolve:ssm-secure:${reference.name}}}`,
      );
    return found.found.value;
  }
  const found = await store.secret(reference.secretId);
  if ('missing' in found) throw new UnresolvedReference(`${reference.text}: ${found.missing}`);
  const secretString = found.found.secretString;
  if (secretString === undefined)
    throw new UnresolvedReference(`${reference.text}: secret '${reference.secretId}' has no SecretString`);
  if (reference.jsonKey === undefined) return secretString;
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretString);
  } catch {
    parsed = undefined;
  }
  // Never quoting the secret: only whether it is JSON and holds the key.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UnresolvedReference(
      `${reference.text}: secret '${reference.secretId}' is not a JSON object, so it has no key '${reference.jsonKey}'`,
    );
  const item = (parsed as Record<string, unknown>)[reference.jsonKey];
  if (item === undefined)
    throw new UnresolvedReference(
      `${reference.text}: secret '${reference.secretId}' has no key '${reference.jsonKey}'`,
    );
  return typeof item === 'string' ? item : JSON.stringify(item);
}

/**
 * @module The state provider's emulation of a real service: a create fills the read-only properties
 * and the names the type's service would (see plan.ts), with values its schema accepts that read
 * like AWS's (shapes.ts, values.ts).
 *
 * Names and read-only identifier parts are made first, seeded by the request (a create re-invoked
 * with its token makes the same resource; another create, another one). Everything else is seeded by
 * the type and the identifier alone (an HMAC keyed by the type name), so the same resource has the
 * same values wherever and whenever they are made. Values are made once, at create: an update keeps
 * them (it cannot change a read-only or create-only property), and a value the caller gave is never
 * replaced.
 */
import type { ErrorDetail } from '../../errors.js';
import { cloneJson, identifierOf, resolverOf, valuesAt, type Model } from '../../model/index.js';
import type { ResourceType } from '../../schema/index.js';
import { escapePointerToken } from '../../schema/diagnostics.js';
import { planOf } from './plan.js';
import { Seed } from './seed.js';
import { Subject, type Emulated } from './subject.js';
import { ValueWriter } from './values.js';

/** Checks a model against its type's schema (as the engine checks a provider's answer). */
export type ModelCheck = (type: ResourceType, model: Model) => readonly ErrorDetail[];

/** Rounds of leaving out values the schema refused before the model is taken as it is. */
const CHECK_ROUNDS = 3;

const generated = new WeakMap<ResourceType, string[]>();

/** The model of a new resource: `desired` with its synthesized values (a copy; `desired` is untouched). */
export function synthesize(
  type: ResourceType,
  desired: Model,
  requestToken: string,
  emulated: Emulated,
  check?: ModelCheck,
): Model {
  const plan = planOf(type);
  const model = cloneJson(desired);
  const subject = new Subject(
    type.typeName,
    emulated,
    model,
    plan.nameProperty,
    plan.identifierProperty,
    Seed.of(type.typeName, 'request', requestToken),
  );
  const writer = new ValueWriter(type.schema as Record<string, unknown>, subject);
  const schemaAt = (pointer: string) => resolverOf(type).walk(pointer)?.[0];
  // Where values were made, as model pointers (`/Endpoint/Port`), for the check at the end.
  const made: string[] = [];
  for (const name of plan.names) {
    if (model[name] !== undefined) continue;
    const written = writer.name(
      schemaAt(`/properties/${escapePointerToken(name)}`),
      [name],
      subject.seed.derive(name),
      plan.lowerCaseNames,
    );
    if (written) model[name] = written.value;
  }
  for (const name of [...plan.identifierParts, ...plan.chosen]) {
    const schema = schemaAt(`/properties/${escapePointerToken(name)}`);
    if (model[name] !== undefined || schema === undefined) continue;
    const written = writer.value(schema, [name], subject.seed.derive(name));
    if (written) model[name] = written.value;
  }
  const identifier = identifierOf(type, model);
  if (identifier !== undefined) {
    subject.identifier = identifier;
    subject.seed = Seed.of(type.typeName, 'resource', identifier);
  }
  for (const pointer of plan.readOnly) {
    const cut = pointer.lastIndexOf('/');
    const member = unescapeToken(pointer.slice(cut + 1));
    if (member === '*') continue;
    const parents =
      cut === '/properties'.length ? [{ path: [], value: model }] : valuesAt(model, pointer.slice(0, cut));
    for (const { path, value } of parents) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      const holder = value as Record<string, unknown>;
      if (holder[member] !== undefined) continue;
      const at = [...path, member];
      const written = writer.value(schemaAt(pointer), at, subject.seed.derive(at.join('/')));
      if (!written) continue;
      holder[member] = written.value;
      made.push(`/${at.map((t) => escapePointerToken(String(t))).join('/')}`);
    }
  }
  if (check) leaveOutRefused(type, model, made, check);
  return model;
}

/**
 * The schema is the judge of what was made: a value it refuses (a keyword relating values to each
 * other, which the writer does not read) is left out, a few rounds at most.
 */
function leaveOutRefused(type: ResourceType, model: Model, made: string[], check: ModelCheck): void {
  for (let round = 0; round < CHECK_ROUNDS; round++) {
    const problems = check(type, model);
    if (problems.length === 0) return;
    const refused = made.filter((at) =>
      problems.some(
        ({ pointer = '' }) => pointer === at || pointer.startsWith(`${at}/`) || at.startsWith(`${pointer}/`),
      ),
    );
    if (refused.length === 0) return;
    for (const at of refused) {
      remove(model, at);
      made.splice(made.indexOf(at), 1);
    }
  }
}

function remove(model: Model, at: string): void {
  const tokens = at.slice(1).split('/').map(unescapeToken);
  let holder: unknown = model;
  for (const token of tokens.slice(0, -1)) {
    if (typeof holder !== 'object' || holder === null) return;
    holder = (holder as Record<string, unknown>)[token];
  }
  if (typeof holder === 'object' && holder !== null)
    delete (holder as Record<string, unknown>)[tokens.at(-1)!];
}

/**
 * The pointers synthesis fills for a type (what `recordBacked.generates` answers): its names,
 * read-only identifier parts and read-only properties, less those no value can be written for.
 */
export function synthesizedPointers(type: ResourceType, emulated: Emulated): string[] {
  let pointers = generated.get(type);
  if (!pointers) {
    const plan = planOf(type);
    const subject = new Subject(
      type.typeName,
      emulated,
      {},
      plan.nameProperty,
      plan.identifierProperty,
      Seed.of(type.typeName, 'plan'),
    );
    const writer = new ValueWriter(type.schema as Record<string, unknown>, subject);
    const writes = (pointer: string) => {
      const names = pointer
        .split('/')
        .slice(2)
        .filter((t) => t !== '*')
        .map(unescapeToken);
      const schema = resolverOf(type).walk(pointer)?.[0];
      return schema !== undefined && writer.value(schema, names, subject.seed.derive(pointer)) !== undefined;
    };
    // A name no value can be written for stays the caller's to give (an identifier part: "give it").
    const names = plan.names
      .map((name) => `/properties/${escapePointerToken(name)}`)
      .filter((pointer) => {
        const schema = resolverOf(type).walk(pointer)?.[0];
        const name = unescapeToken(pointer.slice('/properties/'.length));
        return writer.name(schema, [name], subject.seed.derive(pointer), plan.lowerCaseNames) !== undefined;
      });
    pointers = [
      ...names,
      ...[
        ...[...plan.identifierParts, ...plan.chosen].map((name) => `/properties/${escapePointerToken(name)}`),
        ...plan.readOnly,
      ].filter(writes),
    ];
    generated.set(type, pointers);
  }
  return pointers;
}

/**
 * `desired` (an update's model, without read-only values) with the synthesized values of `before`
 * it leaves out: an update never changes what was made at create.
 */
export function keepSynthesized(
  type: ResourceType,
  before: Model,
  desired: Model,
  emulated: Emulated,
): Model {
  const kept = cloneJson(desired);
  for (const pointer of synthesizedPointers(type, emulated)) {
    for (const { path, value } of valuesAt(before, pointer)) {
      let holder: unknown = kept;
      for (const token of path.slice(0, -1))
        holder = (holder as Record<string, unknown> | undefined)?.[token];
      const last = path.at(-1)!;
      if (
        typeof holder === 'object' &&
        holder !== null &&
        (holder as Record<string | number, unknown>)[last] === undefined
      )
        (holder as Record<string | number, unknown>)[last] = cloneJson(value);
    }
  }
  return kept;
}

const unescapeToken = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');

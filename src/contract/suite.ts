/**
 * @module The contract tests, as data: each one named after the clause of the handler contract it
 * proves, with pure assertions that return failures carrying the request and the response.
 *
 * Two kinds:
 * - sequence tests drive the provider through a short sequence (create → read, delete → update, …)
 *   with generated or given inputs;
 * - observation tests judge every answer the provider gave during the sequence tests (every model
 *   matches the schema, read never answers IN_PROGRESS, …), so a clause broken anywhere is reported
 *   once, under its own name.
 */
import {
  createOnlyChanged,
  identifierOf,
  jsonEqual,
  outcomeDifferences,
  stripNulls,
  valuesAt,
} from '../model/index.js';
import type { Model } from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import type { HandlerAction, HandlerEvent } from '../handler/types.js';
import type { ResourceType } from '../schema/model.js';
import { canonicalJson, type InputPair, type InvalidInput } from './generate.js';

export type TestStatus = 'pass' | 'fail' | 'skip' | 'error';

/** A handler request as recorded for the report (no logger, no signal). */
export interface RecordedRequest {
  typeName: string;
  desiredState: Model;
  previousState?: Model;
  clientRequestToken: string;
  nextToken?: string;
  maxResults?: number;
}

/** One handler invocation as the suite saw it, IN_PROGRESS steps included. */
export interface Call {
  /** The test it belongs to. */
  test: string;
  action: HandlerAction;
  request: RecordedRequest;
  /** Every answer in order: IN_PROGRESS steps, then the last one. */
  events: unknown[];
  /** The last answer, when it was a valid event. */
  final?: HandlerEvent;
  /** What went wrong on the way. */
  problem?: { kind: 'threw' | 'invalid' | 'timeout' | 'slow' | 'interrupted'; message: string };
  durationMs: number;
  /** What the handler logged (the first lines). */
  logs: string[];
}

export interface Failure {
  /** What the provider did against which clause. */
  message: string;
  /** The request and response it concerns. */
  call?: Call;
  /** What the clause asks for and what came instead, shown as a diff. */
  expected?: unknown;
  actual?: unknown;
}

/** What a sequence test can do with the provider, for one set of inputs. */
export interface TestContext {
  readonly type: ResourceType;
  readonly compiled: CompiledType;
  create(desired: Model): Promise<Call>;
  read(key: Model): Promise<Call>;
  update(desired: Model, previous: Model): Promise<Call>;
  delete(key: Model): Promise<Call>;
  list(page: { nextToken?: string; maxResults?: number }): Promise<Call>;
  /** The same create or update again, with the same clientRequestToken (a retry after a timeout or crash). */
  replay(call: Call): Promise<Call>;
  /** The input as the engine would send it: defaults applied. */
  desired(input: Model): Model;
  /** An update input as the engine would send it: read-only values and identifier kept from `current`. */
  updateDesired(input: Model, current: Model): Model;
  /** The primary identifier of a model (`a|b` for compound ones). */
  id(model: Model): string | undefined;
  /** A model holding only the primary identifier of `model`. */
  keyOf(model: Model): Model | undefined;
  /** Go on only if no resource with this desired state's identifier exists yet (else the input is set aside). */
  assumeAbsent(desired: Model): Promise<void>;
  /** A remark shown with the test's result. */
  note(text: string): void;
  /**
   * The provider is a Typeplane server's API (`typeplane test --api`): its engine checks every input
   * before a handler runs, so invalid inputs are sent to it and must be refused.
   */
  readonly throughApi: boolean;
}

export type InputKind = 'one' | 'pair' | 'several' | 'absent' | 'invalid';

export interface SequenceTest {
  kind: 'sequence';
  name: string;
  clause: string;
  input: InputKind;
  /** Why the test does not apply to this type, if it does not. */
  skip?(type: ResourceType): string | undefined;
  /** The test looks at every resource the provider has (a whole list): no other test runs beside it. */
  exclusive?: true;
  run(ctx: TestContext, input: unknown): Promise<Failure[]>;
}

/** What the user declared about the provider, for the observation tests that need it. */
export interface ObservationOptions {
  /** Read-only properties (pointers) that may legitimately have no value in a model. */
  allowAbsent: readonly string[];
}

export interface ObservationTest {
  kind: 'observation';
  name: string;
  clause: string;
  check(
    calls: readonly Call[],
    compiled: CompiledType,
    options: ObservationOptions,
  ): { failures: Failure[]; note?: string };
}

export type ContractTest = SequenceTest | ObservationTest;

// ---- Assertions --------------------------------------------------------------------------------

const failure = (message: string, call?: Call, expected?: unknown, actual?: unknown): Failure => ({
  message,
  ...(call ? { call } : {}),
  ...(expected === undefined ? {} : { expected }),
  ...(actual === undefined ? {} : { actual }),
});

/** The answer in short, for messages: `SUCCESS`, `FAILED NotFound`, `IN_PROGRESS`. */
export function describeAnswer(call: Call): string {
  if (call.problem) return call.problem.message;
  const e = call.final;
  if (!e) return 'nothing';
  return e.status === 'FAILED' ? `FAILED ${e.errorCode ?? '(no errorCode)'}` : e.status;
}

/** The parts of an answer a status expectation is about. */
function statusOf(call: Call): unknown {
  if (call.problem) return { problem: call.problem.message };
  const e = call.final;
  if (!e) return {};
  return {
    status: e.status,
    ...(e.errorCode === undefined ? {} : { errorCode: e.errorCode }),
    ...(e.message === undefined ? {} : { message: e.message }),
  };
}

function expectSuccess(call: Call, what: string): Failure | undefined {
  if (!call.problem && call.final?.status === 'SUCCESS') return undefined;
  return failure(
    `${what} should succeed, but answered ${describeAnswer(call)}`,
    call,
    { status: 'SUCCESS' },
    statusOf(call),
  );
}

function expectFailed(call: Call, code: string, what: string): Failure | undefined {
  if (!call.problem && call.final?.status === 'FAILED' && call.final.errorCode === code) return undefined;
  return failure(
    `${what} should fail with ${code}, but answered ${describeAnswer(call)}`,
    call,
    { status: 'FAILED', errorCode: code },
    statusOf(call),
  );
}

const isModel = (v: unknown): v is Model => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The member paths of `model` holding `null`, as pointers. */
function nullsIn(value: unknown, path: string[] = []): string[] {
  if (value === null) return [`/${path.join('/')}`];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullsIn(v, [...path, String(i)]));
  if (isModel(value)) return Object.entries(value).flatMap(([k, v]) => nullsIn(v, [...path, k]));
  return [];
}

function present(model: Model, pointer: string): boolean {
  return valuesAt(stripNulls(model), pointer).length > 0;
}

function modelOf(call: Call): Model | undefined {
  const model = call.final?.resourceModel;
  return isModel(model) ? model : undefined;
}

/** `model` without the values at `pointers` (a copy). */
function without(model: Model, pointers: readonly string[]): Model {
  const copy = JSON.parse(JSON.stringify(model)) as Model;
  for (const pointer of pointers) {
    for (const { path } of valuesAt(copy, pointer).reverse()) {
      let parent: unknown = copy;
      for (const token of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[token];
      const last = path.at(-1)!;
      if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
      else if (isModel(parent)) delete parent[String(last)];
    }
  }
  return copy;
}

// ---- Steps shared by the tests -------------------------------------------------------------------

interface Created {
  desired: Model;
  call: Call;
  model: Model;
  key: Model;
  id: string;
}

const isFailure = (v: unknown): v is Failure => typeof v === 'object' && v !== null && 'message' in v;

/** Create a resource from an input; a failure when the provider does not. */
async function createResource(ctx: TestContext, input: Model): Promise<Created | Failure> {
  const desired = ctx.desired(input);
  await ctx.assumeAbsent(desired);
  const call = await ctx.create(desired);
  const problem = expectSuccess(call, 'create');
  if (problem) return problem;
  const model = modelOf(call);
  if (!model) return failure('create answered SUCCESS without a resource model', call);
  const key = ctx.keyOf(model) ?? ctx.keyOf(desired);
  const id = ctx.id(model) ?? ctx.id(desired);
  if (!key || id === undefined)
    return failure(
      `the created model has no primary identifier (${ctx.type.primaryIdentifier.join(', ')}), so the resource cannot be addressed`,
      call,
    );
  return { desired, call, model, key, id };
}

async function readModel(
  ctx: TestContext,
  key: Model,
  what: string,
): Promise<{ call: Call; model: Model } | Failure> {
  const call = await ctx.read(key);
  const problem = expectSuccess(call, what);
  if (problem) return problem;
  const model = modelOf(call);
  if (!model) return failure(`${what} answered SUCCESS without a resource model`, call);
  return { call, model };
}

async function deleteResource(ctx: TestContext, created: Created): Promise<Failure | undefined> {
  const call = await ctx.delete(created.key);
  return expectSuccess(call, 'delete');
}

async function updateResource(
  ctx: TestContext,
  created: Created,
  update: Model,
): Promise<{ call: Call; desired: Model } | Failure> {
  const desired = ctx.updateDesired(update, created.model);
  const call = await ctx.update(desired, stripNulls(created.model));
  const problem = expectSuccess(call, 'update');
  if (problem) return problem;
  return { call, desired };
}

/** Every model the list handler gives over all pages, and the calls it took. */
async function listAll(
  ctx: TestContext,
  maxResults?: number,
): Promise<{ models: Model[]; calls: Call[] } | Failure> {
  const models: Model[] = [];
  const calls: Call[] = [];
  const tokens = new Set<string>();
  let nextToken: string | undefined;
  let previousPage: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_PAGES)
      return failure(`list gave more than ${MAX_PAGES} pages without a null nextToken`, calls.at(-1));
    const call = await ctx.list({
      ...(nextToken === undefined ? {} : { nextToken }),
      ...(maxResults === undefined ? {} : { maxResults }),
    });
    calls.push(call);
    const problem = expectSuccess(call, nextToken === undefined ? 'list' : `list with nextToken`);
    if (problem) return problem;
    const event = call.final!;
    const items = event.resourceModels;
    if (!Array.isArray(items))
      return failure(
        'list answered SUCCESS without a resourceModels array (a page with nothing on it is [])',
        call,
        { resourceModels: [] },
        { resourceModels: items ?? null },
      );
    if (maxResults !== undefined && items.length > maxResults)
      return failure(
        `list answered ${items.length} models when asked for at most ${maxResults}`,
        call,
        { most: maxResults },
        { count: items.length },
      );
    models.push(...items.filter(isModel));
    const next = event.nextToken;
    if (next === undefined || next === null) return { models, calls };
    if (typeof next !== 'string' || next === '')
      return failure('nextToken must be a non-empty string, or null on the last page', call, null, next);
    const pageIds = canonicalJson(items.map((m) => (isModel(m) ? (ctx.id(m) ?? m) : m)));
    if (tokens.has(next))
      return failure(
        `list answered nextToken ${JSON.stringify(next)} a second time: paging would never end`,
        call,
      );
    if (nextToken !== undefined && previousPage === pageIds && items.length > 0)
      return failure(
        `list answered the same page again for nextToken ${JSON.stringify(nextToken)}: it ignores nextToken`,
        call,
      );
    tokens.add(next);
    previousPage = pageIds;
    nextToken = next;
  }
}

const MAX_PAGES = 10_000;

function containsId(ctx: TestContext, models: readonly Model[], id: string): boolean {
  return models.some((m) => ctx.id(m) === id);
}

/** The update tests need an update handler when the schema names its handlers. */
const needsUpdate = (type: ResourceType): string | undefined =>
  Object.keys(type.handlers).length > 0 && !type.handlers.update
    ? 'the type declares no update handler'
    : undefined;
const needsList = (type: ResourceType): string | undefined =>
  Object.keys(type.handlers).length > 0 && !type.handlers.list
    ? 'the type declares no list handler'
    : undefined;

// ---- The tests ---------------------------------------------------------------------------------

const createDelete: SequenceTest = {
  kind: 'sequence',
  name: 'create→delete',
  clause: 'a resource can be created, and the created resource deleted',
  input: 'one',
  async run(ctx, input) {
    const created = await createResource(ctx, input as Model);
    if (isFailure(created)) return [created];
    const problem = await deleteResource(ctx, created);
    return problem ? [problem] : [];
  },
};

/** Whether every property of an identifier is given by the caller (none is read-only). */
const givenIdentifier = (type: ResourceType, pointers: readonly string[]): boolean =>
  pointers.every((p) => !type.readOnlyProperties.includes(p));

const createCreate: SequenceTest = {
  kind: 'sequence',
  name: 'create→create',
  clause:
    'creating a resource that exists fails with AlreadyExists: one with the same primary identifier, or the same value of an additional identifier',
  input: 'one',
  skip: (type) =>
    givenIdentifier(type, type.primaryIdentifier) ||
    type.additionalIdentifiers.some((pointers) => givenIdentifier(type, pointers))
      ? undefined
      : 'the primary identifier and every additional identifier are read-only: every create makes a new resource',
  async run(ctx, input) {
    const created = await createResource(ctx, input as Model);
    if (isFailure(created)) return [created];
    const again = await ctx.create(created.desired);
    const problem = expectFailed(again, 'AlreadyExists', 'a second create of the same resource');
    return problem ? [problem] : [];
  },
};

const createReplayed: SequenceTest = {
  kind: 'sequence',
  name: 'create replayed',
  clause:
    'a create repeated with the same clientRequestToken after it finished answers SUCCESS with the same resource, and makes no second one',
  input: 'one',
  // It counts every resource listed before and after the retry.
  exclusive: true,
  async run(ctx, input) {
    const created = await createResource(ctx, input as Model);
    if (isFailure(created)) return [created];
    // What the provider lists before the retry, to see whether the retry made another resource (a
    // second one may carry the same primary identifier, or another the answer does not show).
    const listable = needsList(ctx.type) === undefined;
    const before = listable ? await listAll(ctx) : undefined;
    const again = await ctx.replay(created.call);
    const problem = expectSuccess(again, 'the same create repeated with its clientRequestToken');
    if (problem) return [problem];
    const model = modelOf(again);
    const id = model && ctx.id(model);
    if (id !== created.id)
      return [
        failure(
          `the repeated create answered ${id === undefined ? 'a model without its identifier' : `resource ${id}`} instead of ${created.id}: a retry must not make a second resource`,
          again,
          { identifier: created.id },
          { identifier: id ?? null },
        ),
      ];
    // The same resource has the same additional identifiers.
    for (const pointers of ctx.type.additionalIdentifiers) {
      const first = keyOf(created.model, pointers);
      const replayed = keyOf(model!, pointers);
      if (first && replayed && !jsonEqual(first, replayed))
        return [
          failure(
            `the repeated create answered resource ${created.id} with ${pointers.join(', ')} = ${JSON.stringify(Object.values(replayed))}, where the create it repeats answered ${JSON.stringify(Object.values(first))}: a retry must answer the resource the first create made, not make a second one`,
            again,
            first,
            replayed,
          ),
        ];
    }
    if (!before || isFailure(before)) {
      if (listable) ctx.note('list failed, so create replayed could not count resources');
      return [];
    }
    const after = await listAll(ctx);
    if (isFailure(after)) {
      ctx.note('list failed, so create replayed could not count resources');
      return [];
    }
    const sameId = after.models.filter((m) => ctx.id(m) === created.id).length;
    if (after.models.length <= before.models.length && sameId <= 1) return [];
    const resources = (n: number) => `${n} resource${n === 1 ? '' : 's'}`;
    return [
      failure(
        `the repeated create left a second resource: list showed ${resources(before.models.length)} before the retry and ${resources(after.models.length)} after, ${sameId} with identifier ${created.id}; a retry with the same clientRequestToken must answer the resource the first create made`,
        after.calls.at(-1),
        { resources: before.models.length, withIdentifier: 1 },
        { resources: after.models.length, withIdentifier: sameId },
      ),
    ];
  },
};

const createRead: SequenceTest = {
  kind: 'sequence',
  name: 'create→read',
  clause:
    'a created resource reads back as created: create and read return every property given, exactly, and no others but read-only ones (write-only values aside; unordered arrays as sets)',
  input: 'one',
  async run(ctx, input) {
    const { type } = ctx;
    const created = await createResource(ctx, input as Model);
    if (isFailure(created)) return [created];
    const failures: Failure[] = [];
    const expected = without(created.desired, type.writeOnlyProperties);
    const inCreate = outcomeDifferences(type, created.desired, created.model);
    if (inCreate.length > 0)
      failures.push(
        failure(
          `create answered a model that differs from the input at ${inCreate.map((d) => d.pointer).join(', ')}`,
          created.call,
          expected,
          created.model,
        ),
      );
    const read = await readModel(ctx, created.key, 'read of the created resource');
    if (isFailure(read)) return [...failures, read];
    const writeOnly = type.writeOnlyProperties.filter((p) => present(read.model, p));
    if (writeOnly.length > 0)
      failures.push(
        failure(
          `read returned write-only properties: ${writeOnly.join(', ')}`,
          read.call,
          without(read.model, writeOnly),
          read.model,
        ),
      );
    const inRead = outcomeDifferences(type, created.desired, read.model);
    if (inRead.length > 0)
      failures.push(
        failure(
          `read does not return what was created: ${inRead.map((d) => d.pointer).join(', ')} differ`,
          read.call,
          expected,
          read.model,
        ),
      );
    const lostReadOnly = type.readOnlyProperties.filter(
      (p) => present(created.model, p) && !present(read.model, p),
    );
    if (lostReadOnly.length > 0)
      failures.push(
        failure(
          `read leaves out read-only properties that create returned: ${lostReadOnly.join(', ')}`,
          read.call,
          created.model,
          read.model,
        ),
      );
    return failures;
  },
};

/** Create a resource from an input, then list everything. */
async function createThenList(
  ctx: TestContext,
  input: Model,
): Promise<{ created: Created; listed: { models: Model[]; calls: Call[] } } | Failure> {
  const created = await createResource(ctx, input);
  if (isFailure(created)) return created;
  const listed = await listAll(ctx);
  return isFailure(listed) ? listed : { created, listed };
}

const createList: SequenceTest = {
  kind: 'sequence',
  name: 'create→list',
  clause: 'a created resource is listed (on one of the pages)',
  input: 'one',
  skip: needsList,
  async run(ctx, input) {
    const both = await createThenList(ctx, input as Model);
    if (isFailure(both)) return [both];
    const { created, listed } = both;
    if (containsId(ctx, listed.models, created.id)) return [];
    return [
      failure(
        `list does not show the created resource ${created.id} (${listed.models.length} models on ${listed.calls.length} pages)`,
        listed.calls.at(-1),
        { identifier: created.id },
        { identifiers: listed.models.map((m) => ctx.id(m) ?? null) },
      ),
    ];
  },
};

const createCreateAdditional: SequenceTest = {
  kind: 'sequence',
  name: 'create→create by additional identifiers',
  clause:
    'creating another resource with the value of an additional identifier a resource already has fails with AlreadyExists',
  input: 'several',
  skip: (type) =>
    type.additionalIdentifiers.some((pointers) => givenIdentifier(type, pointers))
      ? undefined
      : 'the type has no additional identifier a caller gives',
  async run(ctx, input) {
    const [first, second] = input as Model[];
    const created = await createResource(ctx, first!);
    if (isFailure(created)) return [created];
    let tried = 0;
    for (const pointers of ctx.type.additionalIdentifiers.filter((p) => givenIdentifier(ctx.type, p))) {
      const key = keyOf(created.desired, pointers);
      if (!key) continue; // the first input has no value for it
      // Another resource (the second input's primary identifier) with the first one's value.
      const other = ctx.desired({ ...second!, ...key });
      if (ctx.id(other) === created.id) continue;
      await ctx.assumeAbsent(other);
      tried++;
      const problem = expectFailed(
        await ctx.create(other),
        'AlreadyExists',
        `a create of another resource with ${pointers.join(', ')} = ${JSON.stringify(Object.values(key))}`,
      );
      if (problem) return [problem];
    }
    if (tried === 0) ctx.note('some inputs had no value for any additional identifier');
    return [];
  },
};

const readByAdditional: SequenceTest = {
  kind: 'sequence',
  name: 'read by additional identifiers',
  clause:
    'a read succeeds when passed any additional identifier instead of the primary one, and answers the same resource',
  input: 'one',
  skip: (type) =>
    type.additionalIdentifiers.length === 0 ? 'the type has no additional identifiers' : undefined,
  async run(ctx, input) {
    const created = await createResource(ctx, input as Model);
    if (isFailure(created)) return [created];
    for (const pointers of ctx.type.additionalIdentifiers) {
      const key = keyOf(created.model, pointers);
      if (!key) continue; // this resource has no value for it
      const read = await readModel(ctx, key, `a read by ${pointers.join(', ')}`);
      if (isFailure(read)) return [read];
      const id = ctx.id(read.model);
      if (id !== created.id)
        return [
          failure(
            `a read by ${pointers.join(', ')} answered ${id ?? 'a model without its identifier'} instead of ${created.id}`,
            read.call,
            { identifier: created.id },
            { identifier: id ?? null },
          ),
        ];
    }
    return [];
  },
};

/** A model holding only the values of `pointers` in `model` (top-level or nested, no `*`), or undefined when one is absent. */
function keyOf(model: Model, pointers: readonly string[]): Model | undefined {
  const key: Model = {};
  for (const pointer of pointers) {
    const found = valuesAt(stripNulls(model), pointer);
    if (found.length !== 1 || found[0]!.path.some((t) => typeof t === 'number')) return undefined;
    let target = key;
    const path = found[0]!.path as string[];
    for (const token of path.slice(0, -1)) target = (target[token] ??= {}) as Model;
    target[path.at(-1)!] = found[0]!.value;
  }
  return key;
}

/** The most listed identifiers list→read reads back (a provider may hold many resources). */
const MAX_READ_BACK = 100;

const listRead: SequenceTest = {
  kind: 'sequence',
  name: 'list→read',
  clause: 'every resource list returns can be read: a listed identifier never answers NotFound',
  input: 'one',
  skip: needsList,
  // It reads back every resource listed, which another test could delete in between.
  exclusive: true,
  async run(ctx, input) {
    const both = await createThenList(ctx, input as Model);
    if (isFailure(both)) return [both];
    const { listed } = both;
    if (listed.models.length > MAX_READ_BACK)
      ctx.note(`the first ${MAX_READ_BACK} of ${listed.models.length} listed resources were read back`);
    for (const model of listed.models.slice(0, MAX_READ_BACK)) {
      // A model without its identifier is reported by 'models carry the primary identifier'.
      const key = ctx.keyOf(model);
      if (!key) continue;
      const problem = expectSuccess(await ctx.read(key), `a read of ${ctx.id(model)!}, which list returned,`);
      if (problem) return [problem];
    }
    return [];
  },
};

const updateRead: SequenceTest = {
  kind: 'sequence',
  name: 'update→read',
  clause:
    'an update replaces the previous properties: update and read return exactly the desired state (read-only and write-only values aside), lists and maps replaced whole, removed properties gone, the primary identifier unchanged',
  input: 'pair',
  skip: needsUpdate,
  async run(ctx, input) {
    const { type } = ctx;
    const pair = input as InputPair;
    const created = await createResource(ctx, pair.create);
    if (isFailure(created)) return [created];
    const updated = await updateResource(ctx, created, pair.update);
    if (isFailure(updated)) return [updated];
    const failures: Failure[] = [];
    const ignore = [...type.writeOnlyProperties, ...type.readOnlyProperties];
    const expected = without(updated.desired, ignore);
    const answered = modelOf(updated.call);
    if (answered) {
      const inUpdate = outcomeDifferences(type, updated.desired, answered);
      if (inUpdate.length > 0)
        failures.push(
          failure(
            `update answered a model without the update applied at ${inUpdate.map((d) => d.pointer).join(', ')}`,
            updated.call,
            expected,
            answered,
          ),
        );
    }
    const read = await readModel(ctx, created.key, 'read after the update');
    if (isFailure(read)) return [...failures, read];
    const inRead = outcomeDifferences(type, updated.desired, read.model);
    if (inRead.length > 0)
      failures.push(
        failure(
          `read after the update does not show it: ${inRead.map((d) => d.pointer).join(', ')} differ`,
          read.call,
          expected,
          read.model,
        ),
      );
    const id = ctx.id(read.model);
    if (id !== created.id)
      failures.push(
        failure(
          `the primary identifier changed in the update: ${created.id} became ${id ?? '(none)'}`,
          read.call,
          { identifier: created.id },
          { identifier: id ?? null },
        ),
      );
    return failures;
  },
};

const updateList: SequenceTest = {
  kind: 'sequence',
  name: 'update→list',
  clause: 'an updated resource is still listed',
  input: 'pair',
  skip: (type) => needsUpdate(type) ?? needsList(type),
  async run(ctx, input) {
    const pair = input as InputPair;
    const created = await createResource(ctx, pair.create);
    if (isFailure(created)) return [created];
    const updated = await updateResource(ctx, created, pair.update);
    if (isFailure(updated)) return [updated];
    const listed = await listAll(ctx);
    if (isFailure(listed)) return [listed];
    if (containsId(ctx, listed.models, created.id)) return [];
    return [
      failure(
        `list does not show the updated resource ${created.id}`,
        listed.calls.at(-1),
        { identifier: created.id },
        { identifiers: listed.models.map((m) => ctx.id(m) ?? null) },
      ),
    ];
  },
};

const updateWithoutCreate: SequenceTest = {
  kind: 'sequence',
  name: 'update without create',
  clause: 'updating a resource that does not exist fails with NotFound (and creates nothing)',
  input: 'absent',
  skip: needsUpdate,
  async run(ctx, input) {
    const desired = ctx.desired(input as Model);
    await ctx.assumeAbsent(desired);
    const call = await ctx.update(desired, desired);
    const problem = expectFailed(call, 'NotFound', 'an update of a resource that was never created');
    return problem ? [problem] : [];
  },
};

/** Create, delete, then `after` (which judges what the provider does with the deleted resource). */
function afterDelete(
  name: string,
  clause: string,
  after: (ctx: TestContext, created: Created, input: unknown) => Promise<Failure[]>,
  options: { input?: InputKind; skip?: (type: ResourceType) => string | undefined } = {},
): SequenceTest {
  return {
    kind: 'sequence',
    name,
    clause,
    input: options.input ?? 'one',
    ...(options.skip ? { skip: options.skip } : {}),
    async run(ctx, input) {
      const created = await createResource(
        ctx,
        options.input === 'pair' ? (input as InputPair).create : (input as Model),
      );
      if (isFailure(created)) return [created];
      const problem = await deleteResource(ctx, created);
      if (problem) return [problem];
      return after(ctx, created, input);
    },
  };
}

const deleteRead = afterDelete(
  'delete→read',
  'a deleted resource cannot be read: NotFound',
  async (ctx, created) => {
    const problem = expectFailed(await ctx.read(created.key), 'NotFound', 'read of a deleted resource');
    return problem ? [problem] : [];
  },
);

const deleteUpdate = afterDelete(
  'delete→update',
  'a deleted resource cannot be updated: NotFound',
  async (ctx, created, input) => {
    const desired = ctx.updateDesired((input as InputPair).update, created.model);
    const call = await ctx.update(desired, stripNulls(created.model));
    const problem = expectFailed(call, 'NotFound', 'an update of a deleted resource');
    return problem ? [problem] : [];
  },
  { input: 'pair', skip: needsUpdate },
);

const deleteDelete = afterDelete(
  'delete→delete',
  'a deleted resource cannot be deleted again: NotFound',
  async (ctx, created) => {
    const problem = expectFailed(await ctx.delete(created.key), 'NotFound', 'a second delete');
    return problem ? [problem] : [];
  },
);

const deleteList = afterDelete(
  'delete→list',
  'a deleted resource is no longer listed',
  async (ctx, created) => {
    const listed = await listAll(ctx);
    if (isFailure(listed)) return [listed];
    if (!containsId(ctx, listed.models, created.id)) return [];
    return [
      failure(
        `list still shows the deleted resource ${created.id}`,
        listed.calls.find((c) =>
          containsId(ctx, (c.final?.resourceModels ?? []).filter(isModel), created.id),
        ),
        { without: created.id },
        { identifiers: listed.models.map((m) => ctx.id(m) ?? null) },
      ),
    ];
  },
  { skip: needsList },
);

const deleteCreate = afterDelete(
  'delete→create',
  'a deleted resource can be created again (no AlreadyExists)',
  async (ctx, created) => {
    const call = await ctx.create(created.desired);
    const problem = expectSuccess(call, 'create after delete');
    return problem ? [problem] : [];
  },
);

const PAGE_SIZE = 1;

const listPagination: SequenceTest = {
  kind: 'sequence',
  name: 'list pagination',
  clause:
    'list pages: at most maxResults models, nextToken handed back gives the next page, null at the end, [] when there is nothing',
  input: 'several',
  skip: needsList,
  // It expects an empty list before and after, and every page to hold what it created.
  exclusive: true,
  async run(ctx, input) {
    const inputs = input as Model[];
    const before = await listAll(ctx, PAGE_SIZE);
    if (isFailure(before)) return [before];
    const baseline = new Set(before.models.map((m) => ctx.id(m) ?? canonicalJson(m)));
    const failures: Failure[] = [];
    if (baseline.size === 0) {
      const first = before.calls[0]!;
      if (!(jsonEqual(first.final?.resourceModels, []) && first.final?.nextToken == null))
        failures.push(
          failure(
            'with nothing to list, list must answer resourceModels [] and nextToken null',
            first,
            { resourceModels: [], nextToken: null },
            {
              resourceModels: first.final?.resourceModels ?? null,
              nextToken: first.final?.nextToken ?? null,
            },
          ),
        );
    } else {
      ctx.note('the empty list was not checked: the provider already had resources');
    }
    const created: Created[] = [];
    for (const model of inputs) {
      const c = await createResource(ctx, model);
      if (isFailure(c)) return [...failures, c];
      created.push(c);
    }
    const after = await listAll(ctx, PAGE_SIZE);
    if (isFailure(after)) return [...failures, after];
    const ids = after.models.map((m) => ctx.id(m));
    const twice = ids.filter((id, i) => id !== undefined && ids.indexOf(id) !== i);
    if (twice.length > 0)
      failures.push(
        failure(`list showed ${[...new Set(twice)].join(', ')} on more than one page`, after.calls.at(-1)),
      );
    const missing = created.filter((c) => !ids.includes(c.id)).map((c) => c.id);
    if (missing.length > 0)
      failures.push(
        failure(
          `paging through list with maxResults ${PAGE_SIZE} misses ${missing.join(', ')}`,
          after.calls.at(-1),
          { identifiers: created.map((c) => c.id) },
          { identifiers: ids.map((id) => id ?? null) },
        ),
      );
    if (after.calls.length < 2 && created.length > PAGE_SIZE)
      failures.push(
        failure(
          `list answered ${after.models.length} models on one page when asked for ${PAGE_SIZE} at a time`,
          after.calls[0],
        ),
      );
    for (const c of created) {
      const problem = await deleteResource(ctx, c);
      if (problem) return [...failures, problem];
    }
    if (baseline.size === 0) {
      const empty = await listAll(ctx, PAGE_SIZE);
      if (isFailure(empty)) return [...failures, empty];
      const last = empty.calls[0]!;
      if (!(jsonEqual(last.final?.resourceModels, []) && last.final?.nextToken == null))
        failures.push(
          failure(
            'once everything is deleted, list must answer resourceModels [] and nextToken null',
            last,
            { resourceModels: [], nextToken: null },
            { resourceModels: last.final?.resourceModels ?? null, nextToken: last.final?.nextToken ?? null },
          ),
        );
    }
    return failures;
  },
};

const createOnlyReadOnly: SequenceTest = {
  kind: 'sequence',
  name: 'create-only and read-only properties respected',
  clause:
    'an update keeps create-only values as they were created, and read-only values the provider set stay set',
  input: 'pair',
  skip: (type) =>
    needsUpdate(type) ??
    (type.createOnlyProperties.length === 0 && type.readOnlyProperties.length === 0
      ? 'the type has no create-only or read-only properties'
      : undefined),
  async run(ctx, input) {
    const { type } = ctx;
    const pair = input as InputPair;
    const created = await createResource(ctx, pair.create);
    if (isFailure(created)) return [created];
    const before = await readModel(ctx, created.key, 'read of the created resource');
    if (isFailure(before)) return [before];
    const updated = await updateResource(ctx, created, pair.update);
    if (isFailure(updated)) return [updated];
    const after = await readModel(ctx, created.key, 'read after the update');
    if (isFailure(after)) return [after];
    const failures: Failure[] = [];
    // Compared as the engine compares them (an unordered array in another order is unchanged).
    const changed = createOnlyChanged(type, stripNulls(before.model), stripNulls(after.model)).filter(
      (p) => !type.writeOnlyProperties.includes(p),
    );
    if (changed.length > 0)
      failures.push(
        failure(
          `create-only properties changed in an update: ${changed.join(', ')}`,
          after.call,
          before.model,
          after.model,
        ),
      );
    const lost = type.readOnlyProperties.filter((p) => present(before.model, p) && !present(after.model, p));
    if (lost.length > 0)
      failures.push(
        failure(
          `read-only properties are gone after an update: ${lost.join(', ')}`,
          after.call,
          before.model,
          after.model,
        ),
      );
    return failures;
  },
};

const invalidInputs: SequenceTest = {
  kind: 'sequence',
  name: 'invalid inputs refused by the schema',
  clause:
    'every inputs_N_invalid.json is refused before any handler runs (the schema or its validation rules reject it, or it sets read-only properties); through a server (--api), it and generated inputs that break a validation rule are refused with InvalidRequest naming the rule, and change nothing',
  input: 'invalid',
  async run(ctx, input) {
    const { desired, before, rules } = input as InvalidInput;
    if (!rules) {
      const model = JSON.parse(JSON.stringify(desired)) as Model;
      const problems = ctx.compiled.validateInput(model);
      const readOnly = ctx.type.readOnlyProperties.filter((p) => present(desired, p));
      const verdicts = problems.length === 0 ? (ctx.compiled.checkRules?.(model) ?? []) : [];
      if (problems.length === 0 && readOnly.length === 0 && verdicts.length === 0)
        return [
          failure(
            'the invalid input is valid for the schema, so the engine would hand it to the provider; make it invalid',
            undefined,
            'an input the schema refuses',
            desired,
          ),
        ];
    }
    if (!ctx.throughApi) return [];
    return before
      ? refusedUpdate(ctx, before, desired, rules ?? [])
      : refusedCreate(ctx, desired, rules ?? []);
  },
};

/** A refusal for what the input breaks: InvalidRequest, naming one of `rules` (when it breaks rules). */
function expectRefused(call: Call, rules: readonly string[], what: string): Failure | undefined {
  const failed = expectFailed(call, 'InvalidRequest', what);
  if (failed || rules.length === 0) return failed;
  // The server's refusal names each rule that failed: `rule /x-typeplane-validations/0 at /Size: …`.
  if (rules.some((name) => call.final?.message?.includes(`rule ${name}`))) return undefined;
  return failure(
    `${what} was refused, but not for the validation rule it breaks`,
    call,
    { errorCode: 'InvalidRequest', rules },
    statusOf(call),
  );
}

async function refusedCreate(ctx: TestContext, input: Model, rules: readonly string[]): Promise<Failure[]> {
  const desired = ctx.desired(input);
  const key = ctx.keyOf(desired);
  await ctx.assumeAbsent(desired);
  const create = await ctx.create(desired);
  const refused = expectRefused(create, rules, 'a create of an invalid input');
  if (refused) return [refused];
  if (!key) return [];
  const read = await ctx.read(key);
  const absent = expectFailed(read, 'NotFound', 'a read after the refused create');
  return absent ? [absent] : [];
}

async function refusedUpdate(
  ctx: TestContext,
  before: Model,
  input: Model,
  rules: readonly string[],
): Promise<Failure[]> {
  const first = ctx.desired(before);
  await ctx.assumeAbsent(first);
  const create = await ctx.create(first);
  const created = modelOf(create);
  const notCreated = expectSuccess(create, 'a create of a valid input');
  if (notCreated || !created) return [notCreated ?? failure('the create answered no model', create)];
  const update = await ctx.update(ctx.updateDesired(input, created), created);
  const refused = expectRefused(update, rules, 'an update to an invalid input');
  if (refused) return [refused];
  const read = await ctx.read(ctx.keyOf(created)!);
  const model = modelOf(read);
  const notRead = expectSuccess(read, 'a read after the refused update');
  if (notRead || !model) return [notRead ?? failure('the read answered no model', read)];
  // What the update would have changed is as it was.
  const changed = Object.keys({ ...before, ...input }).filter(
    (name) =>
      !jsonEqual(before[name], input[name]) && !ctx.type.writeOnlyProperties.includes(`/properties/${name}`),
  );
  const kept = (m: Model) => Object.fromEntries(changed.map((name) => [name, m[name]]));
  if (jsonEqual(kept(stripNulls(model)), kept(stripNulls(created)))) return [];
  return [
    failure(
      'a refused update changed the resource',
      read,
      kept(stripNulls(created)),
      kept(stripNulls(model)),
    ),
  ];
}

// ---- Observation tests ---------------------------------------------------------------------------

/** Up to three failures, smallest request first, and how many there were in all. */
function worst(found: Failure[], what: string): { failures: Failure[]; note?: string } {
  const sorted = [...found].sort(
    (a, b) => JSON.stringify(a.call?.request ?? '').length - JSON.stringify(b.call?.request ?? '').length,
  );
  return {
    failures: sorted.slice(0, 3),
    ...(found.length > 3 ? { note: `${found.length} ${what} in all; the smallest shown` } : {}),
  };
}

/** The models a call's answers carry, with where each came from. */
function modelsIn(call: Call): { model: Model; where: string }[] {
  const out: { model: Model; where: string }[] = [];
  call.events.forEach((raw, i) => {
    if (!isModel(raw)) return;
    const last = i === call.events.length - 1;
    if (isModel(raw.resourceModel))
      out.push({ model: raw.resourceModel, where: last ? 'resourceModel' : `step ${i + 1}` });
    if (call.action === 'list' && Array.isArray(raw.resourceModels))
      raw.resourceModels.forEach((m, j) => {
        if (isModel(m)) out.push({ model: m, where: `resourceModels[${j}]` });
      });
  });
  return out;
}

const modelsMatchSchema: ObservationTest = {
  kind: 'observation',
  name: 'models match the schema',
  clause:
    'every model a handler returns matches the schema (every keyword but required, dependencies and propertyNames)',
  check(calls, compiled) {
    const found: Failure[] = [];
    for (const call of calls) {
      if (call.action === 'delete') continue;
      for (const { model, where } of modelsIn(call)) {
        const problems = compiled.validateOutput(stripNulls(model));
        if (problems.length === 0) continue;
        found.push(
          failure(
            `${call.action} returned a model (${where}) that does not match the schema: ${problems
              .slice(0, 5)
              .map((p) => `${p.pointer || '/'} ${p.message}`)
              .join('; ')}`,
            call,
          ),
        );
      }
    }
    return worst(found, 'models off the schema');
  },
};

const noNulls: ObservationTest = {
  kind: 'observation',
  name: 'models carry no null',
  clause:
    'no model a handler returns (create, read, update, list, IN_PROGRESS steps included) has a property that is null: an unset property is left out',
  check(calls) {
    const found: Failure[] = [];
    for (const call of calls) {
      for (const { model, where } of modelsIn(call)) {
        const nulls = nullsIn(model);
        if (nulls.length === 0) continue;
        found.push(
          failure(
            `${call.action} returned null at ${nulls.join(', ')} (${where}); leave the property out instead`,
            call,
            stripNulls(model),
            model,
          ),
        );
      }
    }
    return worst(found, 'models with nulls');
  },
};

const modelsCarryIdentifier: ObservationTest = {
  kind: 'observation',
  name: 'models carry the primary identifier',
  clause:
    'every model create, read, update and list return carries its primary identifier (the one asked for, for read and update)',
  check(calls, compiled) {
    const type = compiled.type;
    const found: Failure[] = [];
    const idOf = (m: Model) => identifierOf(type, m);
    for (const call of calls) {
      if (call.action === 'delete' || call.final?.status !== 'SUCCESS') continue;
      const models =
        call.action === 'list'
          ? (call.final.resourceModels ?? []).filter(isModel)
          : isModel(call.final.resourceModel)
            ? [call.final.resourceModel]
            : [];
      for (const model of models) {
        const id = idOf(model);
        if (id === undefined) {
          found.push(
            failure(
              `${call.action} returned a model without its primary identifier (${type.primaryIdentifier.join(', ')})`,
              call,
            ),
          );
          continue;
        }
        const asked = idOf(call.request.desiredState);
        if ((call.action === 'read' || call.action === 'update') && asked !== undefined && asked !== id)
          found.push(
            failure(
              `${call.action} for ${asked} returned the model of ${id}`,
              call,
              { identifier: asked },
              { identifier: id },
            ),
          );
      }
    }
    return worst(found, 'models without their identifier');
  },
};

const inProgressModels: ObservationTest = {
  kind: 'observation',
  name: 'IN_PROGRESS models carry the primary identifier',
  clause:
    'every IN_PROGRESS answer of create and update carries the model so far, with its primary identifier (the one asked for); a delete may, and then with the one asked for',
  check(calls, compiled) {
    const type = compiled.type;
    const found: Failure[] = [];
    for (const call of calls) {
      if (call.action === 'read' || call.action === 'list') continue;
      const asked = identifierOf(type, call.request.desiredState);
      call.events.forEach((raw, i) => {
        if (!isModel(raw) || raw.status !== 'IN_PROGRESS') return;
        const step = `IN_PROGRESS answer ${i + 1}`;
        const model = raw.resourceModel;
        if (!isModel(model)) {
          if (call.action !== 'delete')
            found.push(
              failure(
                `${call.action} gave an ${step} without a resource model; it must carry the model so far, with its primary identifier (${type.primaryIdentifier.join(', ')})`,
                call,
              ),
            );
          return;
        }
        const id = identifierOf(type, model);
        if (id === undefined)
          found.push(
            failure(
              `${call.action} gave an ${step} whose model lacks its primary identifier (${type.primaryIdentifier.join(', ')})`,
              call,
            ),
          );
        else if (asked !== undefined && id !== asked)
          found.push(
            failure(
              `${call.action} for ${asked} gave an ${step} with the model of ${id}`,
              call,
              { identifier: asked },
              { identifier: id },
            ),
          );
      });
    }
    return worst(found, 'IN_PROGRESS answers without their identifier');
  },
};

const neverInProgress: ObservationTest = {
  kind: 'observation',
  name: 'read and list never IN_PROGRESS',
  clause: 'read and list answer at once: SUCCESS or FAILED, never IN_PROGRESS',
  check(calls) {
    const found = calls
      .filter((c) => (c.action === 'read' || c.action === 'list') && c.final?.status === 'IN_PROGRESS')
      .map((c) =>
        failure(
          `${c.action} answered IN_PROGRESS`,
          c,
          { status: 'SUCCESS or FAILED' },
          { status: 'IN_PROGRESS' },
        ),
      );
    return worst(found, 'IN_PROGRESS answers to read or list');
  },
};

const deleteNoModel: ObservationTest = {
  kind: 'observation',
  name: 'delete SUCCESS carries no model',
  clause: 'a delete that succeeds returns no resource model: the resource is gone',
  check(calls) {
    const found = calls
      .filter(
        (c) =>
          c.action === 'delete' &&
          c.final?.status === 'SUCCESS' &&
          c.final.resourceModel !== undefined &&
          c.final.resourceModel !== null,
      )
      .map((c) =>
        failure(
          'delete answered SUCCESS with a resource model',
          c,
          { status: 'SUCCESS' },
          {
            status: 'SUCCESS',
            resourceModel: c.final!.resourceModel,
          },
        ),
      );
    return worst(found, 'delete answers with a model');
  },
};

/**
 * The read-only pointers a model leaves out: a top-level one always counts; a nested one only where
 * the object holding it is there (`/properties/Status/Arn` asks nothing of a model without `Status`).
 */
function missingReadOnly(type: ResourceType, model: Model, allowAbsent: readonly string[]): string[] {
  const bare = stripNulls(model);
  return type.readOnlyProperties.filter((pointer) => {
    if (allowAbsent.includes(pointer)) return false;
    const cut = pointer.lastIndexOf('/');
    const parent = pointer.slice(0, cut);
    const name = pointer
      .slice(cut + 1)
      .replace(/~1/g, '/')
      .replace(/~0/g, '~');
    if (name === '*') return false;
    if (parent === '/properties') return !present(bare, pointer);
    return valuesAt(bare, parent).some(({ value }) => isModel(value) && !Object.hasOwn(value, name));
  });
}

const readOnlyReturned: ObservationTest = {
  kind: 'observation',
  name: 'read-only properties returned',
  clause:
    'a SUCCESS model of create, read and update "MUST contain … any readOnlyProperties as defined in the resource schema" (declare those that may have no value with --allow-absent <pointer>)',
  check(calls, compiled, options) {
    const found: Failure[] = [];
    for (const call of calls) {
      if (call.action === 'delete' || call.action === 'list' || call.final?.status !== 'SUCCESS') continue;
      const model = modelOf(call);
      if (!model) continue;
      const missing = missingReadOnly(compiled.type, model, options.allowAbsent);
      if (missing.length > 0)
        found.push(
          failure(
            `${call.action} answered SUCCESS with a model without the read-only ${missing.join(', ')}; the contract says a SUCCESS model "MUST contain … any readOnlyProperties as defined in the resource schema" (if one may truly have no value, pass --allow-absent ${missing[0]})`,
            call,
            { readOnlyProperties: missing.map((p) => `${p}: a value`) },
            { readOnlyProperties: missing.map((p) => `${p}: absent`) },
          ),
        );
    }
    return worst(found, 'models without read-only properties');
  },
};

const terminalInTime: ObservationTest = {
  kind: 'observation',
  name: 'IN_PROGRESS reaches a terminal status in time',
  clause:
    "IN_PROGRESS answers, followed with their callback context and delay, end in SUCCESS or FAILED within the handler's timeout",
  check(calls) {
    const found = calls
      .filter((c) => c.problem?.kind === 'timeout')
      .map((c) => failure(`${c.action} ${c.problem!.message}`, c));
    const followed = calls.filter(
      (c) =>
        c.events.length > 1 ||
        (c.final?.status === 'IN_PROGRESS' && c.action !== 'read' && c.action !== 'list'),
    );
    const longest = Math.max(0, ...followed.map((c) => c.events.length));
    const note =
      followed.length === 0
        ? 'no handler answered IN_PROGRESS'
        : `${followed.length} IN_PROGRESS sequences followed, the longest ${longest} answers`;
    const result = worst(found, 'handlers past their timeout');
    return { failures: result.failures, note: result.note ?? note };
  },
};

const answersInTime: ObservationTest = {
  kind: 'observation',
  name: 'each answer within its time limit',
  clause:
    'every invocation answers in time: create, update and delete within 60 s (longer work answers IN_PROGRESS), read and list within 30 s',
  check(calls) {
    const found = calls
      .filter((c) => c.problem?.kind === 'slow')
      .map((c) => failure(`${c.action} ${c.problem!.message}`, c));
    return worst(found, 'answers past their limit');
  },
};

const noWriteOnly: ObservationTest = {
  kind: 'observation',
  name: 'write-only values never returned',
  clause:
    'no model a handler returns (create, read, update, list, IN_PROGRESS steps included) carries a write-only property',
  check(calls, compiled) {
    const type = compiled.type;
    const found: Failure[] = [];
    for (const call of calls) {
      for (const { model, where } of modelsIn(call)) {
        const shown = type.writeOnlyProperties.filter((p) => present(model, p));
        if (shown.length === 0) continue;
        found.push(
          failure(
            `${call.action} returned write-only properties (${where}): ${shown.join(', ')}`,
            call,
            without(model, shown),
            model,
          ),
        );
      }
    }
    return worst(found, 'models with write-only values');
  },
};

const failedWithMessage: ObservationTest = {
  kind: 'observation',
  name: 'FAILED answers carry a message',
  clause: 'every FAILED answer carries a message that says what went wrong, besides its error code',
  check(calls) {
    const found = calls
      .filter((c) => c.final?.status === 'FAILED')
      .filter((c) => typeof c.final!.message !== 'string' || c.final!.message.trim() === '')
      .map((c) =>
        failure(
          `${c.action} answered FAILED ${c.final!.errorCode ?? ''} without a message`,
          c,
          { status: 'FAILED', errorCode: c.final!.errorCode, message: 'what went wrong' },
          { status: 'FAILED', errorCode: c.final!.errorCode, message: c.final!.message ?? null },
        ),
      );
    return worst(found, 'FAILED answers without a message');
  },
};

const validEvents: ObservationTest = {
  kind: 'observation',
  name: 'answers are valid events',
  clause:
    'every answer is a progress event: status SUCCESS, FAILED (with a contract error code) or IN_PROGRESS; handlers do not throw',
  check(calls) {
    const found = calls
      .filter((c) => c.problem?.kind === 'threw' || c.problem?.kind === 'invalid')
      .map((c) => failure(`${c.action} ${c.problem!.message}`, c));
    return worst(found, 'invalid answers');
  },
};

/** Every test, in the order they run and are reported. */
export const CONTRACT_TESTS: readonly ContractTest[] = [
  createDelete,
  createCreate,
  createCreateAdditional,
  readByAdditional,
  createReplayed,
  createRead,
  createList,
  listRead,
  updateRead,
  updateList,
  updateWithoutCreate,
  deleteRead,
  deleteUpdate,
  deleteDelete,
  deleteList,
  deleteCreate,
  listPagination,
  createOnlyReadOnly,
  invalidInputs,
  modelsMatchSchema,
  noNulls,
  noWriteOnly,
  modelsCarryIdentifier,
  inProgressModels,
  neverInProgress,
  deleteNoModel,
  readOnlyReturned,
  terminalInTime,
  answersInTime,
  failedWithMessage,
  validEvents,
];

/** The names of every test, for `--only` and for checking results. */
export const TEST_NAMES: readonly string[] = CONTRACT_TESTS.map((t) => t.name);

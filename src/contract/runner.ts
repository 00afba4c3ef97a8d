/**
 * @module Runs the contract suite against a provider, directly: no engine in between, so nothing
 * corrects the provider before the suite judges it.
 *
 * - Every handler call gets a deadline from the type's handler timeouts (read and list at most a
 *   minute, as the engine allows them); IN_PROGRESS answers are followed — same request, the callback
 *   context handed back, after `callbackDelaySeconds` — until SUCCESS or FAILED or the deadline.
 * - With generated inputs each sequence test is a fast-check property: `runs` inputs per test from
 *   `seed`, a failing one shrunk to a small one (at most `maxShrinks` further attempts).
 * - Up to `concurrency` sequence tests run at once, each on resources of its own: an identifier one
 *   test is using is set aside by the others, as one that exists outside the suite is. A test that
 *   looks at every resource (`exclusive`) runs alone; so does every test when file inputs set the
 *   identifiers, since all tests would then create the same resources. Results keep the suite's order.
 * - `maxCallbackDelayMs` shortens the waits an IN_PROGRESS answer asks for (a provider that asks for
 *   seconds between callbacks would otherwise be waited out in real time, test after test).
 * - Every resource a test creates is deleted when its run ends, whatever happened; at the end, every
 *   identifier the suite ever created is read again and deleted if still there. Aborting `signal`
 *   (Ctrl-C) stops the tests, not the cleanup.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { isErrorCode } from '../errors.js';
import {
  additionalIdentifiersOf,
  cloneJson,
  identifierModel,
  identifierOf,
  stripNulls,
  valuesAt,
} from '../model/index.js';
import type { Model } from '../model/index.js';
import { compileType, type CompiledType } from '../registry/compile.js';
import type {
  HandlerAction,
  HandlerEvent,
  HandlerLogger,
  HandlerRequest,
  Provider,
} from '../handler/types.js';
import { DEFAULT_TIMEOUT_MINUTES, type ResourceType } from '../schema/model.js';
import { inputGenerator, type InputGenerator, type InputPair, type InvalidInput } from './generate.js';
import {
  CONTRACT_TESTS,
  type Call,
  type ContractTest,
  type Failure,
  type InputKind,
  type RecordedRequest,
  type SequenceTest,
  type TestContext,
  type TestStatus,
} from './suite.js';
import { raceAbort } from '../handler/abort.js';
import { CALL_LIMITS, callLimitOf, tooSlow, type CallLimits } from '../handler/limits.js';

/** One numbered set of input files: `inputs_1_create.json`, `inputs_1_update.json`, `inputs_1_invalid.json`. */
export interface InputSet {
  name: string;
  create: Model;
  update?: Model;
  invalid?: Model;
}

export interface SuiteOptions {
  type: ResourceType;
  provider: Provider;
  /** Inputs from files; when given they are used instead of generated ones. */
  inputs?: readonly InputSet[];
  /** Seed of the generated inputs (default: random, reported). */
  seed?: number;
  /** Generated inputs per test (default 5). */
  runs?: number;
  /** Caps every handler's deadline, in milliseconds (default: the type's handler timeouts). */
  timeoutMs?: number;
  /** The limits on one invocation (default the contract's: 60 s create/update/delete, 30 s read/list). */
  callLimitsMs?: Partial<CallLimits>;
  /** Stops the tests (cleanup still runs), e.g. on Ctrl-C. */
  signal?: AbortSignal;
  /** Only these tests (by name). */
  only?: readonly string[];
  /** Read-only properties (pointers) that may legitimately have no value in a model. */
  allowAbsent?: readonly string[];
  /** Most shrinking attempts after a failure (default 40). */
  maxShrinks?: number;
  /** Most time spent shrinking one failure, in milliseconds (default 15,000). */
  maxShrinkMs?: number;
  /** Sequence tests run at once at most (default 1: one after another). */
  concurrency?: number;
  /** The longest wait honoured between IN_PROGRESS callbacks, in milliseconds (default: as asked). */
  maxCallbackDelayMs?: number;
  /** Called as each test ends, in the suite's order. */
  onResult?(result: TestResult): void;
  /** The type's configuration, handed to every handler call (never shown in reports). */
  typeConfiguration?: Record<string, unknown>;
  /**
   * The provider is a Typeplane server's API (`typeplane test --api`): invalid inputs — the files' and
   * generated ones that break the schema's validation rules — are sent, and must be refused.
   */
  throughApi?: boolean;
}

export interface TestResult {
  name: string;
  clause: string;
  status: TestStatus;
  durationMs: number;
  /** Why it was skipped, or what kept it from running. */
  reason?: string;
  failures: Failure[];
  notes: string[];
  /** How many inputs were tried. */
  runs: number;
  /** The (smallest) input it failed with. */
  input?: unknown;
  shrinks?: number;
}

export interface SuiteReport {
  typeName: string;
  provider: string;
  inputs: { source: 'generated'; seed: number; runs: number } | { source: 'files'; sets: string[] };
  startedAt: string;
  durationMs: number;
  results: TestResult[];
  warnings: string[];
  cleanup: { deleted: number; leftovers: { identifier: string; problem: string }[] };
  interrupted: boolean;
  /** True when nothing failed and the suite ran to the end. */
  ok: boolean;
}

export const DEFAULT_RUNS = 5;
export const DEFAULT_MAX_SHRINKS = 40;
export const DEFAULT_MAX_SHRINK_MS = 15_000;
/** The engine gives read (and list) a minute at most. */
const MAX_READ_MS = 60_000;
/** Longest wait for one cleanup call after an interruption. */
const CLEANUP_MS = 60_000;

class Interrupted extends Error {}
/** A file input names a resource that already exists. */
class InputTaken extends Error {}

/** Run the suite; never throws for what the provider does, only for misuse (bad options). */
export async function runContractSuite(options: SuiteOptions): Promise<SuiteReport> {
  return new SuiteRun(options).run();
}

class SuiteRun {
  private readonly type: ResourceType;
  private readonly compiled: CompiledType;
  private readonly provider: Provider;
  private readonly seed: number;
  private readonly runs: number;
  private readonly calls: Call[] = [];
  /** Every resource any test created: identifier → key model. */
  private readonly everCreated = new Map<string, Model>();
  /** Resources whose cleanup delete did not succeed: identifier → problem. */
  private readonly undeleted = new Map<string, string>();
  private deleted = 0;
  private generator: InputGenerator | undefined;
  /** Identifiers the running tests are using (created or about to be): each belongs to one run. */
  private readonly inUse = new Set<string>();

  constructor(private readonly options: SuiteOptions) {
    this.type = options.type;
    this.compiled = compileType(options.type);
    this.provider = options.provider;
    this.seed = options.seed ?? (Math.floor(Math.random() * 2 ** 31) ^ Date.now()) | 0;
    this.runs = Math.max(1, options.runs ?? DEFAULT_RUNS);
  }

  private get interrupted(): boolean {
    return this.options.signal?.aborted === true;
  }

  async run(): Promise<SuiteReport> {
    const started = performance.now();
    const startedAt = new Date().toISOString();
    const warnings: string[] = [];
    const results: TestResult[] = [];
    const fromFiles = this.options.inputs !== undefined;
    if (!fromFiles || this.type.readOnlyProperties.some((p) => this.type.primaryIdentifier.includes(p))) {
      this.generator = inputGenerator(this.type, {}, this.compiled);
      warnings.push(...this.generator.warnings);
    }
    const selected = CONTRACT_TESTS.filter((t) => !this.options.only || this.options.only.includes(t.name));
    let concurrency = Math.max(1, this.options.concurrency ?? 1);
    if (
      concurrency > 1 &&
      this.options.inputs?.some((set) => identifiersOf(this.type, set.create).length > 0)
    ) {
      concurrency = 1;
      warnings.push(
        'tests ran one at a time: the input files set identifiers, so every test would create the same resources',
      );
    }
    const sequences = this.schedule(
      selected.filter((t): t is SequenceTest => t.kind === 'sequence'),
      concurrency,
    );
    try {
      for (const test of selected) {
        // Observations judge every call the sequence tests made, so they wait for all of them.
        const result =
          test.kind === 'sequence'
            ? await sequences.get(test)!
            : (await Promise.allSettled(sequences.values()), this.judge(test, performance.now()));
        results.push(result);
        this.options.onResult?.(result);
      }
    } finally {
      await Promise.allSettled(sequences.values());
      await this.cleanupAll();
    }
    const leftovers = [...this.undeleted].map(([identifier, problem]) => ({ identifier, problem }));
    const failed = results.some((r) => r.status === 'fail' || r.status === 'error');
    return {
      typeName: this.type.typeName,
      provider: this.provider.name,
      inputs: fromFiles
        ? { source: 'files', sets: this.options.inputs!.map((s) => s.name) }
        : { source: 'generated', seed: this.seed, runs: this.runs },
      startedAt,
      durationMs: Math.round(performance.now() - started),
      results,
      warnings,
      cleanup: { deleted: this.deleted, leftovers },
      interrupted: this.interrupted,
      ok: !failed && !this.interrupted && leftovers.length === 0,
    };
  }

  // ---- Sequence tests ----------------------------------------------------------------------------

  /**
   * Start the tests, `concurrency` at most at once, in order: an exclusive test waits for every test
   * before it and the tests after it wait for it.
   */
  private schedule(
    tests: readonly SequenceTest[],
    concurrency: number,
  ): Map<SequenceTest, Promise<TestResult>> {
    const started = new Map<SequenceTest, Promise<TestResult>>();
    const slots = new Slots(concurrency);
    let barrier: Promise<unknown> = Promise.resolve();
    let since: Promise<unknown>[] = [];
    for (const test of tests) {
      let result: Promise<TestResult>;
      if (test.exclusive) {
        result = Promise.allSettled([barrier, ...since]).then(() => this.runSequence(test));
        barrier = result.catch(() => undefined);
        since = [];
      } else {
        result = barrier.then(() => slots.run(() => this.runSequence(test)));
        since.push(result.catch(() => undefined));
      }
      started.set(test, result);
    }
    return started;
  }

  private async runSequence(test: SequenceTest): Promise<TestResult> {
    const started = performance.now();
    const base = { name: test.name, clause: test.clause, failures: [] as Failure[], notes: [] as string[] };
    const done = (fields: Partial<TestResult> & { status: TestStatus; runs: number }): TestResult => ({
      ...base,
      ...fields,
      durationMs: Math.round(performance.now() - started),
    });
    if (this.interrupted) return done({ status: 'skip', reason: 'interrupted', runs: 0 });
    const skip = test.skip?.(this.type);
    if (skip) return done({ status: 'skip', reason: skip, runs: 0 });
    const notes = new Set<string>();

    if (this.options.inputs) {
      const inputs = this.fileInputs(test.input);
      if (typeof inputs === 'string') return done({ status: 'skip', reason: inputs, runs: 0 });
      let runs = 0;
      for (const input of inputs) {
        if (this.interrupted) break;
        runs++;
        let failures: Failure[];
        try {
          failures = await this.runOnce(test, input, notes);
        } catch (e) {
          if (e instanceof Interrupted) break;
          throw e;
        }
        if (failures.length > 0) return done({ status: 'fail', failures, input, runs, notes: [...notes] });
      }
      if (this.interrupted) return done({ status: 'skip', reason: 'interrupted', runs, notes: [...notes] });
      return done({ status: 'pass', runs, notes: [...notes] });
    }

    // Rules are the engine's to check: a provider on its own never sees a value that breaks one.
    if (test.input === 'invalid' && !this.options.throughApi)
      return done({
        status: 'skip',
        reason:
          'generated inputs are valid by construction; invalid ones come from inputs_N_invalid.json (--inputs), and with --api from the validation rules of the schema',
        runs: 0,
      });
    const generator = this.generator!;
    if (generator.problem) return done({ status: 'error', reason: generator.problem, runs: 0 });
    // A rule no input could be found to break is said, so a pass does not seem to cover it.
    const invalid = test.input === 'invalid';
    if (invalid) for (const rule of generator.unbrokenRules ?? []) notes.add(`not tested: ${rule}`);
    if (invalid && typeof generator.violation === 'string')
      return done({
        status: 'skip',
        reason: `generated inputs are valid by construction, and none breaks a validation rule (${generator.violation}); invalid ones come from inputs_N_invalid.json (--inputs)`,
        runs: 0,
        notes: [...notes],
      });
    const arbitrary = this.arbitraryFor(test.input, generator);
    // Each rule's own breaking input first, then random ones.
    const examples = invalid ? (generator.violationExamples ?? []).map((e) => [e] as [unknown]) : [];
    let lastFailure: { failures: Failure[]; input: unknown } | undefined;
    let shrinkBudget = this.options.maxShrinks ?? DEFAULT_MAX_SHRINKS;
    let shrinkUntil = Infinity;
    let runs = 0;
    const property = fc.asyncProperty(arbitrary, async (input) => {
      if (this.interrupted) throw new fc.PreconditionFailure(true);
      // Past the budget every further candidate "passes": fast-check keeps the smallest failure so far.
      if (lastFailure && (shrinkBudget-- <= 0 || performance.now() > shrinkUntil)) return true;
      runs++;
      let failures: Failure[];
      try {
        failures = await this.runOnce(test, input, notes);
      } catch (e) {
        if (e instanceof Interrupted) throw new fc.PreconditionFailure(true);
        throw e;
      }
      if (failures.length === 0) return true;
      if (!lastFailure) shrinkUntil = performance.now() + (this.options.maxShrinkMs ?? DEFAULT_MAX_SHRINK_MS);
      lastFailure = { failures, input };
      return false;
    });
    const details = await fc.check(property, {
      seed: testSeed(this.seed, test.name),
      numRuns: Math.max(this.runs, examples.length),
      ...(examples.length > 0 ? { examples } : {}),
      maxSkipsPerRun: 20,
    });
    if (this.interrupted) return done({ status: 'skip', reason: 'interrupted', runs, notes: [...notes] });
    if (lastFailure && details.failed) {
      return done({
        status: 'fail',
        failures: lastFailure.failures,
        input: lastFailure.input,
        runs,
        shrinks: details.numShrinks,
        notes: [...notes],
      });
    }
    if (details.failed) {
      const error = details.errorInstance as Error | null;
      const reason =
        details.numSkips > 0 && runs === 0
          ? `every generated input was set aside (${details.numSkips}): their identifiers already exist outside the suite`
          : `fast-check stopped: ${error?.message ?? 'unknown reason'}`;
      return done({ status: 'error', reason, runs, notes: [...notes] });
    }
    if (details.numSkips > 0)
      notes.add(`${details.numSkips} inputs set aside: their identifiers already existed outside the suite`);
    return done({ status: 'pass', runs, notes: [...notes] });
  }

  private arbitraryFor(kind: InputKind, generator: InputGenerator): fc.Arbitrary<unknown> {
    switch (kind) {
      case 'one':
        return generator.create;
      case 'pair':
        return generator.pair;
      case 'several':
        return generator.several;
      case 'absent':
        return generator.absent;
      case 'invalid':
        return typeof generator.violation === 'string' ? fc.constant(undefined) : generator.violation;
    }
  }

  /** The inputs a test takes from the input files, or why there are none. */
  private fileInputs(kind: InputKind): unknown[] | string {
    const sets = this.options.inputs!;
    switch (kind) {
      case 'one':
        return sets.map((s) => s.create);
      case 'pair': {
        const pairs = sets.flatMap((s) => (s.update ? [{ create: s.create, update: s.update }] : []));
        return pairs.length > 0 ? pairs : 'no inputs_N_update.json';
      }
      case 'several':
        return [sets.map((s) => s.create)];
      case 'absent': {
        const readOnlyId = this.type.primaryIdentifier.some((p) => this.type.readOnlyProperties.includes(p));
        if (!readOnlyId) return sets.map((s) => s.create);
        const generator = this.generator;
        if (!generator || generator.problem)
          return `the primary identifier is read-only and no identifier can be generated (${generator?.problem ?? 'no generator'})`;
        return fc.sample(generator.absent, { seed: this.seed, numRuns: 1 });
      }
      case 'invalid': {
        const invalid = sets.flatMap((s) =>
          s.invalid ? [{ desired: s.invalid } satisfies InvalidInput] : [],
        );
        return invalid.length > 0 ? invalid : 'no inputs_N_invalid.json';
      }
    }
  }

  /** One input through one test; every resource it created is deleted before this returns. */
  private async runOnce(test: SequenceTest, input: unknown, notes: Set<string>): Promise<Failure[]> {
    const created = new Map<string, Model>();
    const claimed = new Set<string>();
    const ctx = this.context(test.name, created, notes, claimed);
    try {
      return await test.run(ctx, cloneJson(input));
    } catch (e) {
      if (fc.PreconditionFailure.isFailure(e) || e instanceof Interrupted) throw e;
      if (e instanceof InputTaken) return [{ message: e.message }];
      return [{ message: `the test could not finish: ${(e as Error)?.stack ?? String(e)}` }];
    } finally {
      await this.cleanup(created);
      for (const id of claimed) this.inUse.delete(id);
    }
  }

  private context(
    test: string,
    created: Map<string, Model>,
    notes: Set<string>,
    claimed: Set<string>,
  ): TestContext {
    const type = this.type;
    const track = (call: Call) => this.track(call, created);
    return {
      type,
      compiled: this.compiled,
      create: (desired) => this.call(test, 'create', { desiredState: desired }, track),
      read: (key) => this.call(test, 'read', { desiredState: key }),
      update: (desired, previous) =>
        this.call(test, 'update', { desiredState: desired, previousState: previous }, track),
      delete: async (key) => {
        const call = await this.call(test, 'delete', { desiredState: key });
        if (call.final?.status === 'SUCCESS' || call.final?.errorCode === 'NotFound') {
          const id = identifierOf(type, key);
          if (id !== undefined) created.delete(id);
        }
        return call;
      },
      list: (page) => this.call(test, 'list', { desiredState: {}, ...page }),
      replay: (call) =>
        this.call(
          test,
          call.action,
          {
            desiredState: call.request.desiredState,
            ...(call.request.previousState ? { previousState: call.request.previousState } : {}),
            token: call.request.clientRequestToken,
          },
          call.action === 'create' || call.action === 'update' ? track : undefined,
        ),
      desired: (input) => this.withDefaults(input),
      updateDesired: (input, current) => {
        const desired = cloneJson(input);
        for (const pointer of [...type.readOnlyProperties, ...type.primaryIdentifier]) {
          for (const { path, value } of valuesAt(stripNulls(current), pointer)) setAt(desired, path, value);
        }
        return this.withDefaults(desired);
      },
      id: (model) => identifierOf(type, model),
      keyOf: (model) => {
        const id = identifierOf(type, model);
        return id === undefined ? undefined : identifierModel(type, id);
      },
      assumeAbsent: async (desired) => {
        this.claim(desired, claimed);
        const id = identifierOf(type, desired);
        const key = id === undefined ? undefined : identifierModel(type, id);
        if (!key) return;
        const call = await this.call(test, 'read', { desiredState: key });
        if (call.final?.status !== 'SUCCESS') return;
        if (this.options.inputs)
          throw new InputTaken(
            `a ${type.typeName} ${id} already exists outside the suite: delete it, or change the input`,
          );
        fc.pre(false);
      },
      note: (text) => notes.add(text),
      throughApi: this.options.throughApi === true,
    };
  }

  /**
   * Mark the identifiers `desired` sets (primary and additional) as this run's; an input whose
   * identifier another running test is using is set aside, as one that exists outside the suite is.
   */
  private claim(desired: Model, claimed: Set<string>): void {
    const keys = identifiersOf(this.type, desired);
    if (keys.some((k) => this.inUse.has(k) && !claimed.has(k))) fc.pre(false);
    for (const k of keys) {
      this.inUse.add(k);
      claimed.add(k);
    }
  }

  private withDefaults(input: Model): Model {
    const model = cloneJson(input);
    this.compiled.validateInput(model);
    return model;
  }

  /** Remember what a create or update may have made, so that it is deleted whatever happens. */
  private track(call: Call, created: Map<string, Model>): void {
    const succeeded = call.final?.status === 'SUCCESS';
    const uncertain = call.problem !== undefined || call.events.length > 1;
    if (!succeeded && !uncertain) return;
    const candidates: unknown[] = [
      call.final?.resourceModel,
      ...call.events.map((e) => (isModel(e) ? e.resourceModel : undefined)),
      call.request.desiredState,
    ];
    for (const candidate of candidates) {
      if (!isModel(candidate)) continue;
      const id = identifierOf(this.type, candidate);
      const key = id === undefined ? undefined : identifierModel(this.type, id);
      if (id === undefined || !key) continue;
      created.set(id, key);
      this.everCreated.set(id, key);
      break;
    }
  }

  // ---- Handler calls -----------------------------------------------------------------------------

  private deadlineMs(action: HandlerAction): number {
    let ms = (this.type.handlers[action]?.timeoutInMinutes ?? DEFAULT_TIMEOUT_MINUTES) * 60_000;
    if (action === 'read' || action === 'list') ms = Math.min(ms, MAX_READ_MS);
    if (this.options.timeoutMs !== undefined) ms = Math.min(ms, this.options.timeoutMs);
    return ms;
  }

  /**
   * Invoke a handler and follow IN_PROGRESS answers to the end. `test` undefined: a cleanup call,
   * neither recorded nor stopped by an interruption.
   */
  private async call(
    test: string | undefined,
    action: HandlerAction,
    base: {
      desiredState: Model;
      previousState?: Model;
      nextToken?: string;
      maxResults?: number;
      /** The clientRequestToken of an earlier call, to repeat it (a fresh one otherwise). */
      token?: string;
    },
    /** Told of the call before anything else happens (an interruption included). */
    done?: (call: Call) => void,
  ): Promise<Call> {
    if (test !== undefined && this.interrupted) throw new Interrupted();
    const deadlineMs =
      test === undefined ? Math.min(this.deadlineMs(action), CLEANUP_MS) : this.deadlineMs(action);
    const deadline = AbortSignal.timeout(deadlineMs);
    const signal =
      test !== undefined && this.options.signal ? AbortSignal.any([deadline, this.options.signal]) : deadline;
    const token = base.token ?? randomUUID();
    const request: RecordedRequest = {
      typeName: this.type.typeName,
      desiredState: cloneJson(base.desiredState),
      ...(base.previousState ? { previousState: cloneJson(base.previousState) } : {}),
      clientRequestToken: token,
      ...(base.nextToken === undefined ? {} : { nextToken: base.nextToken }),
      ...(base.maxResults === undefined ? {} : { maxResults: base.maxResults }),
    };
    const logs: string[] = [];
    const call: Call = { test: test ?? '(cleanup)', action, request, events: [], durationMs: 0, logs };
    const started = performance.now();
    let callbackContext: Record<string, unknown> | undefined;
    const stopped = (): Call['problem'] =>
      deadline.aborted
        ? {
            kind: 'timeout',
            message:
              call.events.length > 0
                ? `did not reach SUCCESS or FAILED within ${seconds(deadlineMs)} (${call.events.length} IN_PROGRESS answers)`
                : `did not answer within ${seconds(deadlineMs)}`,
          }
        : { kind: 'interrupted', message: 'was interrupted' };
    for (;;) {
      const handlerRequest: HandlerRequest = {
        typeName: request.typeName,
        desiredState: cloneJson(request.desiredState),
        ...(request.previousState ? { previousState: cloneJson(request.previousState) } : {}),
        ...(callbackContext ? { callbackContext: cloneJson(callbackContext) } : {}),
        clientRequestToken: token,
        ...(request.nextToken === undefined ? {} : { nextToken: request.nextToken }),
        ...(request.maxResults === undefined ? {} : { maxResults: request.maxResults }),
        ...(this.options.typeConfiguration
          ? { typeConfiguration: cloneJson(this.options.typeConfiguration) }
          : {}),
        logger: collectingLogger(logs),
        signal,
      };
      let raw: unknown;
      const limitMs = callLimitOf({ ...CALL_LIMITS, ...this.options.callLimitsMs }, action);
      const stepLimit = AbortSignal.timeout(limitMs);
      try {
        raw = await raceAbort(
          Promise.resolve().then(() =>
            this.provider[action]({ ...handlerRequest, signal: AbortSignal.any([signal, stepLimit]) }),
          ),
          AbortSignal.any([signal, stepLimit]),
        );
      } catch (e) {
        if (stepLimit.aborted && !signal.aborted) {
          call.problem = { kind: 'slow', message: tooSlow(action, limitMs) };
          break;
        }
        if (signal.aborted) {
          call.problem = stopped();
          break;
        }
        const code = (e as { code?: unknown } | null)?.code;
        if (isErrorCode(code)) {
          // A typed error thrown is as good as FAILED with its code (the engine takes it so too).
          raw = { status: 'FAILED', errorCode: code, message: (e as Error).message };
        } else {
          call.problem = {
            kind: 'threw',
            message: `threw instead of answering: ${(e as Error)?.message ?? String(e)}`,
          };
          break;
        }
      }
      call.events.push(safeClone(raw));
      const problem = eventProblem(raw);
      if (problem) {
        call.problem = { kind: 'invalid', message: `answered with an invalid event: ${problem}` };
        break;
      }
      const event = raw as HandlerEvent;
      if (event.status !== 'IN_PROGRESS' || action === 'read' || action === 'list') {
        call.final = safeClone(event);
        break;
      }
      callbackContext = event.callbackContext;
      const delayMs = Math.min(
        Math.max(0, Number(event.callbackDelaySeconds ?? 0)) * 1000,
        this.options.maxCallbackDelayMs ?? Infinity,
      );
      if (!(await sleep(delayMs, signal))) {
        call.problem = stopped();
        break;
      }
    }
    call.durationMs = Math.round(performance.now() - started);
    done?.(call);
    if (test !== undefined) this.calls.push(call);
    if (call.problem?.kind === 'interrupted' && test !== undefined) throw new Interrupted();
    return call;
  }

  // ---- Observation tests -------------------------------------------------------------------------

  private judge(test: Extract<ContractTest, { kind: 'observation' }>, started: number): TestResult {
    const base = { name: test.name, clause: test.clause, notes: [] as string[], runs: this.calls.length };
    if (this.interrupted)
      return { ...base, status: 'skip', reason: 'interrupted', failures: [], durationMs: 0 };
    if (this.calls.length === 0)
      return { ...base, status: 'skip', reason: 'no handler answers to judge', failures: [], durationMs: 0 };
    const { failures, note } = test.check(this.calls, this.compiled, {
      allowAbsent: this.options.allowAbsent ?? [],
    });
    return {
      ...base,
      status: failures.length > 0 ? 'fail' : 'pass',
      failures,
      notes: note ? [note] : [],
      durationMs: Math.round(performance.now() - started),
    };
  }

  // ---- Cleanup -----------------------------------------------------------------------------------

  /** Delete what one run created (cleanup calls are not judged). */
  private async cleanup(created: Map<string, Model>): Promise<void> {
    for (const [id, key] of created) {
      const call = await this.call(undefined, 'delete', { desiredState: key });
      if (call.final?.status === 'SUCCESS' || call.final?.errorCode === 'NotFound') {
        if (call.final.status === 'SUCCESS') this.deleted++;
        this.undeleted.delete(id);
      } else {
        this.undeleted.set(id, `delete answered ${call.problem?.message ?? call.final?.status ?? 'nothing'}`);
      }
    }
    created.clear();
  }

  /** Read every identifier the suite created; delete whatever is still there. */
  private async cleanupAll(): Promise<void> {
    for (const [id, key] of this.everCreated) {
      const read = await this.call(undefined, 'read', { desiredState: key });
      if (read.final?.status !== 'SUCCESS') {
        if (read.final?.errorCode === 'NotFound') this.undeleted.delete(id);
        continue;
      }
      const del = await this.call(undefined, 'delete', { desiredState: key });
      const again = await this.call(undefined, 'read', { desiredState: key });
      if (again.final?.errorCode === 'NotFound') {
        this.deleted++;
        this.undeleted.delete(id);
      } else {
        this.undeleted.set(
          id,
          del.final?.status === 'SUCCESS'
            ? 'delete answered SUCCESS, but the resource can still be read'
            : `delete answered ${del.problem?.message ?? del.final?.status ?? 'nothing'}`,
        );
      }
    }
  }
}

// ---- Helpers ---------------------------------------------------------------------------------------

/** At most `size` tasks at once, started in the order they asked. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/** The identifiers, primary and additional, a model sets, each as one string. */
function identifiersOf(type: ResourceType, model: Model): string[] {
  const primary = identifierOf(type, model);
  return [
    ...(primary === undefined ? [] : [`\u0000${primary}`]),
    ...additionalIdentifiersOf(type, model).map(({ name, value }) => `${name}\u0000${value}`),
  ];
}

const isModel = (v: unknown): v is Model => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why a handler's answer is not a valid progress event, or undefined. */
export function eventProblem(event: unknown): string | undefined {
  if (!isModel(event)) return `not an object but ${JSON.stringify(event) ?? String(event)}`;
  if (event.status !== 'SUCCESS' && event.status !== 'FAILED' && event.status !== 'IN_PROGRESS')
    return `status must be SUCCESS, FAILED or IN_PROGRESS, not ${JSON.stringify(event.status) ?? 'undefined'}`;
  if (event.status === 'FAILED' && !isErrorCode(event.errorCode))
    return `FAILED needs a contract errorCode, not ${JSON.stringify(event.errorCode) ?? 'undefined'}`;
  if (event.errorCode !== undefined && event.status !== 'FAILED' && !isErrorCode(event.errorCode))
    return `errorCode ${JSON.stringify(event.errorCode)} is not a contract error code`;
  if (
    event.callbackDelaySeconds !== undefined &&
    (typeof event.callbackDelaySeconds !== 'number' || !(event.callbackDelaySeconds >= 0))
  )
    return 'callbackDelaySeconds must be a non-negative number';
  if (
    event.callbackContext !== undefined &&
    event.callbackContext !== null &&
    !isModel(event.callbackContext)
  )
    return 'callbackContext must be an object';
  if (event.resourceModel !== undefined && event.resourceModel !== null && !isModel(event.resourceModel))
    return 'resourceModel must be an object';
  if (event.message !== undefined && event.message !== null && typeof event.message !== 'string')
    return 'message must be a string';
  return undefined;
}

function setAt(model: Model, path: readonly (string | number)[], value: unknown): void {
  let target: unknown = model;
  for (const [i, token] of path.entries()) {
    const last = i === path.length - 1;
    if (isModel(target) && typeof token === 'string') {
      if (last) {
        target[token] = cloneJson(value);
        return;
      }
      if (target[token] === undefined) {
        if (typeof path[i + 1] === 'number') return; // cannot make up array items
        target[token] = {};
      }
      target = target[token];
    } else if (Array.isArray(target) && typeof token === 'number' && token < target.length) {
      if (last) {
        target[token] = cloneJson(value);
        return;
      }
      target = target[token];
    } else return;
  }
}

function collectingLogger(lines: string[]): HandlerLogger {
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (lines.length >= 20) return;
      let extra: string;
      try {
        extra = fields ? ` ${JSON.stringify(fields)}` : '';
      } catch {
        extra = ' (fields not serialisable)';
      }
      lines.push(`${level} ${message}${extra}`.slice(0, 500));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A JSON copy of what a provider answered (which it might change later), or the value itself. */
function safeClone<T>(value: T): T {
  try {
    return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
  } catch {
    return value;
  }
}

/** Wait `ms`; false when the signal aborted first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return new Promise((resolve) => setImmediate(() => resolve(!signal.aborted)));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function seconds(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

/** A seed per test, so tests see different inputs while one `--seed` reproduces them all. */
export function testSeed(seed: number, name: string): number {
  let h = 0x811c9dc5;
  for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (seed ^ h) | 0;
}

export type { InputPair };

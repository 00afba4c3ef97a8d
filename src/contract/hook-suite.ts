/**
 * @module The contract suite for a hook: each handler its schema declares is invoked with target
 * inputs generated from the schemas of the types its targetNames reach (write-only values included,
 * as a hook granted them gets them), and must
 *   - answer a HookEvent (SUCCESS, or FAILED with an errorCode and a message), never throw;
 *   - answer within the hook's timeout, IN_PROGRESS callbacks included;
 *   - never carry a write-only value of the target in its message;
 *   - judge the same input the same way twice (a hook's verdict must not depend on luck).
 */
import { randomUUID } from 'node:crypto';
import type { HookAction, HookRequest, HookServer } from '../handler/index.js';
import { splitWriteOnly, type Model } from '../model/index.js';
import { invokeHook, type InvocationOutcome } from '../policy/hooks/invoke.js';
import { targetMatches } from '../policy/hooks/targets.js';
import type { HookDefinition } from '../policy/hooks/schema.js';
import type { ResourceType } from '../schema/index.js';
import { sampleInputs } from './generate.js';

export interface HookContractOptions {
  server: HookServer;
  hook: HookDefinition;
  /** The target types to generate inputs from; those the handlers' targetNames reach are used. */
  targets: readonly ResourceType[];
  /** The hook's `Properties`, as its configuration would hand them. */
  properties?: Record<string, unknown>;
  seed: number;
  runs: number;
  timeoutMs: number;
}

export interface HookContractResult {
  /** e.g. `preCreate Example::Shop::Bucket answers a HookEvent`. */
  name: string;
  passed: boolean;
  /** What failed, with the input's number; empty when passed. */
  failures: string[];
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Run every check on every handler and reached target; setup problems throw. */
export async function runHookContract(options: HookContractOptions): Promise<HookContractResult[]> {
  const { hook, server } = options;
  const results: HookContractResult[] = [];
  for (const [action, definition] of Object.entries(hook.handlers) as [
    HookAction,
    { targetNames: string[] },
  ][]) {
    const handler = server[action];
    const targets = options.targets.filter((t) =>
      definition.targetNames.some((g) => targetMatches(g, t.typeName)),
    );
    if (!handler) {
      results.push({
        name: `${action} is served`,
        passed: false,
        failures: [`the schema declares ${action}, but ${server.name} has no ${action} handler`],
      });
      continue;
    }
    if (targets.length === 0)
      throw new Error(
        `no target schema given matches ${action}'s targetNames (${definition.targetNames.join(', ')}); give one with --schema`,
      );
    for (const type of targets) {
      const inputs = sampleInputs(type, options.seed, options.runs);
      const checks = {
        answers: [] as string[],
        inTime: [] as string[],
        noSecrets: [] as string[],
        stable: [] as string[],
      };
      for (const [i, properties] of inputs.entries()) {
        const request: Omit<HookRequest, 'signal' | 'callbackContext' | 'logger'> = {
          hookTypeName: hook.typeName,
          action,
          target: {
            typeName: type.typeName,
            properties,
            ...(action === 'preUpdate' ? { previousProperties: properties } : {}),
          },
          ...(options.properties ? { hookConfiguration: options.properties } : {}),
          caller: { tokenId: 'contract-suite', role: 'writer', description: 'typeplane test' },
          clientRequestToken: randomUUID(),
        };
        const first = await invokeHook(handler, request, options.timeoutMs, quiet);
        const where = `input ${i + 1}`;
        if (first.kind === 'timeout') {
          checks.inTime.push(`${where}: no answer within ${options.timeoutMs} ms`);
          continue;
        }
        const problem = answerProblem(first);
        if (problem) {
          checks.answers.push(`${where}: ${problem}`);
          continue;
        }
        const message = first.kind === 'answer' ? first.event.message : undefined;
        const leaked = secretsOf(type, properties).find((s) => message?.includes(s));
        if (leaked !== undefined)
          checks.noSecrets.push(`${where}: the message carries the value of a write-only property`);
        const second = await invokeHook(
          handler,
          { ...request, clientRequestToken: randomUUID() },
          options.timeoutMs,
          quiet,
        );
        if (second.kind !== 'answer' || first.kind !== 'answer' || second.event.status !== first.event.status)
          checks.stable.push(
            `${where}: answered ${status(first)} once and ${status(second)} the second time`,
          );
      }
      const prefix = `${action} ${type.typeName}`;
      results.push(
        {
          name: `${prefix} answers a HookEvent`,
          passed: checks.answers.length === 0,
          failures: checks.answers,
        },
        {
          name: `${prefix} answers within the timeout`,
          passed: checks.inTime.length === 0,
          failures: checks.inTime,
        },
        {
          name: `${prefix} keeps write-only values out of its message`,
          passed: checks.noSecrets.length === 0,
          failures: checks.noSecrets,
        },
        {
          name: `${prefix} judges an input the same way twice`,
          passed: checks.stable.length === 0,
          failures: checks.stable,
        },
      );
    }
  }
  return results;
}

function answerProblem(outcome: InvocationOutcome): string | undefined {
  if (outcome.kind === 'error') return `the hook ${outcome.message}`;
  if (outcome.kind !== 'answer') return undefined;
  const { event } = outcome;
  if (event.status === 'FAILED' && event.errorCode !== 'UnsupportedTarget' && !event.message)
    return 'FAILED without a message: a refusal must say what to fix';
  if (event.message !== undefined && event.message.length > 1024)
    return `a message of ${event.message.length} characters (verdicts keep 1,024)`;
  return undefined;
}

function status(outcome: InvocationOutcome): string {
  return outcome.kind === 'answer' ? outcome.event.status : outcome.kind;
}

function secretsOf(type: ResourceType, model: Model): string[] {
  const found: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string' && value.length >= 4) found.push(value);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  for (const [, value] of splitWriteOnly(type, model).values) walk(value);
  return found;
}

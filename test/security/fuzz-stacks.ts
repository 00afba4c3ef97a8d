/**
 * Stack requests a hostile tenant sends, for the fuzz test and `bench:fuzz` (through
 * `fuzz-requests.ts`): templates whose evaluation a tenant controls, each inside the documented
 * limits. Conditions that reference resources; long chains of conditions declared last-first, with
 * many conditions leading to one that fails; one large value handed out by `Fn::Split`,
 * `Fn::Equals`, `Fn::FindInMap` or `Fn::Select` to many resources; list parameters against long
 * `AllowedValues`; costly `AllowedPattern`s; a `NoEcho` value ({@link FUZZ_NOECHO_SECRET}) flowing
 * into failing intrinsics, outputs and exports, and imported by other stacks; and the writer scoped
 * to the link type replaying the admin's stack client tokens and bodies, or reading the admin's
 * stacks.
 *
 * The invariants they serve: no answer carries the NoEcho value (every answer is searched for it),
 * the scoped writer is refused and shown nothing of the admin's stacks (its answers are searched
 * for what they hold), and after the run every stack ends its deployment and can be deleted
 * ({@link settleStacks}).
 */
import fc from 'fast-check';
import type { Template } from './fuzz-requests.js';

/** The NoEcho parameter's value: no answer of the run may carry it. */
export const FUZZ_NOECHO_SECRET = 'noechoKx7vQ2mZ9pLw';
/** In every stack the admin owns (its widgets' Color, its description): the scoped writer never sees it. */
const HIDDEN = 'hiddenmark';
/** The stacks the run deploys to, so that deployments meet, replace and import from each other. */
const STACKS = 8;
const stackName = (i: number) => `fz-s${i}`;
const exportName = (i: number) => `fz-exp-${i}`;

type Json = unknown;
type Endpoint = 'validate' | 'plan' | 'deploy';
const endpoint = fc.constantFrom<Endpoint>('validate', 'plan', 'deploy', 'deploy');

/** A widget of stack `i` (names outside the n0…n39 the other requests use). */
const widget = (type: string, i: number, logicalId: string, properties: Record<string, Json> = {}) => ({
  Type: type,
  Properties: { Name: `fz${i}-${logicalId.toLowerCase()}`, Color: `${HIDDEN}${i}`, ...properties },
});

/** A string value of `length` characters with no comma or dash, unlike any other value of the run. */
const filler = (length: number, unit = 'ab') => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** The request that sends `template` (with `parameters`) to `where`, for stack `i`. */
function stackRequest(
  kind: string,
  where: Endpoint,
  i: number,
  template: Record<string, Json>,
  parameters?: Record<string, Json>,
): Template {
  const body = {
    template: JSON.stringify({ Description: `fuzz stack ${i} ${HIDDEN}`, ...template }),
    ...(parameters ? { parameters } : {}),
  };
  if (where === 'validate')
    return {
      kind,
      method: 'POST',
      segments: ['v1', 'stacks', 'validate'],
      query: [],
      body,
      expect: [200, 400, 413],
    };
  if (where === 'plan')
    return {
      kind,
      method: 'POST',
      segments: ['v1', 'stacks', stackName(i), 'plans'],
      query: [],
      body,
      expect: [201, 400, 404, 409, 413],
    };
  return {
    kind,
    method: 'PUT',
    segments: ['v1', 'stacks', stackName(i)],
    query: [],
    body,
    expect: [202, 400, 409, 413],
  };
}

const stackIndex = fc.nat({ max: STACKS - 1 });
/** A size: mostly small, now and then large. */
const size = (small: number, large: number, huge: number) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 1, max: small }) },
    { weight: 3, arbitrary: fc.integer({ min: small, max: large }) },
    { weight: 1, arbitrary: fc.integer({ min: large, max: huge }) },
  );
/** How many resources a template hands a value to: few in a deployment, more in a plan or a validation. */
const fanCount = (where: Endpoint) =>
  where === 'deploy' ? fc.integer({ min: 1, max: 8 }) : size(20, 200, 600);

/** A condition that references a resource (through `Ref` or `GetAtt`, maybe nested). */
const conditionsOverResources = (type: string) =>
  fc
    .tuple(endpoint, stackIndex, fc.constantFrom('ref', 'getatt', 'nested', 'output'))
    .map(([where, i, how]) => {
      const reference = how === 'getatt' ? { 'Fn::GetAtt': ['W', 'Color'] } : { Ref: 'W' };
      const condition =
        how === 'nested'
          ? { 'Fn::And': [{ 'Fn::Not': [{ 'Fn::Equals': [reference, 'x'] }] }, { 'Fn::Equals': ['a', 'a'] }] }
          : { 'Fn::Equals': [reference, `fz${i}-w`] };
      return stackRequest('stack-cond-resource', where, i, {
        Conditions: { C: condition },
        Resources: {
          W: widget(type, i, 'W'),
          V: { ...widget(type, i, 'V'), Condition: 'C' },
        },
        ...(how === 'output' ? { Outputs: { O: { Condition: 'C', Value: { Ref: 'V' } } } } : {}),
      });
    });

/**
 * A chain of conditions declared last-first (each names the next), ending in one that holds or one
 * that fails to evaluate; then, maybe, many more conditions that each lead into the chain.
 */
const conditionChains = (type: string) =>
  fc
    .tuple(endpoint, stackIndex, size(50, 600, 2500), size(10, 500, 3000), fc.boolean())
    .map(([where, i, links, fanIn, failing]) => {
      const conditions: Record<string, Json> = {};
      for (let n = fanIn - 1; n >= 0; n--) conditions[`D${n}`] = { Condition: 'C0' };
      for (let n = links - 1; n >= 0; n--)
        conditions[`C${n}`] =
          n < links - 1
            ? { Condition: `C${n + 1}` }
            : failing
              ? { 'Fn::Equals': [{ 'Fn::Select': [3, ['a']] }, 'a'] }
              : { 'Fn::Equals': ['a', 'a'] };
      return stackRequest('stack-cond-chain', where, i, {
        Conditions: conditions,
        Resources: { W: { ...widget(type, i, 'W'), Condition: fanIn > 0 ? `D${fanIn - 1}` : 'C0' } },
      });
    });

/** One large value handed to many resources, or compared, by each of the four intrinsics. */
const fanOut = (type: string) =>
  fc
    .tuple(
      endpoint,
      stackIndex,
      fc.constantFrom('split', 'equals', 'findinmap', 'select'),
      size(2000, 100_000, 400_000),
    )
    .chain(([where, i, how, length]) =>
      fanCount(where).map((count) => {
        const big = filler(length);
        const resources: Record<string, Json> = {};
        const conditions: Record<string, Json> = {};
        for (let n = 0; n < count; n++) {
          const value =
            how === 'split'
              ? { 'Fn::Select': [0, { 'Fn::Split': [',', { Ref: 'Big' }] }] }
              : how === 'findinmap'
                ? { 'Fn::FindInMap': ['M', 'k', 'v'] }
                : how === 'select'
                  ? { 'Fn::Select': [0, { Ref: 'BigList' }] }
                  : 'same';
          if (how === 'equals') conditions[`E${n}`] = { 'Fn::Equals': [{ Ref: 'Big' }, { Ref: 'Big' }] };
          resources[`R${n}`] = {
            ...widget(type, i, `R${n}`, { Nested: { Inner: { Deep: value } } }),
            ...(how === 'equals' ? { Condition: `E${n}` } : {}),
          };
        }
        return stackRequest('stack-fanout', where, i, {
          Parameters: {
            Big: { Type: 'String', Default: how === 'split' ? filler(length, 'a,') : big },
            BigList: { Type: 'CommaDelimitedList', Default: big },
          },
          ...(how === 'findinmap' ? { Mappings: { M: { k: { v: big } } } } : {}),
          ...(how === 'equals' ? { Conditions: conditions } : {}),
          Resources: resources,
        });
      }),
    );

/** A list parameter of many items, each checked against a long AllowedValues; the last maybe not in it. */
const listAgainstAllowedValues = (type: string) =>
  fc
    .tuple(endpoint, stackIndex, size(100, 5000, 20_000), size(100, 5000, 20_000), fc.boolean())
    .map(([where, i, allowed, items, valid]) => {
      const values = Array.from({ length: allowed }, (_, n) => `v${n}`);
      const list = Array.from({ length: items }, (_, n) => values[(n * 7919) % allowed]!);
      if (!valid) list.push('not-allowed');
      return stackRequest(
        'stack-allowed-values',
        where,
        i,
        {
          Parameters: { L: { Type: 'CommaDelimitedList', AllowedValues: values } },
          Resources: {
            W: widget(type, i, 'W', { Nested: { Inner: { Deep: { 'Fn::Select': [0, { Ref: 'L' }] } } } }),
          },
        },
        { L: list.join(',') },
      );
    });

/** Patterns whose program is large, or whose match costs instructions × characters, and long values. */
const costlyPatterns = (type: string) =>
  fc
    .tuple(
      endpoint,
      stackIndex,
      fc.constantFrom('repeat', 'alternation', 'bounded', 'nested'),
      size(100, 1000, 4000),
      size(1000, 12_000, 60_000),
    )
    .map(([where, i, shape, n, length]) => {
      const pattern =
        shape === 'repeat'
          ? `^(?:[01]{${Math.min(n, 1000)}})*2$`
          : shape === 'alternation'
            ? `^(?:${Array.from({ length: Math.ceil(n / 4) }, (_, k) => k.toString(36).padStart(3, 'a')).join('|')})+$`
            : shape === 'bounded'
              ? `^[a-z]{0,${Math.min(n, 1000)}}x$`
              : `^(?:(?:a|b)*c){1,${Math.min(n, 1000)}}$`;
      const value = shape === 'repeat' ? `${'01'.repeat(length / 2)}3` : `${filler(length)}y`;
      return stackRequest(
        'stack-allowed-pattern',
        where,
        i,
        {
          Parameters: { P: { Type: 'String', AllowedPattern: pattern } },
          Resources: { W: widget(type, i, 'W', { Nested: { Inner: { Deep: { Ref: 'P' } } } }) },
        },
        { P: value },
      );
    });

/** The NoEcho value joined to a value known only once resource A exists: what fails with it fails at deploy time. */
const lateSecret = { 'Fn::Join': ['-', [{ Ref: 'Secret' }, { 'Fn::GetAtt': ['A', 'Color'] }]] };

/**
 * Where a NoEcho value goes: intrinsics that fail on it at validation or at deploy time (quoting
 * their operands), and a write-only property (half the time, so that exports of it exist).
 */
const secretUses: Json[] = [
  { Ref: 'Secret' },
  { Ref: 'Secret' },
  { Ref: 'Secret' },
  { 'Fn::Select': [7, { 'Fn::Split': ['-', lateSecret] }] },
  { 'Fn::FindInMap': ['M', lateSecret, 'x'] },
  { 'Fn::ImportValue': lateSecret },
  { 'Fn::Select': [lateSecret, ['a']] },
  { Ref: 'Secret' },
  { 'Fn::Select': [7, [{ Ref: 'Secret' }]] },
  { 'Fn::Select': [7, { 'Fn::Split': ['-', { Ref: 'Secret' }] }] },
  { 'Fn::FindInMap': ['M', { Ref: 'Secret' }, 'x'] },
  { 'Fn::FindInMap': ['M', 'a', { Ref: 'Secret' }] },
  { 'Fn::ImportValue': { Ref: 'Secret' } },
  { 'Fn::Select': [{ Ref: 'Secret' }, ['a']] },
  { 'Fn::Join': ['', [{ Ref: 'Secret' }, { 'Fn::Select': [3, ['a']] }]] },
];

/** A NoEcho value in failing intrinsics, a failing condition, an output and an export. */
const noEchoFlows = (type: string) =>
  fc
    .tuple(endpoint, stackIndex, fc.constantFrom(...secretUses.keys()), fc.boolean(), fc.boolean())
    .map(([where, i, use, exported, inCondition]) =>
      stackRequest(
        'stack-noecho',
        where,
        i,
        {
          Parameters: { Secret: { Type: 'String', NoEcho: true, MinLength: 4 } },
          Mappings: { M: { a: { x: 'y' } } },
          ...(inCondition ? { Conditions: { C: { 'Fn::Equals': [secretUses[use], 'x'] } } } : {}),
          Resources: {
            A: widget(type, i, 'A'),
            W: {
              ...widget(type, i, 'W', { Secret: secretUses[use] }),
              ...(inCondition ? { Condition: 'C' } : {}),
            },
          },
          Outputs: {
            O: {
              Value: { 'Fn::Join': ['-', ['x', { Ref: 'Secret' }]] },
              ...(exported ? { Export: { Name: exportName(i) } } : {}),
            },
          },
        },
        { Secret: FUZZ_NOECHO_SECRET },
      ),
    );

/** A stack importing another's export (maybe built from a NoEcho value) into its outputs and a write-only property. */
const imports = (type: string) =>
  fc.tuple(endpoint, stackIndex, stackIndex, fc.boolean()).map(([where, i, from, failing]) =>
    stackRequest('stack-import', where, i, {
      Resources: {
        W: widget(type, i, 'W', {
          Secret: failing
            ? { 'Fn::Select': [9, [{ 'Fn::ImportValue': exportName(from) }]] }
            : { 'Fn::ImportValue': exportName(from) },
        }),
      },
      Outputs: { I: { Value: { 'Fn::ImportValue': exportName(from) } } },
    }),
  );

/** The admin's own deployment of stack `i`: the same body under the same client token every time. */
function ownedStack(type: string, i: number): { template: string; clientToken: string } {
  return {
    template: JSON.stringify({
      Description: `fuzz stack ${i} ${HIDDEN}`,
      Resources: { A: widget(type, i, 'A'), B: widget(type, i, 'B', { Count: i }) },
      Outputs: { Color: { Value: { 'Fn::GetAtt': ['A', 'Color'] } } },
    }),
    clientToken: `fz-tok-${i}`,
  };
}

/**
 * The admin deploying its own stack under a client token, and the writer scoped to the link type
 * sending the same name, body and token: it must be refused (403), not handed the admin's deployment.
 */
const clientTokenReplays = (type: string) =>
  fc.tuple(stackIndex, fc.boolean()).map<Template>(([i, replay]) =>
    replay
      ? {
          kind: 'stack-token-replay',
          method: 'PUT',
          segments: ['v1', 'stacks', stackName(i)],
          query: [],
          body: ownedStack(type, i),
          scoped: 0,
          expect: [403],
        }
      : {
          kind: 'stack-owned',
          method: 'PUT',
          segments: ['v1', 'stacks', stackName(i)],
          query: [],
          body: ownedStack(type, i),
          expect: [202, 400, 409],
        },
  );

/** Reads of the stacks: the admin's (searched for the NoEcho value), and the scoped writer's (shown nothing). */
const stackReads = fc
  .tuple(stackIndex, fc.constantFrom('', 'events', 'outputs', 'drift', 'list'), fc.boolean())
  .map<Template>(([i, what, scoped]) => {
    const segments =
      what === 'list' ? ['v1', 'stacks'] : ['v1', 'stacks', stackName(i), ...(what === '' ? [] : [what])];
    if (!scoped) return { kind: 'stack-read', method: 'GET', segments, query: [] };
    return {
      kind: 'stack-read-scoped',
      method: 'GET',
      segments,
      query: [],
      scoped: 0,
      // The stack's own name is in the path asked; the listing names nothing the token cannot reach.
      forbidden: [HIDDEN, `fz${i}-`, ...(what === 'list' ? ['fz-s'] : [])],
      ...(what === '' ? { expect: [403, 404] } : {}),
    };
  });

const stackDeletes = stackIndex.map<Template>((i) => ({
  kind: 'stack-delete',
  method: 'DELETE',
  segments: ['v1', 'stacks', stackName(i)],
  query: [],
  expect: [202, 404, 409],
}));

/** Every stack request the run sends, over stacks of widgets of `type`. */
export function stackRequests(type: string): fc.Arbitrary<Template> {
  return fc.oneof(
    { weight: 2, arbitrary: conditionsOverResources(type) },
    { weight: 2, arbitrary: conditionChains(type) },
    { weight: 3, arbitrary: fanOut(type) },
    { weight: 2, arbitrary: listAgainstAllowedValues(type) },
    { weight: 2, arbitrary: costlyPatterns(type) },
    { weight: 3, arbitrary: noEchoFlows(type) },
    { weight: 2, arbitrary: imports(type) },
    { weight: 3, arbitrary: clientTokenReplays(type) },
    { weight: 3, arbitrary: stackReads },
    { weight: 1, arbitrary: stackDeletes },
  );
}

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/**
 * After a run: every stack's deployment ends (none stays `*_IN_PROGRESS` past `timeoutMs`), and
 * every stack can then be deleted (importers first: a stack whose export is imported waits for its
 * importer). Returns what did not hold, as sentences.
 */
export async function settleStacks(call: Call, timeoutMs = 30_000): Promise<string[]> {
  const until = Date.now() + timeoutMs;
  const problems: string[] = [];
  const stacks = async () => {
    const all: { stackName: string; status: string }[] = [];
    let nextToken: string | undefined;
    do {
      const page = await call(
        'GET',
        `/v1/stacks?maxResults=100${nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : ''}`,
      );
      if (page.status !== 200)
        throw new Error(`listing stacks answered ${page.status}: ${JSON.stringify(page.body)}`);
      all.push(...page.body.stacks);
      nextToken = page.body.nextToken ?? undefined;
    } while (nextToken);
    return all;
  };
  for (;;) {
    const busy = (await stacks()).filter((s) => s.status.endsWith('_IN_PROGRESS'));
    if (busy.length === 0) break;
    if (Date.now() > until) {
      for (const s of busy) {
        const view = await call('GET', `/v1/stacks/${encodeURIComponent(s.stackName)}`);
        problems.push(
          `stack ${s.stackName} is still ${s.status} ${Math.round(timeoutMs / 1000)} s after the run: ${JSON.stringify(view.body).slice(0, 300)}`,
        );
      }
      return problems;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // Each pass deletes what nothing imports any more.
  for (let pass = 0; pass < STACKS + 1; pass++) {
    const left = await stacks();
    if (left.length === 0) return problems;
    for (const s of left) {
      const res = await call('DELETE', `/v1/stacks/${encodeURIComponent(s.stackName)}?wait=20`);
      if (![202, 404, 409].includes(res.status))
        problems.push(
          `deleting stack ${s.stackName} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`,
        );
    }
  }
  for (const s of await stacks())
    problems.push(`stack ${s.stackName} could not be deleted (status ${s.status})`);
  return problems;
}

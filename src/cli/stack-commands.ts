/**
 * @module `typeplane stack …`: templates deployed as a unit through a running server — validate, plan,
 * deploy, apply a plan, show, list, events, outputs, drift, delete. `deploy`, `apply` and `delete`
 * wait and show each resource's progress, exiting 1 when the stack failed or rolled back.
 */
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { ApiError, columns, render, truncate, type Client } from './client.js';
import { action, clientFor, common, examples, type Common } from './api-commands.js';
import { FILES, readLocal } from './local-files.js';
import { templateWithNested } from './nested-templates.js';
import { notPlannedLines, withNestedChanges } from './nested-plan.js';
import { stackProgress, type StackEventView, type StackProgress } from './stack-progress.js';
import { followStackEvents } from './stack-follow.js';
import { yaml } from './yaml.js';
import { aroundDifference } from './output.js';
import { EXIT } from './usage.js';

interface StackView {
  stackName: string;
  stackId: string;
  status: string;
  statusReason?: string;
  deploymentId?: string;
  parameters: Record<string, unknown>;
  outputs: { name: string; value: unknown; description?: string; exportName?: string }[];
  resources: { logicalId: string; type: string; identifier?: string; status: string }[];
}

interface Started {
  deploymentId: string;
  startedAt: string;
  stack: StackView;
}

export interface PlannedChange {
  logicalId: string;
  /** Absent where the caller may not see the resource's type. */
  type?: string;
  action: string;
  identifier?: string;
  patch?: { op: string; path: string; value?: unknown }[];
  /** The value each replaced or removed path holds now. */
  before?: Record<string, unknown>;
  replacement?: { properties: string[]; deleteFirst: boolean };
  retain?: boolean;
  /** Import: where the resource read differs from the template. */
  differences?: { path: string; kind: string }[];
  /** What rules, admission policies and hooks say of it at plan time. */
  verdicts?: { source: string; name: string; action: string; message: string }[];
  /** Not judged at plan time, but when it is made: why. */
  notJudged?: { message: string };
  /** A nested stack's own changes, or why they are planned only when it is deployed. */
  nested?: { stackName?: string; changes: PlannedChange[] } | { notPlanned: string };
}

/** The Examples that end each subcommand's help. */
const EXAMPLES: Record<string, string[]> = {
  validate: [
    'typeplane stack validate examples/stacks/app.template --parameters DatabasePassword=correct-horse-battery',
    'typeplane stack validate app.template --parameters-file params.yaml -o json',
  ],
  plan: [
    'typeplane stack plan orders examples/stacks/app.template --parameters DatabasePassword=correct-horse-battery',
    'typeplane stack plan orders app.template --parameters-file params.yaml -o yaml',
    'typeplane stack plan legacy legacy.yaml --import to-import.json   # Import: existing resources brought in',
  ],
  deploy: [
    'typeplane stack deploy orders examples/stacks/app.template --parameters DatabasePassword=correct-horse-battery',
    'typeplane stack deploy orders app.template --parameters-file params.yaml --no-wait',
    'typeplane stack deploy orders app.template --parameters-file params.yaml --no-rollback',
    'typeplane stack deploy legacy legacy.yaml --import to-import.json',
  ],
  apply: ['typeplane stack apply orders 7c1e…   # the plan id that stack plan printed'],
  generate: [
    "typeplane stack generate --types 'Typeplane::*' --import-file to-import.json > template.yaml",
    'typeplane stack validate template.yaml && typeplane stack deploy adopted template.yaml --import to-import.json',
  ],
  show: ['typeplane stack show orders', 'typeplane stack show orders -o yaml'],
  list: ['typeplane stack list', 'typeplane stack list -o json', 'typeplane stack list --deleted'],
  events: [
    'typeplane stack events orders',
    'typeplane stack events orders --follow',
    'typeplane stack events orders --stack-id typeplane:stack/orders/0b7c…  # a deleted one',
  ],
  outputs: ['typeplane stack outputs orders', 'typeplane stack outputs orders -o json'],
  drift: ['typeplane stack drift orders', 'typeplane stack drift orders -o json'],
  delete: ['typeplane stack delete orders', 'typeplane stack delete orders --no-wait'],
};

const enc = encodeURIComponent;
const POLL_MS = 300;
const SUCCEEDED = new Set(['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'DELETE_COMPLETE']);
const ENDED = /(_COMPLETE|_FAILED)$/;

export type WithParameters = Common & { parameters?: string[]; parametersFile?: string };
type Waiting = Common & { wait: boolean; rollback?: boolean; clientToken?: string };

/**
 * `--parameters-file` (a mapping of names to values, or CloudFormation's list of ParameterKey and
 * ParameterValue, JSON or YAML: secrets stay out of the shell's history and the process list), then
 * `--parameters K=V …` over it. A malformed one is a usage error naming the flag.
 */
const IMPORT_HELP =
  'import these existing resources instead of creating them: a JSON or YAML list of {LogicalResourceId, ResourceType, ResourceIdentifier} (as aws cloudformation --resources-to-import); nothing else may change';

type Importing = { import?: string };

/** `--import <file>` read: the request's `resourcesToImport` (the server checks each member). */
function resourcesToImportOf(options: Importing, command: Command): { resourcesToImport?: unknown } {
  if (options.import === undefined) return {};
  let parsed: unknown;
  try {
    parsed = yaml().parse(readLocal(options.import, FILES.document));
  } catch (e) {
    command.error(`error: --import: ${(e as Error).message.split('\n')[0]!}`, {
      exitCode: 2,
      code: 'typeplane.usage',
    });
  }
  return { resourcesToImport: parsed };
}

export async function parametersOf(
  options: WithParameters,
  command: Command,
): Promise<Record<string, unknown>> {
  const usage = (flag: string, message: string): never =>
    command.error(`error: ${flag}: ${message}`, { exitCode: 2, code: 'typeplane.usage' });
  let fromFile: Record<string, unknown> = {};
  if (options.parametersFile !== undefined) {
    let parsed: unknown;
    try {
      parsed = yaml().parse(readLocal(options.parametersFile, FILES.parameters));
    } catch (e) {
      usage('--parameters-file', (e as Error).message.split('\n')[0]!);
    }
    fromFile = parameterMap(parsed) ?? usage('--parameters-file', PARAMETERS_FILE_SHAPE);
  }
  // The stacks module loads only for a command that takes parameters, not for `typeplane --help`.
  const { parseParameterPairs } = await import('../stacks/index.js');
  try {
    return { ...fromFile, ...parseParameterPairs(options.parameters ?? []) };
  } catch (e) {
    return usage('--parameters', (e as Error).message);
  }
}

const PARAMETERS_FILE_SHAPE =
  'must map parameter names to values ({ Name: value }) or list them as [{ ParameterKey, ParameterValue }]';

function parameterMap(value: unknown): Record<string, unknown> | undefined {
  const plain = (v: unknown) =>
    ['string', 'number', 'boolean'].includes(typeof v) ||
    (Array.isArray(v) && v.every((x) => ['string', 'number'].includes(typeof x)));
  if (Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const item of value) {
      const p = item as { ParameterKey?: unknown; ParameterValue?: unknown } | null;
      if (typeof p?.ParameterKey !== 'string' || !plain(p.ParameterValue)) return undefined;
      out[p.ParameterKey] = p.ParameterValue;
    }
    return out;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  return Object.values(value).every(plain) ? (value as Record<string, unknown>) : undefined;
}

/** A template diagnostic as the server answers it. */
export interface Located {
  severity: string;
  rule: string;
  message: string;
  line?: number;
  column?: number;
}

/** `file:line:col severity rule message`, as compilers print a diagnostic. */
export function locatedLine(d: Located & { file: string }): string {
  return `${d.file}:${d.line ?? 1}:${d.column ?? 1} ${d.severity} ${d.rule} ${d.message}`;
}

/** The server knows the template as text; the user knows it by its file name. */
function locate<T>(file: string, promise: Promise<T>): Promise<T> {
  return promise.catch((e: unknown) => {
    if (e instanceof ApiError)
      for (const d of e.details) if (d && typeof d === 'object' && 'rule' in d) Object.assign(d, { file });
    throw e;
  });
}

export function parametersOption(command: Command): Command {
  return command
    .option('--parameters <pairs...>', 'parameter values, Name=Value (NoEcho values are never shown)')
    .option(
      '--parameters-file <file>',
      "parameter values from a JSON or YAML file ({ Name: value }, or CloudFormation's [{ ParameterKey, ParameterValue }])",
    );
}

function waitingOptions(command: Command): Command {
  return command.option('--no-wait', 'return at once, without following the deployment');
}

function stackTable(view: StackView): string {
  const head = [
    `stack      ${view.stackName}`,
    `status     ${view.status}${view.statusReason ? ` (${view.statusReason})` : ''}`,
    `stack id   ${view.stackId}`,
  ];
  const resources = columns(
    ['LOGICAL ID', 'TYPE', 'IDENTIFIER', 'STATUS'],
    view.resources.map((r) => [r.logicalId, r.type, r.identifier ?? '-', r.status]),
  );
  const parts = [head.join('\n'), resources];
  if (view.outputs.length > 0) parts.push(outputsTable(view.outputs));
  return parts.join('\n\n');
}

function outputsTable(outputs: StackView['outputs']): string {
  return columns(
    ['OUTPUT', 'VALUE', 'EXPORT', 'DESCRIPTION'],
    outputs.map((o) => [
      o.name,
      typeof o.value === 'string' ? o.value : JSON.stringify(o.value),
      o.exportName ?? '',
      o.description ?? '',
    ]),
  );
}

function planTable(
  plan: {
    planId: string;
    current?: boolean;
    changes: PlannedChange[];
    resolvedParameters?: { parameter: string; name: string; value?: string }[];
  },
  name: string,
): string {
  const resolved = (plan.resolvedParameters ?? []).map((p) =>
    p.value === undefined
      ? `  ${p.parameter}: SSM parameter ${p.name} (exists)`
      : `  ${p.parameter} = ${p.value}  (from SSM parameter ${p.name})`,
  );
  return [
    changesTable(withNestedChanges(plan.changes)),
    ...notPlannedLines(plan.changes),
    ...(resolved.length > 0 ? ['', 'Parameters read from the parameter store:', ...resolved] : []),
    ...reviewLines(plan.changes),
    '',
    `plan ${plan.planId}; apply it with: typeplane stack apply ${name} ${plan.planId}`,
  ].join('\n');
}

/** What the plan's review said of each change, and which changes it could not judge yet. */
function reviewLines(changes: PlannedChange[]): string[] {
  const judged = changes.flatMap((c) =>
    (c.verdicts ?? []).map((v) => `  ${c.logicalId}: ${v.action} by ${v.source} ${v.name}: ${v.message}`),
  );
  const notJudged = changes
    .filter((c) => c.notJudged)
    .map((c) => `  ${c.logicalId}: ${c.notJudged!.message}`);
  return [
    ...(judged.length > 0 ? ['', 'Verdicts:', ...judged] : []),
    ...(notJudged.length > 0 ? ['', 'Judged when made, not in this plan:', ...notJudged] : []),
  ];
}

/** Planned changes: one row each, then what each in-place change does to which property. */
export function changesTable(changes: PlannedChange[]): string {
  const detail = (c: PlannedChange) => {
    if (c.action === 'Replace' && c.replacement)
      return `${c.replacement.properties.join(', ')} cannot change in place${c.replacement.deleteFirst ? '; the old one is deleted first' : ''}`;
    if (c.action === 'Modify')
      return truncate((c.patch ?? []).map((op) => propertyPath(op.path)).join(', '), 100);
    if (c.action === 'Remove' && c.retain) return 'Retain: kept, leaves the stack';
    if (c.action === 'Import')
      return truncate(
        `${c.identifier ?? ''}, created by nothing${c.differences?.length ? `; differs from the template at ${c.differences.map((d) => propertyPath(d.path)).join(', ')}` : ''}`,
        100,
      );
    return '';
  };
  const modified = changes.filter((c) => c.action === 'Modify' && c.patch);
  return [
    columns(
      ['ACTION', 'LOGICAL ID', 'TYPE', 'DETAIL'],
      changes.map((c) => [c.action, c.logicalId, c.type ?? '-', detail(c)]),
    ),
    ...modified.map((c) =>
      [
        '',
        `${c.logicalId} (${c.type}${c.identifier ? ` ${c.identifier}` : ''}) changes in place:`,
        ...columns(
          ['PROPERTY', 'BEFORE → AFTER'],
          c.patch!.map((op) => [propertyPath(op.path), beforeAfter(c.before?.[op.path], op)]),
        )
          .split('\n')
          .slice(1)
          .map((line) => `  ${line}`),
      ].join('\n'),
    ),
  ].join('\n');
}

/** A JSON Pointer into a resource's properties as a person writes it: `/Endpoint/Host` is Endpoint.Host, `/Tags/0` Tags[0]. */
function propertyPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (path, token) =>
        /^(0|[1-9]\d*)$/.test(token) ? `${path}[${token}]` : path ? `${path}.${token}` : token,
      '',
    );
}

/** One patch operation as `before → after`, each shortened around where they differ; `(none)` where there is no value. */
function beforeAfter(before: unknown, op: { op: string; value?: unknown }): string {
  const text = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));
  const [was, will] = aroundDifference(text(before), text(op.op === 'remove' ? undefined : op.value));
  return `${was} → ${will}`;
}

/** A drift answer's resources, a row per difference (one for a resource in sync). */
export interface DriftedResource {
  logicalId: string;
  /** Absent where the caller may not see the resource's type. */
  type?: string;
  status: string;
  differences: { path: string; expected?: unknown; actual?: unknown; kind: string }[];
}

export function driftTable(resources: DriftedResource[]): string {
  return columns(
    ['LOGICAL ID', 'TYPE', 'DRIFT', 'PATH', 'EXPECTED → ACTUAL'],
    resources.flatMap((r) =>
      r.differences.length === 0
        ? [[r.logicalId, r.type ?? '-', r.status, '', '']]
        : r.differences.map((d) => [r.logicalId, r.type ?? '-', r.status, d.path, change(d)]),
    ),
  );
}

/** A drifted value as `expected → actual`, each shortened around where they differ ('-' for none). */
function change(d: { expected?: unknown; actual?: unknown }): string {
  const text = (v: unknown) => (v === undefined ? '-' : JSON.stringify(v));
  const [expected, actual] = aroundDifference(text(d.expected), text(d.actual));
  return `${expected} → ${actual}`;
}

/**
 * Every event of the stack after `after` (an event id or a time in ms), page by page: once it is
 * deleted, the events it was kept with (`stackId`: a deleted stack of that name).
 */
async function eventsAfter(
  client: Client,
  name: string,
  after: string,
  stackId?: string,
): Promise<StackEventView[]> {
  const out: StackEventView[] = [];
  let nextToken: string | null = null;
  do {
    const query = new URLSearchParams({ maxResults: '1000', after, ...(stackId ? { stackId } : {}) });
    if (nextToken) query.set('nextToken', nextToken);
    const page: { events: StackEventView[]; nextToken: string | null } = await client.call(
      'GET',
      `/v1/stacks/${enc(name)}/events?${query}`,
    );
    out.push(...page.events);
    nextToken = page.nextToken;
  } while (nextToken);
  return out;
}

/**
 * Follow a deployment until it ends: its events as progress on stderr, then the stack as it ended
 * (undefined once a deletion removed it). Events are re-read from a little before the last one seen,
 * so one written a moment late by a parallel step is not missed.
 */
async function follow(
  client: Client,
  name: string,
  started: Started,
  progress: StackProgress = stackProgress(process.stderr),
): Promise<StackView | undefined> {
  let since = Date.parse(started.startedAt) - 1;
  for (;;) {
    let view: StackView | undefined;
    try {
      view = await client.call<StackView>('GET', `/v1/stacks/${enc(name)}`);
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404)) throw e;
    }
    const events = await eventsAfter(client, name, String(since)).catch((e: unknown) => {
      if (e instanceof ApiError && e.status === 404) return [];
      throw e;
    });
    progress.add(events);
    const last = events.at(-1);
    if (last) since = Math.max(since, Date.parse(last.time) - 2000);
    if (!view) return undefined;
    if (view.deploymentId !== started.deploymentId && ENDED.test(view.status)) return view;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Print the started deployment, follow it unless --no-wait, and say how it ended. */
async function finish(client: Client, name: string, started: Started, options: Waiting): Promise<number> {
  if (!options.wait) {
    process.stdout.write(
      render({ deploymentId: started.deploymentId, stack: started.stack }, options.output, () =>
        [
          `${started.stack.status}: deployment ${started.deploymentId} of stack ${name} started`,
          `follow it with: typeplane stack events ${name} --follow`,
        ].join('\n'),
      ) + '\n',
    );
    return 0;
  }
  const ended = await follow(client, name, started);
  if (!ended) {
    const gone = { stackName: name, status: 'DELETE_COMPLETE' };
    process.stdout.write(render(gone, options.output, () => `stack ${name}: DELETE_COMPLETE`) + '\n');
    return 0;
  }
  process.stdout.write(render(ended, options.output, () => stackTable(ended)) + '\n');
  if (SUCCEEDED.has(ended.status)) return 0;
  process.stderr.write(
    `error: stack ${name} ended ${ended.status}${ended.statusReason ? `: ${ended.statusReason}` : ''}\n`,
  );
  return 1;
}

export function registerStackCommands(program: Command): void {
  const stack = program
    .command('stack')
    .description('deploy many resources from one template (CloudFormation format) as a unit');

  parametersOption(
    common(
      stack
        .command('validate')
        .argument('<template>', 'template file (JSON or YAML)')
        .description('check a template against the registered types: every problem, located'),
    ),
  ).action(
    action(async (file: string, options: WithParameters, command: Command) => {
      // Without --parameters or --parameters-file the server warns of missing values, with them it refuses.
      const given = options.parameters !== undefined || options.parametersFile !== undefined;
      const parameters = given ? await parametersOf(options, command) : undefined;
      const out = await clientFor(options).call<{
        valid: boolean;
        diagnostics: { severity: string; rule: string; message: string; line?: number; column?: number }[];
        types: string[];
      }>('POST', '/v1/stacks/validate', { ...templateWithNested(file), parameters });
      const located = { ...out, diagnostics: out.diagnostics.map((d) => ({ file, ...d })) };
      process.stdout.write(
        render(located, options.output, () =>
          [
            ...located.diagnostics.map(locatedLine),
            out.valid ? `${file}: valid (types: ${out.types.join(', ') || 'none'})` : `${file}: invalid`,
          ].join('\n'),
        ) + '\n',
      );
      return out.valid ? 0 : 1;
    }),
  );

  parametersOption(
    common(
      stack
        .command('plan')
        .argument('<name>', 'stack name')
        .argument('<template>', 'template file (JSON or YAML)')
        .description('what a deployment would change, per resource; stored, to apply by its id')
        .option('--import <file>', IMPORT_HELP),
    ),
  ).action(
    action(async (name: string, file: string, options: WithParameters & Importing, command: Command) => {
      const parameters = await parametersOf(options, command);
      const answer = await locate(
        file,
        clientFor(options).call<{ planId: string; changes: PlannedChange[]; diagnostics?: Located[] }>(
          'POST',
          `/v1/stacks/${enc(name)}/plans`,
          { ...templateWithNested(file), parameters, ...resourcesToImportOf(options, command) },
        ),
      );
      const plan = { ...answer, diagnostics: (answer.diagnostics ?? []).map((d) => ({ file, ...d })) };
      // Warnings go to stderr, as a compiler's do: the plan stays the output.
      for (const d of plan.diagnostics) process.stderr.write(`${locatedLine(d)}\n`);
      process.stdout.write(render(plan, options.output, () => planTable(plan, name)) + '\n');
    }),
  );

  waitingOptions(
    parametersOption(
      common(
        stack
          .command('deploy')
          .argument('<name>', 'stack name (created when absent)')
          .argument('<template>', 'template file (JSON or YAML)')
          .description('deploy a template to a stack: create, update, replace, remove in dependency order')
          .option('--no-rollback', 'on failure, leave the stack as it is for inspection')
          .option('--client-token <token>', 'idempotency token: retrying with it never deploys twice')
          .option('--import <file>', IMPORT_HELP),
      ),
    ),
  ).action(
    action(
      async (name: string, file: string, options: Waiting & WithParameters & Importing, command: Command) => {
        const parameters = await parametersOf(options, command);
        const client = clientFor(options);
        const started = await locate(
          file,
          client.call<Started>('PUT', `/v1/stacks/${enc(name)}`, {
            ...templateWithNested(file),
            parameters,
            ...resourcesToImportOf(options, command),
            ...(options.rollback === false ? { noRollback: true } : {}),
            ...(options.clientToken ? { clientToken: options.clientToken } : {}),
          }),
        );
        return finish(client, name, started, options);
      },
    ),
  );

  waitingOptions(
    common(
      stack
        .command('apply')
        .argument('<name>', 'stack name')
        .argument('<planId>', "a plan made by 'typeplane stack plan'")
        .description('apply a stored plan (refused when the stack changed since it was made)')
        .option('--no-rollback', 'on failure, leave the stack as it is for inspection'),
    ),
  ).action(
    action(async (name: string, planId: string, options: Waiting) => {
      const client = clientFor(options);
      const started = await client.call<Started>(
        'POST',
        `/v1/stacks/${enc(name)}/plans/${enc(planId)}/apply`,
        options.rollback === false ? { noRollback: true } : {},
      );
      return finish(client, name, started, options);
    }),
  );

  common(stack.command('show').argument('<name>').description('a stack: status, resources, outputs')).action(
    action(async (name: string, options: Common) => {
      const view = await clientFor(options).call<StackView>('GET', `/v1/stacks/${enc(name)}`);
      process.stdout.write(render(view, options.output, () => stackTable(view)) + '\n');
    }),
  );

  common(
    stack
      .command('list')
      .description('list stacks')
      .option('--deleted', "the deleted stacks instead, kept with their events for the server's retention"),
  ).action(
    action(async (options: Common & { deleted?: boolean }) => {
      const client = clientFor(options);
      const stacks: {
        stackName: string;
        stackId?: string;
        status: string;
        updatedAt: string;
        deletedAt?: string;
        description?: string;
      }[] = [];
      let nextToken: string | null = null;
      do {
        const page: { stacks: typeof stacks; nextToken: string | null } = await client.call(
          'GET',
          `/v1/stacks?maxResults=1000${options.deleted ? '&deleted=true' : ''}${nextToken ? `&nextToken=${enc(nextToken)}` : ''}`,
        );
        stacks.push(...page.stacks);
        nextToken = page.nextToken;
      } while (nextToken);
      process.stdout.write(
        render({ stacks }, options.output, () =>
          options.deleted
            ? columns(
                ['STACK', 'STACK ID', 'STATUS', 'DELETED', 'DESCRIPTION'],
                stacks.map((s) => [
                  s.stackName,
                  s.stackId ?? '',
                  s.status,
                  s.deletedAt ?? s.updatedAt,
                  truncate(s.description ?? '', 60),
                ]),
              )
            : columns(
                ['STACK', 'STATUS', 'UPDATED', 'DESCRIPTION'],
                stacks.map((s) => [s.stackName, s.status, s.updatedAt, truncate(s.description ?? '', 60)]),
              ),
        ) + '\n',
      );
    }),
  );

  common(
    stack
      .command('events')
      .argument('<name>')
      .description(
        "a stack's events: time, logical id, identifier, status, reason (a deleted stack's too: the name's last, or --stack-id)",
      )
      .option(
        '--follow',
        'then each new event as it is written (a watch), until the running deployment ends (-o json: one event a line)',
      )
      .option(
        '--stack-id <id>',
        'the events of this stack of the name (a deleted one: see stack list --deleted)',
      ),
  ).action(
    action(async (name: string, options: Common & { follow?: boolean; stackId?: string }) => {
      const client = clientFor(options);
      if (options.follow) {
        // The stack first: a deployment running then ends in the events listed next, or after them.
        const view = await client.call<StackView>('GET', `/v1/stacks/${enc(name)}`).catch((e: unknown) => {
          if (e instanceof ApiError && e.status === 404) return undefined;
          throw e;
        });
        const listed = await eventsAfter(client, name, '0', options.stackId);
        // A deleted stack has ended: its events are all there is to show.
        const running =
          view?.deploymentId !== undefined && (!options.stackId || view.stackId === options.stackId);
        return followStackEvents(client, name, listed, running, options.output, options.stackId);
      }
      const events = await eventsAfter(client, name, '0', options.stackId);
      process.stdout.write(
        render({ events }, options.output, () =>
          columns(
            ['TIME', 'LOGICAL ID', 'TYPE', 'IDENTIFIER', 'STATUS', 'REASON'],
            events.map((e) => [e.time, e.logicalId, e.type, e.identifier ?? '-', e.status, e.reason ?? '']),
          ),
        ) + '\n',
      );
    }),
  );

  common(
    stack
      .command('generate')
      .description(
        "a template of the resources outside stacks of the types named (CloudFormation's IaC generator): writable properties, references as Ref/Fn::GetAtt, DeletionPolicy Retain; printed as YAML (-o json: with its ResourcesToImport)",
      )
      .requiredOption('--types <globs>', "type globs, comma-separated: 'Typeplane::*,AWS::S3::Bucket'")
      .option(
        '--import-file <file>',
        'also write the ResourcesToImport that imports them (for stack deploy --import)',
      ),
    ['table', 'yaml', 'json'],
  ).action(
    action(async (options: Common & { types: string; importFile?: string }) => {
      const out = await clientFor(options).call<{
        template: unknown;
        resourcesToImport: unknown[];
        leftOut: { typeName: string; identifier: string; stack: string }[];
      }>('GET', `/v1/generated-template?types=${enc(options.types)}`);
      if (options.importFile !== undefined)
        writeFileSync(options.importFile, `${JSON.stringify(out.resourcesToImport, null, 2)}\n`);
      for (const r of out.leftOut)
        process.stderr.write(`note: ${r.typeName} ${r.identifier} is left out: it is in stack ${r.stack}\n`);
      process.stdout.write(
        options.output === 'json' ? `${JSON.stringify(out, null, 2)}\n` : yaml().stringify(out.template),
      );
    }),
  );

  common(stack.command('outputs').argument('<name>').description("a stack's resolved outputs")).action(
    action(async (name: string, options: Common) => {
      const out = await clientFor(options).call<{ stackName: string; outputs: StackView['outputs'] }>(
        'GET',
        `/v1/stacks/${enc(name)}/outputs`,
      );
      process.stdout.write(render(out, options.output, () => outputsTable(out.outputs)) + '\n');
    }),
  );

  common(
    stack
      .command('drift')
      .argument('<name>')
      .description('read every resource through its provider and compare with what the stack applied')
      .addHelpText(
        'after',
        `\nExit codes: ${EXIT.ok} in sync; ${EXIT.drifted} drifted (a resource was modified or deleted); ${EXIT.failed} the check failed or the server refused it; ${EXIT.usage} usage error.`,
      ),
  ).action(
    action(async (name: string, options: Common) => {
      const out = await clientFor(options).call<{ status: string; resources: DriftedResource[] }>(
        'GET',
        `/v1/stacks/${enc(name)}/drift`,
      );
      process.stdout.write(
        render(out, options.output, () =>
          [`stack ${name}: ${out.status}`, driftTable(out.resources)].join('\n'),
        ) + '\n',
      );
      return out.status === 'IN_SYNC' ? EXIT.ok : EXIT.drifted;
    }),
  );

  waitingOptions(
    common(
      stack
        .command('delete')
        .argument('<name>')
        .description('delete every resource of a stack in reverse dependency order (Retain kept)'),
    ),
  ).action(
    action(async (name: string, options: Waiting) => {
      const client = clientFor(options);
      const started = await client.call<Started>('DELETE', `/v1/stacks/${enc(name)}`);
      return finish(client, name, started, options);
    }),
  );

  for (const command of stack.commands) {
    const lines = EXAMPLES[command.name()];
    if (lines) examples(command, lines);
  }
}

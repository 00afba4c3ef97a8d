/**
 * Benchmark (not a test): how many published CloudFormation templates Typeplane takes as they are. A
 * server (in this process, SQLite, real HTTP on loopback) registers the AWS corpus's schemas once,
 * with `stateProvider.synthesize: ['AWS::*']`; then each template of a folder (default
 * /tmp/cfn-templates, a checkout of aws-cloudformation/aws-cloudformation-templates) is
 *
 * 1. validated as `typeplane stack validate` does (no parameters): accepted, or refused with its first
 *    error's rule and message;
 * 2. when accepted, deployed, with every parameter at its Default and one without a Default given a
 *    value its Type, AllowedValues, AllowedPattern and lengths accept (an AWS-specific type gets a
 *    made-up id of its shape: `vpc-…`, a key pair's name …); an SSM parameter type's parameter (its
 *    Default, AWS's public /aws/service/… ones among them) is made as an AWS::SSM::Parameter first;
 * 3. when deployed, planned again with the same template and parameters (every change should be
 *    NoChange), then deleted.
 *
 * Templates written for other tools (Rain's `!Rain::` tags, modules) and those declaring an AWS type
 * absent from the corpus are counted apart, not validated. Prints the counts and a table of causes
 * (rule and the head of the message, names and numbers elided) for each step that fails.
 *
 *   npm run bench:templates -- [dir] [--list 15] [--only <path substring>]
 *   TEMPLATES_DIR=dir npm run bench:templates
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash, randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { exchange } from '../src/cli/exchange.js';
import { startService } from '../src/service.js';
import { loadTemplate, type ParameterDeclaration, type Template } from '../src/stacks/index.js';
import { referencesOf } from '../src/stacks/parameter-store/index.js';
import { stringMatching } from '../src/providers/synthesize/pattern.js';
import { Seed } from '../src/providers/synthesize/seed.js';
import { LOOKAROUND_WORK_LIMIT, hasLookaround, matchesAllowedPattern } from '../src/stacks/lookaround.js';
import { fmt, numberArg, removeAtExit, stringArg, type Json } from './harness.js';

const LIST = numberArg('list', 15);
const ONLY = stringArg('only');
const positional = process.argv
  .slice(2)
  .filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
const dir = positional[0] ?? process.env.TEMPLATES_DIR ?? '/tmp/cfn-templates';
const corpus = fileURLToPath(new URL('../../shared/corpus/aws-resource-schemas/', import.meta.url));
for (const [what, path] of [
  ['templates', dir],
  ['corpus', corpus],
] as const)
  if (!existsSync(path)) {
    console.error(`${what} not found at ${path}`);
    process.exit(1);
  }

/** Whether a file declares Resources at its top level (a macro's event or a parameters file does not). */
function declaresResources(text: string, name: string): boolean {
  if (!/\.json$/i.test(name)) return /^"?Resources"?\s*:/m.test(text);
  try {
    const root = JSON.parse(text) as unknown;
    return typeof root === 'object' && root !== null && 'Resources' in root;
  } catch {
    return false;
  }
}

/** Every file under `root` that reads as a template: JSON or YAML with a Resources section. */
function templatesUnder(root: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(json|ya?ml|template)$/i.test(name)) {
        const text = readFileSync(path, 'utf8');
        if (declaresResources(text, name)) out.push({ file: relative(root, path), text });
      }
    }
  };
  walk(root);
  return out;
}

const corpusTypes = new Set(
  readdirSync(corpus)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5).replaceAll('_', '::')),
);

/** Why a template is out of scope (written for another tool, or of types the corpus lacks), if it is. */
function outOfScope(text: string): string | undefined {
  if (/!Rain::|\bRain::(Embed|S3|Module|Constant)/.test(text)) return "Rain's tags (!Rain::…)";
  const loaded = loadTemplate(text);
  const types = [...(loaded.template?.resources.values() ?? [])].map((r) => r.type);
  if (types.some((t) => t.endsWith('::MODULE'))) return 'modules (…::MODULE)';
  const absent = types.filter((t) => /^AWS::[^:]+::[^:]+$/.test(t) && !corpusTypes.has(t));
  // SAM's types are expanded by its transform: counted with the transform's refusal, not as absent.
  if (absent.length > 0 && !absent.every((t) => t.startsWith('AWS::Serverless::')))
    return 'types absent from the corpus';
  return undefined;
}

/** Made-up values of the shape of AWS-specific parameter types. */
const AWS_VALUES: Record<string, string> = {
  'AWS::EC2::KeyPair::KeyName': 'bench-key',
  'AWS::EC2::VPC::Id': 'vpc-0a1b2c3d4e5f60789',
  'AWS::EC2::Subnet::Id': 'subnet-0a1b2c3d4e5f60789',
  'AWS::EC2::SecurityGroup::Id': 'sg-0a1b2c3d4e5f60789',
  'AWS::EC2::SecurityGroup::GroupName': 'bench-group',
  'AWS::EC2::Image::Id': 'ami-0a1b2c3d4e5f60789',
  'AWS::EC2::Instance::Id': 'i-0a1b2c3d4e5f60789',
  'AWS::EC2::Volume::Id': 'vol-0a1b2c3d4e5f60789',
  'AWS::EC2::AvailabilityZone::Name': 'us-east-1a',
  'AWS::Route53::HostedZone::Id': 'Z0123456789ABCDEFGHIJ',
};

/** `tail` (hex digits) made distinct for `key`, of the same length. */
function distinct(tail: string, key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, tail.length);
}

/** Values by what a parameter's name says it holds, for one without a pattern to follow. */
const BY_NAME: [RegExp, string][] = [
  [/cidr/i, '10.0.0.0/16'],
  [/e-?mail/i, 'ops@example.com'],
  [/arn$/i, 'arn:aws:iam::123456789012:role/bench'],
  [/password|secret/i, 'Bench-Passw0rd-1'],
  [/url$/i, 'https://example.com/bench'],
  [/domain|hostname|dns/i, 'bench.example.com'],
  [/bucket/i, 'bench-bucket-0a1b2c'],
  [/ip(address)?$/i, '10.0.0.10'],
  [/version$/i, '1.29'],
];

/** A value for a parameter without a Default that its declaration accepts, or undefined when none is found. */
function parameterValue(p: ParameterDeclaration, rawType: string): string | undefined {
  if (p.allowedValues && p.allowedValues.length > 0) return String(p.allowedValues[0]);
  // A CommaDelimitedList named for subnets, security groups or zones holds their ids.
  const listOf = [/subnet/i, /securitygroup/i, /zone|azs?$/i].findIndex((re) => re.test(p.name));
  const list =
    /^List<(.+)>$/.exec(rawType)?.[1] ??
    (rawType === 'CommaDelimitedList' && listOf >= 0
      ? ['AWS::EC2::Subnet::Id', 'AWS::EC2::SecurityGroup::Id', 'AWS::EC2::AvailabilityZone::Name'][listOf]
      : undefined);
  const item = list ?? rawType;
  if (AWS_VALUES[item] !== undefined) {
    // Two parameters of one type (Subnet1, Subnet2) get different ids, as two real ones would be.
    const of = (n: number) =>
      item === 'AWS::EC2::AvailabilityZone::Name'
        ? `us-east-1${'abcde'[n]}`
        : AWS_VALUES[item]!.replace(/[0-9a-f]{6}$/, (tail) => distinct(tail, `${p.name}${n}`));
    // Four items: templates select up to the third or fourth subnet of a list.
    return list ? [1, 2, 3, 4].map(of).join(',') : of(0);
  }
  if (p.type === 'Number' || p.type === 'List<Number>') {
    const n = Math.min(Math.max(p.minValue ?? 1, 1), p.maxValue ?? Number.MAX_SAFE_INTEGER);
    return p.type === 'List<Number>' ? `${n},${n}` : String(n);
  }
  const minLength = p.minLength ?? 0;
  const maxLength = p.maxLength;
  const fits = (s: string) => s.length >= minLength && (maxLength === undefined || s.length <= maxLength);
  const named = BY_NAME.find(([re]) => re.test(p.name))?.[1];
  if (p.allowedPattern !== undefined) {
    // The pattern writer reads RE2's syntax; for one with lookaround, plausible values are tried.
    const pattern = p.allowedPattern;
    const written = hasLookaround(pattern)
      ? undefined
      : stringMatching({ pattern, minLength, maxLength, seed: Seed.of('bench', p.name) });
    const tried = [named, 'benchvalue', 'bench-value-1', 'Bench-Passw0rd-1', 'bench.example.com'];
    return (
      written ??
      tried.find(
        (c) =>
          c !== undefined && fits(c) && matchesAllowedPattern(pattern, c, { left: LOOKAROUND_WORK_LIMIT }),
      )
    );
  }
  if (named !== undefined && fits(named)) return named;
  const plain = `bench${p.name.toLowerCase()}`.padEnd(minLength, 'x');
  return maxLength === undefined ? plain : plain.slice(0, maxLength);
}

/**
 * An SSM parameter type names a parameter of the server's (AWS's public ones, such as
 * /aws/service/ami-amazon-linux-latest/…, among them): one is made under that name, holding a value
 * of the type it stands for. One made for an earlier template is kept.
 */
async function storeParameter(p: ParameterDeclaration, rawType: string, name: string): Promise<void> {
  if (p.parameterStore === 'name')
    return void (await call('POST', '/v1/resources/AWS::SSM::Parameter?wait=30', {
      desiredState: { Name: name, Type: 'String', Value: 'bench' },
    }));
  const inner = /^AWS::SSM::Parameter::Value<(.+)>$/.exec(rawType)?.[1] ?? 'String';
  const { default: _name, ...declaration } = p;
  const value = parameterValue(declaration, inner) ?? 'bench';
  await call('POST', '/v1/resources/AWS::SSM::Parameter?wait=30', {
    desiredState: {
      Name: name,
      Type: /^List<|CommaDelimitedList/.test(inner) ? 'StringList' : 'String',
      Value: value,
    },
  });
}

/**
 * What the template's dynamic references name by name, made first: an SSM parameter (an AMI id for
 * AWS's public AMI parameters), a secret holding its JSON key. A secret named by a Ref is the stack's.
 */
async function storeReferenced(template: Template): Promise<void> {
  for (const reference of referencesOf(template)) {
    if (reference.service !== 'secretsmanager')
      await call('POST', '/v1/resources/AWS::SSM::Parameter?wait=30', {
        desiredState: {
          Name: reference.name,
          Type: 'String',
          Value: /ami/i.test(reference.name) ? AWS_VALUES['AWS::EC2::Image::Id'] : 'bench',
        },
      });
    else if (!reference.secretId.includes('${'))
      await call('POST', '/v1/resources/AWS::SecretsManager::Secret?wait=30', {
        desiredState: {
          Name: reference.secretId,
          SecretString: reference.jsonKey
            ? JSON.stringify({ [reference.jsonKey]: 'Bench-Passw0rd-1' })
            : 'Bench-Passw0rd-1',
        },
      });
  }
}

/** The raw Type of each parameter (the declaration keeps only the kind of value). */
function rawTypes(text: string): Record<string, string> {
  const loaded = loadTemplate(text);
  const root = loaded.template?.document.value as { Parameters?: Record<string, { Type?: unknown }> };
  return Object.fromEntries(
    Object.entries(root?.Parameters ?? {}).map(([name, d]) => [
      name,
      typeof d?.Type === 'string' ? d.Type : '',
    ]),
  );
}

/** A cause as the table groups it: the rule and the message's head, with names and numbers elided. */
function cause(rule: string, message: string): string {
  const head = message
    .replace(/'[^']*'|"[^"]*"|`[^`]*`/g, '…')
    .replace(/\b[A-Za-z0-9]+::[A-Za-z0-9]+::[A-Za-z0-9:]+/g, '<type>')
    .replace(/\/Resources\/[^/\s]+/g, '/Resources/<id>')
    .replace(/\b\d[\d,.]*\b/g, 'N');
  return `${rule} ${head.length > 90 ? `${head.slice(0, 90)}…` : head}`;
}

class Tally {
  private readonly counts = new Map<string, string[]>();
  add(key: string, file: string): void {
    this.counts.set(key, [...(this.counts.get(key) ?? []), file]);
  }
  get size(): number {
    return [...this.counts.values()].reduce((n, files) => n + files.length, 0);
  }
  print(title: string): void {
    if (this.counts.size === 0) return;
    console.log(`\n${title} (${this.size}):`);
    const rows = [...this.counts].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
    for (const [key, files] of rows.slice(0, LIST))
      console.log(
        `  ${String(files.length).padStart(4)}  ${key}\n        e.g. ${files.slice(0, 3).join(', ')}`,
      );
    if (rows.length > LIST) console.log(`  … and ${rows.length - LIST} more causes (--list N shows more)`);
  }
}

const templates = templatesUnder(dir).filter((t) => ONLY === undefined || t.file.includes(ONLY));
const dataDir = mkdtempSync(join(tmpdir(), 'typeplane-bench-templates-'));
removeAtExit(dataDir);
const token = `tp_${randomBytes(24).toString('base64url')}`;
const started = performance.now();
const service = await startService({
  dataDir,
  port: 0,
  // The corpus's schema warnings are for their authors; this measures templates.
  logger: pino({ level: 'error' }),
  adminToken: token,
  types: [corpus],
  stateProvider: { synthesize: ['AWS::*'] },
});
console.log(
  `registered ${corpusTypes.size} corpus schemas in ${fmt((performance.now() - started) / 1000, 1)} s; ${templates.length} templates under ${dir}`,
);

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const answer = await exchange(
    method,
    new URL(service.url + path),
    {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body === undefined ? undefined : JSON.stringify(body),
  );
  return { status: answer.status, body: answer.text === '' ? undefined : JSON.parse(answer.text) };
}

const counts = {
  templates: templates.length,
  outOfScope: 0,
  accepted: 0,
  deployed: 0,
  plannedClean: 0,
  deleted: 0,
};
const outOfScopeCauses = new Tally();
const refusals = new Tally();
const deployFailures = new Tally();
const planChanges = new Tally();
const deleteFailures = new Tally();
const run = performance.now();

interface Deployable {
  file: string;
  text: string;
  parameters: Record<string, string>;
}
/** Templates deployed, and what their export names hold after the stack's name (`:ClusterName`). */
const exporters = new Map<Deployable, Set<string>>();
const importers: { template: Deployable; missing: string[] }[] = [];

for (const [i, { file, text }] of templates.entries()) {
  if (i % 50 === 0) process.stderr.write(`${i} of ${templates.length}\n`);
  const scope = outOfScope(text);
  if (scope !== undefined) {
    counts.outOfScope++;
    outOfScopeCauses.add(scope, file);
    continue;
  }
  const validated = await call('POST', '/v1/stacks/validate', { template: text });
  const firstError = (validated.body?.diagnostics ?? []).find((d: Json) => d.severity === 'error');
  if (validated.status !== 200 || !validated.body.valid) {
    refusals.add(
      firstError
        ? cause(firstError.rule, firstError.message)
        : `HTTP ${validated.status} ${validated.body?.message ?? ''}`,
      file,
    );
    continue;
  }
  counts.accepted++;

  const loaded = loadTemplate(text);
  const types = rawTypes(text);
  const parameters: Record<string, string> = {};
  for (const p of loaded.template!.parameters.values()) {
    if (p.parameterStore !== undefined) {
      const name = typeof p.default === 'string' ? p.default : `/bench/${p.name}`;
      if (p.default === undefined) parameters[p.name] = name;
      await storeParameter(p, types[p.name] ?? '', name);
      continue;
    }
    if (p.default !== undefined) continue;
    const value = parameterValue(p, types[p.name] ?? '');
    if (value !== undefined) parameters[p.name] = value;
  }
  await storeReferenced(loaded.template!);
  // Short: templates build names of limited length from the stack's (`${AWS::StackName}-service`).
  const stack = `t${i}-${file.replace(/\.[^.]+$/, '').replace(/[^A-Za-z0-9]+/g, '-')}`.slice(0, 24);
  const missing = await deployPlanDelete({ file, text, parameters }, stack);
  // One that imports what no stack exports yet is tried again once every template has run.
  if (missing.length > 0) importers.push({ template: { file, text, parameters }, missing });
}
/**
 * An importer is deployed again beside a stack of the template whose exports it names: an export
 * `<stack><sep><suffix>` of a deployed template is deployed as the stack `<prefix>` the import asks
 * for (`production:ClusterName` → the cluster template as `production`), then deleted.
 */
for (const { template: asGiven, missing } of importers) {
  let prefix = '';
  let suffix = '';
  const exporter = [...exporters].find(([, suffixes]) =>
    [...suffixes].some((s) => {
      if (!missing[0]!.endsWith(s)) return false;
      prefix = missing[0]!.slice(0, -s.length);
      suffix = s;
      return missing.every((name) => name.startsWith(prefix) && suffixes.has(name.slice(prefix.length)));
    }),
  );
  let template = asGiven;
  // A prefix that is no stack name came from a parameter the bench left empty or made up
  // (`${PortfolioStackName}-Portfolio`): the exporter gets a stack name of its own, handed over in
  // that parameter, as its user would.
  const named = new RegExp(`\\$\\{(\\w+)\\}${suffix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).exec(
    asGiven.text,
  )?.[1];
  if (exporter && !/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(prefix) && named !== undefined) {
    prefix = `x-${named}`.slice(0, 24);
    template = { ...asGiven, parameters: { ...asGiven.parameters, [named]: prefix } };
  }
  const put =
    exporter && /^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(prefix) ? await deployed(exporter[0], prefix) : false;
  if (!put || (await deployPlanDelete(template, `i-${prefix}`.slice(0, 24))).length > 0)
    deployFailures.add(
      `TP4021 no stack exports ${missing[0]}: no template deployed here exports it, or it did not deploy again`,
      template.file,
    );
  if (put) await call('DELETE', `/v1/stacks/${prefix}?wait=120`);
}
await service.close();

/**
 * Deletes what a deleted stack retained (`DeletionPolicy: Retain`): the next template, or the same
 * one's other form, names its bucket alike, as its user would clean up before deploying it again.
 */
async function removeRetained(resources: { type: string; identifier?: string }[]): Promise<void> {
  for (const { type, identifier } of resources) {
    if (identifier === undefined) continue;
    const path = `/v1/resources/${encodeURIComponent(type)}/${encodeURIComponent(identifier)}`;
    if ((await call('GET', path)).status === 200) await call('DELETE', `${path}?wait=60`);
  }
}

/** Whether `template` deploys as `stack` (left in place). */
async function deployed(template: Deployable, stack: string): Promise<boolean> {
  const put = await call('PUT', `/v1/stacks/${stack}?wait=120`, {
    template: template.text,
    parameters: template.parameters,
  });
  if (put.status === 202 && put.body.stack.status === 'CREATE_COMPLETE') return true;
  if (put.status === 202) await call('DELETE', `/v1/stacks/${stack}?wait=120`);
  return false;
}

/**
 * Deploy, plan again and delete, counting each; the export names it lacks when the deploy was
 * refused for them (TP4021), counted then by the caller.
 */
async function deployPlanDelete({ file, text, parameters }: Deployable, stack: string): Promise<string[]> {
  const put = await call('PUT', `/v1/stacks/${stack}?wait=120`, { template: text, parameters });
  const imports = (put.status === 400 ? (put.body.details ?? []) : [])
    .filter((d: Json) => d.rule === 'TP4021')
    .map((d: Json) => /no stack exports '([^']*)'/.exec(d.message)?.[1])
    .filter((name: string | undefined) => name !== undefined);
  if (imports.length > 0) return imports;
  if (put.status !== 202 || put.body.stack.status !== 'CREATE_COMPLETE') {
    const body = put.body ?? {};
    const diagnostic = (body.details ?? body.diagnostics ?? []).find((d: Json) => d.severity !== 'warning');
    deployFailures.add(
      put.status !== 202
        ? diagnostic
          ? cause(diagnostic.rule ?? '', diagnostic.message ?? '')
          : cause(`HTTP ${put.status}`, body.message ?? '')
        : cause(body.stack.status, body.stack.statusReason ?? ''),
      file,
    );
    if (put.status === 202) await call('DELETE', `/v1/stacks/${stack}?wait=120`);
    return [];
  }
  counts.deployed++;
  const suffixes = new Set<string>();
  for (const output of put.body.stack.outputs as { exportName?: string }[])
    if (output.exportName?.startsWith(stack) && output.exportName.length > stack.length)
      suffixes.add(output.exportName.slice(stack.length));
  if (suffixes.size > 0) exporters.set({ file, text, parameters }, suffixes);

  const plan = await call('POST', `/v1/stacks/${stack}/plans`, { template: text, parameters });
  const changed = (plan.body?.changes ?? []).filter((c: Json) => c.action !== 'NoChange');
  if (plan.status !== 201) planChanges.add(cause(`HTTP ${plan.status}`, plan.body?.message ?? ''), file);
  else if (changed.length > 0)
    planChanges.add(
      `${changed[0].action} ${changed[0].type}${changed[0].patch ? ` ${changed[0].patch.map((p: Json) => `${p.op} ${p.path}`).join(', ')}` : ''}`.slice(
        0,
        140,
      ),
      file,
    );
  else counts.plannedClean++;

  const deleted = await call('DELETE', `/v1/stacks/${stack}?wait=120`);
  if (deleted.status === 202 && deleted.body.stack.status === 'DELETE_COMPLETE') {
    counts.deleted++;
    await removeRetained(put.body.stack.resources);
  } else
    deleteFailures.add(
      cause(
        deleted.body?.stack?.status ?? `HTTP ${deleted.status}`,
        deleted.body?.stack?.statusReason ?? deleted.body?.message ?? '',
      ),
      file,
    );
  return [];
}

const inScope = counts.templates - counts.outOfScope;
const pct = (n: number, of: number) => `${fmt((100 * n) / Math.max(1, of), 1)} %`;
console.log(`
templates            ${counts.templates} (${counts.outOfScope} out of scope, ${inScope} in scope)
accepted             ${counts.accepted} (${pct(counts.accepted, inScope)} of those in scope)
deployed             ${counts.deployed} (${pct(counts.deployed, counts.accepted)} of accepted)
planned again clean  ${counts.plannedClean}
deleted              ${counts.deleted}
time                 ${fmt((performance.now() - run) / 1000, 1)} s for the templates`);
outOfScopeCauses.print('out of scope');
refusals.print('refused by validate (first error)');
deployFailures.print('accepted but not deployed');
planChanges.print('deployed, but planning again changes something');
deleteFailures.print('not deleted');

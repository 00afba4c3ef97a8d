/**
 * @module `typeplane audit verify <files...>`: check an audit log's keyed hash chain, locally, with
 * the server's secret key (the chain's key is derived from it, so the files alone cannot forge one).
 * `typeplane audit export`: the store's trail (`GET /v1/audit`, every replica's records in one chain)
 * as the same JSON lines, oldest first, for verify or for keeping elsewhere.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { chainKey } from '../audit/chain.js';
import { verifyTrail, type TrailReport } from '../audit/verify.js';
import { loadSecretKey, SECRET_KEY_ENV, SECRET_KEY_FILE_NAME } from '../secrets/key.js';
import { action, CA_FILE_HELP, clientFor, examples } from './api-commands.js';
import { DEFAULT_ENDPOINT } from './client.js';

interface VerifyOptions {
  secretKeyFile?: string;
  dataDir: string;
  output: string;
}

/** The server's key: env TYPEPLANE_SECRET_KEY, else the key file, which must exist (never created here). */
function secretKey(options: VerifyOptions): Buffer {
  const env = process.env[SECRET_KEY_ENV] || undefined;
  const file = resolve(options.secretKeyFile ?? join(options.dataDir, SECRET_KEY_FILE_NAME));
  if (env === undefined && !existsSync(file))
    throw new Error(
      `no secret key: set ${SECRET_KEY_ENV} or pass --secret-key-file (the key the server ran with; ${file} does not exist)`,
    );
  return loadSecretKey({ key: env, file }).key;
}

function describe(report: TrailReport): string {
  const lines = report.problems.map(
    (p) =>
      `${p.file}:${p.line}: ${p.kind}${p.auditID !== undefined ? ` (auditID ${p.auditID})` : ''}: ${p.message}`,
  );
  const head = report.head ? `, head sequence ${report.head.sequence} hash ${report.head.hash}` : '';
  lines.push(
    report.ok
      ? `ok: ${report.records} record${report.records === 1 ? '' : 's'} chained intact${head}`
      : `not intact: ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} in ${report.records} records`,
  );
  return `${lines.join('\n')}\n`;
}

interface ExportOptions {
  endpoint?: string;
  token?: string;
  caFile?: string;
  since?: string;
  until?: string;
  stage?: string;
  out?: string;
}

/**
 * Every record of the store's trail (within since/until), oldest first, one JSON line each. The API
 * pages newest first: the pages are gathered, then written in chain order.
 */
async function exportTrail(options: ExportOptions): Promise<void> {
  const client = clientFor({ ...options, output: 'json' });
  const filter = new URLSearchParams({ maxResults: '1000' });
  if (options.since !== undefined) filter.set('since', options.since);
  if (options.until !== undefined) filter.set('until', options.until);
  if (options.stage !== undefined) filter.set('stage', options.stage);
  const pages: unknown[][] = [];
  for (let nextToken: string | undefined; ;) {
    const query = new URLSearchParams(filter);
    if (nextToken !== undefined) query.set('nextToken', nextToken);
    const page = await client.call<{ records: unknown[]; nextToken?: string }>('GET', `/v1/audit?${query}`);
    pages.push(page.records);
    if (page.nextToken === undefined) break;
    nextToken = page.nextToken;
  }
  // A record's text is JSON.stringify's, which parsing and serialising again gives back exactly.
  const lines = pages
    .flat()
    .reverse()
    .map((record) => `${JSON.stringify(record)}\n`)
    .join('');
  if (options.out !== undefined) writeFileSync(options.out, lines, { mode: 0o600 });
  else process.stdout.write(lines);
}

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('the audit trail (serve --audit-log, --audit-store)');
  examples(
    audit
      .command('export')
      .description(
        "write the store's audit trail (GET /v1/audit, needs an admin token) as JSON lines, oldest first, for 'typeplane audit verify'",
      )
      .option('--since <time>', 'records made at or after this ISO 8601 time')
      .option('--until <time>', 'records made before this ISO 8601 time')
      .option(
        '--stage <stage>',
        "only this stage's records: ResponseComplete (requests answered) or OperationComplete (operations ended); such an export skips the others' places in the chain, which verify reports as removed",
      )
      .option('--out <file>', 'write to this file (mode 0600) instead of stdout')
      .option('--endpoint <url>', `Typeplane server (env TYPEPLANE_ENDPOINT; default ${DEFAULT_ENDPOINT})`)
      .option('--token <token>', 'API token (env TYPEPLANE_TOKEN)')
      .option('--ca-file <file>', CA_FILE_HELP),
    [
      'typeplane audit export --out trail.jsonl && typeplane audit verify trail.jsonl --secret-key-file secret.key',
      'typeplane audit export --since 2025-01-01T00:00:00Z > january.jsonl',
    ],
  ).action(action(exportTrail));
  audit
    .command('verify')
    .description(
      'check that no record of an audit log was changed, removed or inserted (give rotated files oldest first: log.2 log.1 log)',
    )
    .argument('<files...>', 'audit log files, oldest first')
    .option(
      '--secret-key-file <file>',
      `the server's secret key file (ignored when env ${SECRET_KEY_ENV} is set; default <data-dir>/secret.key)`,
    )
    .option('--data-dir <dir>', "the server's data folder, for its key file", '.typeplane')
    .option('-o, --output <format>', 'text or json', 'text')
    .addHelpText(
      'after',
      `
Exits 0 when the chain is intact, 1 when a record was changed, removed or inserted (each named by
file, line and auditID). Records after the last one present cannot be told missing by the chain:
compare the printed head with GET /v1/audit or a copy kept elsewhere.

Examples:
  $ typeplane audit verify /var/log/typeplane/audit.log --secret-key-file /etc/typeplane/secret.key
  $ TYPEPLANE_SECRET_KEY=... typeplane audit verify audit.log.2 audit.log.1 audit.log -o json`,
    )
    .action((files: string[], options: VerifyOptions) => {
      const key = chainKey(secretKey(options));
      const report = verifyTrail(
        files.map((name) => ({ name, text: readFileSync(name, 'utf8') })),
        key,
      );
      process.stdout.write(
        options.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : describe(report),
      );
      if (!report.ok) process.exitCode = 1;
    });
}

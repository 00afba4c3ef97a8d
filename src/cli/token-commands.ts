/**
 * @module `typeplane token create|list|update|revoke`: API tokens, through the server's admin API.
 */
import type { Command } from 'commander';
import { action, clientFor, common, examples, nothingFound, type Common } from './api-commands.js';
import { columns, render } from './client.js';
import { UsageError } from './usage.js';
import { formatRate } from '../fairness/index.js';

interface TokenRecord {
  id: string;
  role: string;
  types?: string[];
  description?: string;
  createdAt: string;
  accessKeyId?: string;
  rate?: number;
  burst?: number;
}

/** A token's rate as `token list` shows it. */
function shownRate(t: TokenRecord): string {
  return t.rate === undefined ? '-' : `${formatRate(t.rate)} burst ${t.burst}`;
}

/** --burst as a number (the server checks its range). */
function burstOption(value: string | undefined): number | string | undefined {
  return value === undefined ? undefined : /^\d+$/.test(value) ? Number(value) : value;
}

const RATE_HELP =
  "the token's own rate: requests per second, minute or hour (100/s, 6000/m, 100); over it, 429 with Retry-After (docs/fairness.md)";
const BURST_HELP = 'requests the token may send at once after a quiet spell (default: twice the rate)';

const enc = encodeURIComponent;

export function registerTokenCommands(program: Command): void {
  const token = program
    .command('token')
    .description('create, list, limit and revoke API tokens (needs an admin token)');
  examples(
    common(
      token
        .command('create')
        .description('create a token; it is printed once and only its hash is kept')
        .requiredOption(
          '--role <role>',
          'admin (everything), writer (resources and requests), reader (reads only) or monitor (GET /metrics only)',
        )
        .option(
          '--types <globs...>',
          "limit a writer or reader token to these types ('AWS::S3::*'; repeat or separate with commas)",
        )
        .option('--description <text>', 'what the token is for')
        .option(
          '--aws-keys',
          'also issue an access key pair acting as the token, for AWS SDKs and the AWS CLI (Cloud Control API, signed with SigV4)',
        )
        .option('--rate <rate>', RATE_HELP)
        .option('--burst <n>', BURST_HELP),
    ),
    [
      "typeplane token create --role writer --types 'Typeplane.Data/*' --description 'CI deploys'",
      'export TYPEPLANE_TOKEN=$(typeplane token create --role reader)',
      'export $(typeplane token create --role writer --aws-keys)',
      "typeplane token create --role writer --types 'Typeplane.Data/*' --rate 100/s --burst 200",
    ],
  ).action(
    action(
      async (
        options: Common & {
          role: string;
          types?: string[];
          description?: string;
          awsKeys?: boolean;
          rate?: string;
          burst?: string;
        },
      ) => {
        const out = await clientFor(options).call<TokenRecord & { token: string; secretAccessKey?: string }>(
          'POST',
          '/v1/tokens',
          {
            role: options.role,
            ...(options.types ? { types: options.types } : {}),
            ...(options.description !== undefined ? { description: options.description } : {}),
            ...(options.awsKeys ? { awsKeys: true } : {}),
            ...(options.rate !== undefined ? { rate: options.rate } : {}),
            ...(options.burst !== undefined ? { burst: burstOption(options.burst) } : {}),
          },
        );
        // The table form is the token alone, so `export TYPEPLANE_TOKEN=$(typeplane token create …)`
        // works; with keys, one VARIABLE=value a line, so `export $(typeplane token create … --aws-keys)` does.
        const plain = () =>
          out.secretAccessKey === undefined
            ? out.token
            : `TYPEPLANE_TOKEN=${out.token}\nAWS_ACCESS_KEY_ID=${out.accessKeyId}\nAWS_SECRET_ACCESS_KEY=${out.secretAccessKey}`;
        process.stdout.write(render(out, options.output, plain) + '\n');
        if (options.output === 'table')
          process.stderr.write(
            out.secretAccessKey === undefined
              ? `created ${out.role} token ${out.id}; it is shown only now\n`
              : `created ${out.role} token ${out.id} and its access key pair; they are shown only now\n`,
          );
      },
    ),
  );
  examples(
    common(
      token
        .command('list')
        .description('list tokens (ids, roles, scopes, access key ids; never the tokens or secret keys)'),
    ),
    ['typeplane token list'],
  ).action(
    action(async (options: Common) => {
      const out = await clientFor(options).call<{ tokens: TokenRecord[] }>('GET', '/v1/tokens');
      if (options.output === 'table' && out.tokens.length === 0) return nothingFound('No tokens found');
      process.stdout.write(
        render(out, options.output, () =>
          columns(
            ['ID', 'ROLE', 'TYPES', 'AWS ACCESS KEY', 'RATE', 'CREATED', 'DESCRIPTION'],
            out.tokens.map((t) => [
              t.id,
              t.role,
              t.types?.join(',') ?? '*',
              t.accessKeyId ?? '-',
              shownRate(t),
              t.createdAt,
              t.description ?? '',
            ]),
          ),
        ) + '\n',
      );
    }),
  );
  examples(
    common(
      token
        .command('update')
        .argument('<id>', "the token's id (from 'token list')")
        .description("set, change or drop a token's own rate and burst (in effect within a second)")
        .option('--rate <rate>', RATE_HELP)
        .option('--burst <n>', BURST_HELP)
        .option(
          '--no-rate',
          'drop the rate of its own: the token shares the server fairly with no limit of its own',
        ),
    ),
    [
      'typeplane token update 3f0c2a9e-… --rate 50/s --burst 100',
      'typeplane token update 3f0c2a9e-… --no-rate',
    ],
  ).action(
    action(async (id: string, options: Common & { rate?: string | false; burst?: string }) => {
      if (options.rate === undefined && options.burst === undefined)
        throw new UsageError('give --rate (and maybe --burst), --burst, or --no-rate');
      const out = await clientFor(options).call<TokenRecord>('PATCH', `/v1/tokens/${enc(id)}`, {
        ...(options.rate === false
          ? { rate: null }
          : options.rate !== undefined
            ? { rate: options.rate }
            : {}),
        ...(options.burst !== undefined ? { burst: burstOption(options.burst) } : {}),
      });
      process.stdout.write(render(out, options.output, () => `${out.id} rate ${shownRate(out)}`) + '\n');
    }),
  );
  examples(
    common(
      token
        .command('revoke')
        .argument('<id>', "the token's id (from 'token list')")
        .description('revoke a token'),
    ),
    ['typeplane token revoke 3f0c2a9e-…'],
  ).action(
    action(async (id: string, options: Common) => {
      await clientFor(options).call('DELETE', `/v1/tokens/${enc(id)}`);
      process.stdout.write(`revoked ${id}\n`);
    }),
  );
}

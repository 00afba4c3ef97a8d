/**
 * @module `typeplane token create|list|revoke`: API tokens, through the server's admin API.
 */
import type { Command } from 'commander';
import { action, clientFor, common, examples, nothingFound, type Common } from './api-commands.js';
import { columns, render } from './client.js';

interface TokenRecord {
  id: string;
  role: string;
  types?: string[];
  description?: string;
  createdAt: string;
  accessKeyId?: string;
}

const enc = encodeURIComponent;

export function registerTokenCommands(program: Command): void {
  const token = program
    .command('token')
    .description('create, list and revoke API tokens (needs an admin token)');
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
        ),
    ),
    [
      "typeplane token create --role writer --types 'Typeplane.Data/*' --description 'CI deploys'",
      'export TYPEPLANE_TOKEN=$(typeplane token create --role reader)',
      'export $(typeplane token create --role writer --aws-keys)',
    ],
  ).action(
    action(
      async (
        options: Common & { role: string; types?: string[]; description?: string; awsKeys?: boolean },
      ) => {
        const out = await clientFor(options).call<TokenRecord & { token: string; secretAccessKey?: string }>(
          'POST',
          '/v1/tokens',
          {
            role: options.role,
            ...(options.types ? { types: options.types } : {}),
            ...(options.description !== undefined ? { description: options.description } : {}),
            ...(options.awsKeys ? { awsKeys: true } : {}),
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
            ['ID', 'ROLE', 'TYPES', 'AWS ACCESS KEY', 'CREATED', 'DESCRIPTION'],
            out.tokens.map((t) => [
              t.id,
              t.role,
              t.types?.join(',') ?? '*',
              t.accessKeyId ?? '-',
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

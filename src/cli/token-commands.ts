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
          'admin (everything), writer (resources and requests) or reader (reads only)',
        )
        .option(
          '--types <globs...>',
          "limit a writer or reader token to these types ('AWS::S3::*'; repeat or separate with commas)",
        )
        .option('--description <text>', 'what the token is for'),
    ),
    [
      "typeplane token create --role writer --types 'Typeplane.Data/*' --description 'CI deploys'",
      'export TYPEPLANE_TOKEN=$(typeplane token create --role reader)',
    ],
  ).action(
    action(async (options: Common & { role: string; types?: string[]; description?: string }) => {
      const out = await clientFor(options).call<TokenRecord & { token: string }>('POST', '/v1/tokens', {
        role: options.role,
        ...(options.types ? { types: options.types } : {}),
        ...(options.description !== undefined ? { description: options.description } : {}),
      });
      // The table form is the token alone, so `export TYPEPLANE_TOKEN=$(typeplane token create …)` works.
      process.stdout.write(render(out, options.output, () => out.token) + '\n');
      if (options.output === 'table')
        process.stderr.write(`created ${out.role} token ${out.id}; it is shown only now\n`);
    }),
  );
  examples(common(token.command('list').description('list tokens (ids, roles, scopes; never the tokens)')), [
    'typeplane token list',
  ]).action(
    action(async (options: Common) => {
      const out = await clientFor(options).call<{ tokens: TokenRecord[] }>('GET', '/v1/tokens');
      if (options.output === 'table' && out.tokens.length === 0) return nothingFound('No tokens found');
      process.stdout.write(
        render(out, options.output, () =>
          columns(
            ['ID', 'ROLE', 'TYPES', 'CREATED', 'DESCRIPTION'],
            out.tokens.map((t) => [
              t.id,
              t.role,
              t.types?.join(',') ?? '*',
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

#!/usr/bin/env node
/**
 * @module The `typeplane` command line.
 */
import { Command, CommanderError } from 'commander';
import { registerApiCommands } from './api-commands.js';
import { registerGenerate } from './generate.js';
import { registerArtifactGenerators } from './generate-artifacts.js';
import { registerServe } from './serve.js';
import { registerStackCommands } from './stack-commands.js';
import { registerTest } from './test-command.js';
import { registerTokenCommands } from './token-commands.js';
import { registerValidate } from './validate.js';

export function buildProgram(): Command {
  const program = new Command('typeplane')
    .description('Resource types defined by a schema, served through one uniform API')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  registerValidate(program);
  registerServe(program);
  registerGenerate(program);
  registerArtifactGenerators(program);
  registerApiCommands(program);
  registerStackCommands(program);
  registerTokenCommands(program);
  registerTest(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version are not errors; anything else commander refuses is a usage error.
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(`typeplane: ${(e as Error).message}\n`);
    process.exitCode = 1;
  }
}

await main(process.argv);

#!/usr/bin/env node
/**
 * @module The `typeplane` command line.
 *
 * Each command's code loads only when that command runs: `typeplane --version` loads none of it, and
 * `typeplane validate` never loads the server, the contract runner or fast-check.
 */
import { Command, CommanderError } from 'commander';

type Register = (program: Command) => void;

// resource-commands.ts adds to the groups api-commands.ts registers, so it comes second.
const api = () =>
  Promise.all([import('./api-commands.js'), import('./resource-commands.js')]).then(([a, r]) => [
    a.registerApiCommands,
    r.registerResourceCommands,
  ]);

/** Top-level command names and the registrations that define them, in the order help lists them. */
const COMMANDS: [names: string[], load: () => Promise<Register[]>][] = [
  [['validate'], () => import('./validate.js').then((m) => [m.registerValidate])],
  [['serve'], () => import('./serve.js').then((m) => [m.registerServe])],
  [
    ['generate'],
    () =>
      Promise.all([import('./generate.js'), import('./generate-artifacts.js')]).then(([g, a]) => [
        g.registerGenerate,
        a.registerArtifactGenerators,
      ]),
  ],
  [['type', 'resource', 'request'], api],
  [['stack'], () => import('./stack-commands.js').then((m) => [m.registerStackCommands])],
  [['recipe', 'environment'], () => import('./recipe-commands.js').then((m) => [m.registerRecipeCommands])],
  [['token'], () => import('./token-commands.js').then((m) => [m.registerTokenCommands])],
  [['policy'], () => import('./policy-commands.js').then((m) => [m.registerPolicyCommands])],
  [['hook'], () => import('./hook-commands.js').then((m) => [m.registerHookCommands])],
  [['backup', 'restore'], () => import('./backup-commands.js').then((m) => [m.registerBackupCommands])],
  [['audit'], () => import('./audit-commands.js').then((m) => [m.registerAuditCommands])],
  [['test'], () => import('./test-command.js').then((m) => [m.registerTest])],
  [['diff'], () => import('./diff.js').then((m) => [m.registerDiff])],
  [['lsp'], () => import('./lsp.js').then((m) => [m.registerLsp])],
  [['completion'], () => import('./completion.js').then((m) => [m.registerCompletion])],
];

/**
 * The program with the commands `argv` names: only that one when it names one, none for
 * `--version`, all of them otherwise (help, an unknown command and its suggestions, completion).
 */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new Command('typeplane')
    .description('Resource types defined by a schema, served through one uniform API')
    .version('0.1.0')
    // Program options (only --version) go before a command, so commands may have a --version of their own.
    .enablePositionalOptions()
    .exitOverride();
  const [first, second] = argv;
  const named = first === 'help' ? second : first;
  const only = COMMANDS.find(([names]) => named !== undefined && names.includes(named));
  const versionOnly = first === '-V' || first === '--version';
  // A completion script is generated from every command, so it loads them all.
  const loads = versionOnly ? [] : only && named !== 'completion' ? [only] : COMMANDS;
  for (const [, load] of loads) for (const register of await load()) register(program);
  pointToHelp(program, 'typeplane');
  return program;
}

/**
 * A usage error prints its one line (with commander's "Did you mean …?") and where the help is, not
 * the whole help, which would bury the line that says what was wrong.
 */
function pointToHelp(command: Command, path: string): void {
  command.showHelpAfterError(`(see '${path} --help')`);
  for (const sub of command.commands) pointToHelp(sub, `${path} ${sub.name()}`);
}

async function main(argv: string[]): Promise<void> {
  try {
    const program = await buildProgram(argv.slice(2));
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

/**
 * How tests start a node process that runs one of the project's .ts files (the CLI from src/, a
 * worker, a misbehaving provider): the node arguments that go before the file. Under `npm test`,
 * whose test processes run from the JavaScript mirror of the tree (scripts/ts-run.cjs), the child
 * does the same — no tsx, no module hooks, about a second of CPU less a process; started another way
 * (`node --import tsx --test …`), through tsx.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const tsRun = fileURLToPath(new URL('../../scripts/ts-run.cjs', import.meta.url));

export const TS_NODE: readonly string[] = process.execArgv.some((arg) => resolve(arg) === tsRun)
  ? ['--require', tsRun]
  : ['--import', import.meta.resolve('tsx')];

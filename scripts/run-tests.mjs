#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's test runner (Node 20's runner does not expand globs).
// Extra arguments are passed through, e.g. `npm test -- --test-name-pattern=manifest`.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const passthrough = process.argv.slice(2);
const only = passthrough.filter((a) => !a.startsWith('-'));
const flags = passthrough.filter((a) => a.startsWith('-'));
const files =
  only.length > 0
    ? only
    : readdirSync('test', { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => `test/${f}`)
        .sort();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...flags, ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);

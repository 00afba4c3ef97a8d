// Registered by scripts/run-tests.mjs in every test process: when the process runs a test file (the
// test runner starts one child per file), it appends at exit the CPU time the file cost — its own
// threads' and that of the child processes it started and waited for (CLIs, servers, providers) — so
// the runner can say which files cost most. CPU time, unlike wall time, does not grow when a shared
// machine is busy. Linux only (from /proc); elsewhere nothing is recorded.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const records = process.env.TYPEPLANE_TEST_RECORDS;
const file = process.argv[1];
if (records !== undefined && process.env.NODE_TEST_CONTEXT !== undefined && file !== undefined)
  process.on('exit', () => {
    const stat = '/proc/self/stat';
    if (!existsSync(stat)) return;
    // After the command name (in parentheses): utime, stime, cutime and cstime are fields 14-17, in
    // clock ticks of 10 ms.
    const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
    const ms = fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks) * 10, 0);
    appendFileSync(join(records, 'cpu.jsonl'), `${JSON.stringify({ kind: 'cpu', file, ms })}\n`);
  });

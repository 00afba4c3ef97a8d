/**
 * What `typeplane validate` of the AWS corpus has V8 optimise, as a count no machine's speed changes:
 * functions compiled by its optimising compiler (TurboFan), from the process's own `--trace-opt`. A
 * walk that deoptimises on every new shape of node, recompiled again and again, costs a short batch
 * more than it gains; bench:validate's timed ratio would not tell it from the host's noise.
 *
 * Measured when the command began tiering up later (src/cli/validate.ts): 43–46 compiles a run; with
 * V8's defaults, 91–93. Ceiling 65. Run from the sources (dist/ not built), the loader's own functions
 * add 20–40: ceiling 105 then.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { CLI } from '../helpers/cli.js';
import { AWS_CORPUS as corpus, corpusSkip } from '../helpers/requirements.js';

const FROM_DIST = CLI.length === 1;
const CEILING = FROM_DIST ? 65 : 105;

test(
  'validating the AWS corpus in the CLI compiles no more optimised functions than today',
  { skip: corpusSkip() },
  (t) => {
    const run = spawnSync(process.execPath, ['--trace-opt', ...CLI, 'validate', corpus], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^✔ 1,489 files checked: 1,489 valid files/m);
    const compiles = run.stdout.match(/^\[completed compiling .* \(target TURBOFAN\)/gm)?.length ?? 0;
    t.diagnostic(`${compiles} optimised compiles (${FROM_DIST ? 'built' : 'from the sources'})`);
    // The trace is there: a run compiles some functions, whatever the flags.
    assert.ok(compiles > 10, `--trace-opt printed ${compiles} compiles`);
    assert.ok(
      compiles <= CEILING,
      `typeplane validate of the corpus made ${compiles} optimised compiles, over the ceiling of ${CEILING} (${FROM_DIST ? 'built' : 'from the sources'})`,
    );
  },
);

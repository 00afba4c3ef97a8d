/**
 * What validating a document allocates, as a count no machine's speed or load changes, held under a
 * ceiling: a change that adds a copy of the schema, a walk that builds a list per node or a string per
 * member to every document shows here, where bench:validate's timed ratio (a cold process, whose
 * figure moves by a fifth from run to run on this kind of host) would not tell it from noise.
 *
 * The corpus is validated as `typeplane validate` does it (Bicep warnings included), from bytes read
 * beforehand: parsing (the text decoded, JSON.parse's values), the meta-schema's check, the semantic
 * checks, the model, the warnings and their places. The first pass warms the code up; optimised code
 * allocates less (escape analysis), so the figure is the fewest of the five passes after it.
 *
 * Measured at 6d535a5: 66.7–67.4 KB a document (the passes after the first read 67.0–75.3 KB; the
 * first, cold, ~84.7 KB); ceiling 72,000. Then the Bicep warnings made in the semantic checks' walk,
 * not in one of their own: 64.5–66.4 KB; ceiling 70,000.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { validateDocument } from '../../src/schema/validate.js';
import { allocatedDuring } from '../helpers/allocations.js';
import { AWS_CORPUS as corpus, corpusSkip } from '../helpers/requirements.js';

const CEILING_PER_DOCUMENT = 70_000;

test(
  'validating the AWS corpus allocates no more per document than today',
  { skip: corpusSkip() },
  async (t) => {
    const files = readdirSync(corpus)
      .filter((f) => f.endsWith('.json'))
      .sort();
    const contents = files.map((f) => readFileSync(corpus + f));
    const passes: number[] = [];
    let warnings = 0;
    for (let pass = 0; pass < 6; pass++) {
      warnings = 0;
      const bytes = await allocatedDuring(async () => {
        for (let i = 0; i < files.length; i++)
          warnings += validateDocument(contents[i]!, { file: files[i], bicepWarnings: true }).diagnostics
            .length;
      });
      passes.push(Math.round(bytes / files.length));
    }
    const least = Math.min(...passes.slice(1));
    t.diagnostic(`bytes per document, pass by pass: ${passes.join(', ')}; ${warnings} warnings a pass`);
    // The work measured is the whole work: every document checked, its warnings made and placed.
    assert.ok(warnings > 1000, `the corpus's warnings were made (${warnings})`);
    assert.ok(
      least <= CEILING_PER_DOCUMENT,
      `validating a document allocates ${least} bytes (passes: ${passes.join(', ')}), over the ceiling of ${CEILING_PER_DOCUMENT}`,
    );
  },
);

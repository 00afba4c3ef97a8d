/**
 * The worker of bench/synthesize-corpus.ts that makes minimal inputs with the contract suite's
 * generator: apart, so that a schema the generator takes minutes over (AWS::GroundStation::Config)
 * is given up after a timeout instead of stopping the benchmark.
 */
import { parentPort } from 'node:worker_threads';
import fc from 'fast-check';
import { inputGenerator } from '../src/contract/generate.js';
import { readSchemaType } from '../src/contract/index.js';
import type { Model } from '../src/model/index.js';

const SAMPLES = 8;

parentPort!.on('message', async ({ file, seed }: { file: string; seed: number }) => {
  let inputs: Model[] = [];
  try {
    const generator = inputGenerator(await readSchemaType(file), { extraItems: 0, mapEntries: 1 });
    // A few inputs, those with the fewest values first.
    if (!generator.problem)
      inputs = fc
        .sample(generator.create, { seed, numRuns: SAMPLES })
        .sort((a, b) => JSON.stringify(a).length - JSON.stringify(b).length);
  } catch {
    inputs = [];
  }
  parentPort!.postMessage({ inputs });
});

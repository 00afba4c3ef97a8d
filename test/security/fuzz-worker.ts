/**
 * Runs {@link runFuzz} in a worker thread, so the client (generation, HTTP) and a server in the main
 * thread each have a core. Started by {@link runFuzzInWorker}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runFuzz, type FuzzOptions } from './fuzz-requests.js';

const options = workerData as Omit<FuzzOptions, 'onBatch'>;
const report = await runFuzz({ ...options, onBatch: (done) => parentPort!.postMessage({ progress: done }) });
parentPort!.postMessage({ report });

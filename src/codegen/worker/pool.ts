/**
 * @module The generator threads: artifacts are rendered and compressed by a few worker threads, so
 * that making the OpenAPI document of a large registry (seconds) never holds the server's event loop.
 *
 * The work is bounded three ways: jobs wait in a queue of fixed length, one caller has at most a few
 * jobs waiting or running, and a job that runs past its time limit is stopped with its thread (a
 * fresh thread takes the next job). A job refused or stopped for any of these is a `GeneratorBusy`
 * error carrying how long to wait before asking again. Threads start with the first job and stop
 * when idle, so a server nobody asks for artifacts holds no generator memory.
 */
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { TypeplaneError } from '../../errors.js';
import type { ArtifactName } from '../artifact.js';
import type { AnswerMessage, Encodings, JobMessage } from './messages.js';

export interface GeneratorLimits {
  threads: number;
  /** Jobs waiting for a thread, all callers together. */
  queueLength: number;
  /** Jobs of one caller, waiting or running. */
  perCaller: number;
  /** How long one job may run before its thread is stopped. */
  timeoutMs: number;
  /** How long a thread without work is kept. */
  idleMs: number;
  /** A thread's heap; a job needing more fails alone. */
  heapMb: number;
}

export const GENERATOR_LIMITS: GeneratorLimits = {
  // Leave a core to the event loop.
  threads: Math.min(2, Math.max(1, availableParallelism() - 1)),
  queueLength: 32,
  perCaller: 4,
  timeoutMs: 60_000,
  idleMs: 30_000,
  // Making the corpus's OpenAPI document (1,489 types, 21 MB) takes a few hundred MB.
  heapMb: 1024,
};

/** The size of one part of a job's models sent to a thread. */
const PART_CHARS = 512 * 1024;

export interface GeneratedArtifact {
  contentType: string;
  /** The body in each content coding it is served in (`identity` always; the others when large). */
  encodings: { identity: Buffer; gzip?: Buffer | undefined; br?: Buffer | undefined };
}

/** The generator cannot take or finish the job now: answer with Retry-After. */
export class GeneratorBusy extends TypeplaneError {
  constructor(
    message: string,
    status: 429 | 503,
    readonly retryAfterSeconds: number,
  ) {
    super('Throttling', message, [], status);
  }
}

interface Job {
  id: number;
  label: string;
  caller: string;
  startedAt: number;
  resolve(artifact: GeneratedArtifact | undefined): void;
  reject(error: Error): void;
}

interface Thread {
  worker?: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
  idle?: NodeJS.Timeout;
}

export class ArtifactGenerator {
  private readonly threads: Thread[];
  private readonly queue: { job: Job; artifact: ArtifactName; texts: readonly string[] }[] = [];
  private readonly perCaller = new Map<string, number>();
  private nextId = 1;
  /** A running mean of job times, for Retry-After. */
  private meanMs = 1000;
  private closed = false;

  constructor(private readonly limits: GeneratorLimits = GENERATOR_LIMITS) {
    this.threads = Array.from({ length: limits.threads }, () => ({}));
  }

  /**
   * Render `artifact` from the models `texts` (JSON, in order) on a generator thread; undefined when
   * it does not exist among them. `caller` names who asked (its jobs are bounded), `label` the
   * artifact in messages. Throws GeneratorBusy at once when the queue or the caller's share is full.
   */
  run(
    artifact: ArtifactName,
    texts: readonly string[],
    caller: string,
    label: string,
  ): Promise<GeneratedArtifact | undefined> {
    if (this.closed) throw new GeneratorBusy('the server is stopping; ask again in a moment', 503, 1);
    const mine = this.perCaller.get(caller) ?? 0;
    if (mine >= this.limits.perCaller)
      throw new GeneratorBusy(
        `this token has ${mine} artifacts being generated already (at most ${this.limits.perCaller}); ask for ${label} again when one of them is answered`,
        429,
        this.retryAfter(),
      );
    if (this.queue.length >= this.limits.queueLength)
      throw new GeneratorBusy(
        `${this.queue.length} artifacts are waiting to be generated (at most ${this.limits.queueLength}); ask for ${label} again later`,
        503,
        this.retryAfter(),
      );
    this.perCaller.set(caller, mine + 1);
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.queue.push({ job: { id, label, caller, startedAt: 0, resolve, reject }, artifact, texts });
      this.dispatch();
    });
  }

  /** Refuse new jobs, fail the waiting and running ones, and stop the threads. */
  async close(): Promise<void> {
    this.closed = true;
    for (const { job } of this.queue.splice(0)) {
      this.release(job);
      job.reject(new GeneratorBusy('the server is stopping; ask again in a moment', 503, 1));
    }
    await Promise.all(
      this.threads.map((thread) => {
        const { worker } = thread;
        const job = this.finish(thread);
        job?.reject(new GeneratorBusy('the server is stopping; ask again in a moment', 503, 1));
        clearTimeout(thread.idle);
        thread.worker = undefined;
        return worker?.terminate();
      }),
    );
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread.job) continue;
      const next = this.queue.shift();
      if (!next) return;
      clearTimeout(thread.idle);
      const worker = (thread.worker ??= this.spawn(thread));
      thread.job = next.job;
      next.job.startedAt = performance.now();
      thread.timer = setTimeout(() => this.stopRunaway(thread), this.limits.timeoutMs);
      void this.send(thread, worker, next.job, next.artifact, next.texts);
    }
  }

  /**
   * A job's models in parts of about PART_CHARS, a turn of the event loop apart (a message is copied
   * on this thread: the corpus's 9 MB at once would hold it for tens of milliseconds), then its render.
   */
  private async send(
    thread: Thread,
    worker: Worker,
    job: Job,
    artifact: ArtifactName,
    texts: readonly string[],
  ): Promise<void> {
    const post = (message: JobMessage) => worker.postMessage(message);
    let part: string[] = [];
    let chars = 0;
    for (const text of texts) {
      part.push(text);
      chars += text.length;
      if (chars < PART_CHARS) continue;
      post({ kind: 'types', id: job.id, texts: part });
      part = [];
      chars = 0;
      await new Promise((resolve) => setImmediate(resolve));
      // Stopped meanwhile (time limit, close): its thread is gone.
      if (thread.job !== job || thread.worker !== worker) return;
    }
    if (part.length > 0) post({ kind: 'types', id: job.id, texts: part });
    post({ kind: 'render', id: job.id, artifact });
  }

  private spawn(thread: Thread): Worker {
    const worker = startThread({ resourceLimits: { maxOldGenerationSizeMb: this.limits.heapMb } });
    // Never what keeps a process alive.
    worker.unref();
    worker.on('message', (answer: AnswerMessage) => {
      if (thread.worker !== worker || thread.job?.id !== answer.id) return;
      const job = this.finish(thread)!;
      this.meanMs = 0.8 * this.meanMs + 0.2 * (performance.now() - job.startedAt);
      if ('error' in answer)
        job.reject(new TypeplaneError('InternalFailure', `generating ${job.label} failed: ${answer.error}`));
      else if (!answer.found) job.resolve(undefined);
      else job.resolve({ contentType: answer.contentType, encodings: buffers(answer.encodings) });
      this.dispatch();
      if (!thread.job) thread.idle = setTimeout(() => this.retire(thread), this.limits.idleMs).unref();
    });
    const lost = (reason: string) => {
      if (thread.worker !== worker) return;
      thread.worker = undefined;
      const job = this.finish(thread);
      job?.reject(
        new TypeplaneError(
          'InternalFailure',
          `generating ${job.label} failed: the generator thread ${reason}`,
        ),
      );
      this.dispatch();
    };
    worker.on('error', (error) =>
      lost(
        (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `needed more than ${this.limits.heapMb} MB`
          : `failed (${error.message})`,
      ),
    );
    worker.on('exit', (code) => lost(`exited (${code})`));
    return worker;
  }

  /** A job past its time limit: its thread is stopped (the only way to stop a synchronous render). */
  private stopRunaway(thread: Thread): void {
    const { worker } = thread;
    thread.worker = undefined;
    const job = this.finish(thread);
    void worker?.terminate();
    job?.reject(
      new GeneratorBusy(
        `generating ${job.label} took longer than ${this.limits.timeoutMs / 1000} s and was stopped; ask again later`,
        503,
        this.retryAfter(),
      ),
    );
    this.dispatch();
  }

  private retire(thread: Thread): void {
    if (thread.job || !thread.worker) return;
    void thread.worker.terminate();
    thread.worker = undefined;
  }

  private finish(thread: Thread): Job | undefined {
    clearTimeout(thread.timer);
    const job = thread.job;
    thread.job = undefined;
    if (job) this.release(job);
    return job;
  }

  private release(job: Job): void {
    const left = (this.perCaller.get(job.caller) ?? 1) - 1;
    if (left > 0) this.perCaller.set(job.caller, left);
    else this.perCaller.delete(job.caller);
  }

  /** Seconds until a job asked for now would likely start. */
  private retryAfter(): number {
    const waits = 1 + this.queue.length / this.limits.threads;
    return Math.min(60, Math.max(1, Math.ceil((this.meanMs * waits) / 1000)));
  }
}

function buffers(encodings: Encodings): GeneratedArtifact['encodings'] {
  const wrap = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    identity: wrap(encodings.identity),
    gzip: encodings.gzip && wrap(encodings.gzip),
    br: encodings.br && wrap(encodings.br),
  };
}

/** The thread's module beside this one: `.js` when built, `.ts` when run from the sources under tsx. */
const THREAD = new URL(`./thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

function startThread(options: WorkerOptions): Worker {
  if (!THREAD.pathname.endsWith('.ts')) return new Worker(THREAD, options);
  // A worker does not inherit the loader hooks tsx registered in this thread (Node 20), so it
  // registers them itself before importing its module. tsx is only resolved here, from the sources.
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(THREAD.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

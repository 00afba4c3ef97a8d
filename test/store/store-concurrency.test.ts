import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { TS_NODE } from '../helpers/typescript.js';
import { T0, eachStore, freshStoreOf, openSpec, operation, resource, type StoreSpec } from './fixtures.js';

const worker = fileURLToPath(new URL('./workers/store-worker.ts', import.meta.url));

/** A worker process answering one JSON line per command. */
class Worker {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: AsyncIterator<string>;
  private stderr = '';

  constructor() {
    this.child = spawn(process.execPath, [...TS_NODE, worker]);
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  async next(): Promise<string> {
    const line = await this.lines.next();
    if (line.done) throw new Error(`worker exited: ${this.stderr}`);
    return line.value;
  }

  async ready(): Promise<void> {
    assert.equal(await this.next(), 'ready');
  }

  send(command: object): void {
    this.child.stdin.write(`${JSON.stringify(command)}\n`);
  }

  async result(): Promise<string[]> {
    return JSON.parse(await this.next()) as string[];
  }

  stop(): void {
    this.child.stdin.end();
  }
}

// Started once for the file: starting a TypeScript process is what takes time here.
const workers: Worker[] = [];
before(async () => {
  for (let n = 0; n < 3; n += 1) workers.push(new Worker());
  await Promise.all(workers.map((w) => w.ready()));
});
after(() => workers.forEach((w) => w.stop()));

/** Run one command in `processes` workers at once; their results in order. */
async function race(mode: string, spec: StoreSpec, processes: number, count = 0): Promise<string[][]> {
  const racing = workers.slice(0, processes);
  racing.forEach((w, n) => w.send({ mode, spec, owner: `p${n}`, count }));
  return Promise.all(racing.map((w) => w.result()));
}

eachStore(
  'processes racing to begin operations on the same resources: exactly one starts on each',
  async (t, kind) => {
    const { spec } = await freshStoreOf(t, kind);
    const count = 200;
    const results = await race('begin', spec, 3, count);
    for (let n = 0; n < count; n += 1) {
      const kinds = results.map((r) => r[n]);
      assert.equal(kinds.filter((k) => k === 'started').length, 1, `res-${n}: ${kinds.join(',')}`);
      assert.equal(kinds.filter((k) => k === 'conflict').length, 2, `res-${n}: ${kinds.join(',')}`);
    }
  },
);

eachStore(
  'processes racing with the same client token: exactly one starts, the others replay it',
  async (t, kind) => {
    const { store, spec } = await freshStoreOf(t, kind);
    const count = 200;
    const results = await race('token', spec, 3, count);
    for (let n = 0; n < count; n += 1) {
      const kinds = results.map((r) => r[n]);
      assert.deepEqual([...kinds].sort(), ['replayed', 'replayed', 'started'], `ct-${n}`);
    }
    assert.equal((await store.listOperations({}, { limit: 1000 })).items.length, count);
  },
);

eachStore('processes racing to claim operations: each is leased to exactly one', async (t, kind) => {
  const { store, spec } = await freshStoreOf(t, kind);
  const tokens: string[] = [];
  for (let n = 0; n < 200; n += 1) {
    const op = operation({ identifier: `c${n}` });
    await store.beginOperation(op);
    tokens.push(op.requestToken);
  }
  const claimed = (await race('claim', spec, 3)).flat();
  assert.equal(new Set(claimed).size, claimed.length, 'nothing claimed twice');
  assert.deepEqual([...claimed].sort(), [...tokens].sort(), 'everything claimed');
});

eachStore('two store instances on one store see each other’s writes at once', async (t, kind) => {
  const { store: a, spec } = await freshStoreOf(t, kind);
  const b = await openSpec(spec);
  t.after(() => b.close());

  const op = operation({ identifier: 'shared' });
  assert.equal((await a.beginOperation(op)).kind, 'started');
  assert.deepEqual(await b.beginOperation(operation({ identifier: 'shared' })), {
    kind: 'conflict',
    activeRequestToken: op.requestToken,
  });
  assert.equal((await a.claimOperations('a', T0, 60_000, 10)).length, 1);
  assert.deepEqual(await b.claimOperations('b', T0, 60_000, 10), []);
  await b.finishOperation({ ...op, status: 'SUCCESS' }, { kind: 'put', resource: resource('shared') });
  assert.ok(await a.getResource('Acme::Test::Thing', 'shared'));
  assert.equal((await a.getOperation(op.requestToken))?.status, 'SUCCESS');
});

/**
 * Concurrency faults: 50 clients patch one resource at once. Each patch must be either applied or
 * refused (`ResourceConflict` at once or as a FAILED event; `InvalidRequest` when its own `test`
 * operation no longer holds). The applied ones, in the order their operations ran, replayed on the
 * first state by a sequential model, must give exactly the final state: no update lost, none applied
 * to a state it did not see.
 *
 * Run against one server, and against two servers sharing one store (replicas: over one SQLite file,
 * and over one PostgreSQL database); with the state provider and with a provider of the type's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, startTestService, tempDir, type TestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { PG_URL, freshSchema, pgSkip } from '../helpers/postgres.js';
import type { HandlerRequest, Provider } from '../../src/handler/types.js';
import { authHeaders, fetchJson, mulberry32, sleep } from './helpers.js';

const T = encodeURIComponent(WIDGET_TYPE);
const CLIENTS = 50;
const SEED = Number(process.env.FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));

interface Outcome {
  client: number;
  /** applied, or why not. */
  verdict: 'SUCCESS' | 'ResourceConflict' | 'InvalidRequest';
  requestToken?: string;
  resourceModel?: { Count?: number; Labels?: string[] };
  /** The Count the client read before patching (the test+replace mode). */
  sawCount?: number;
}

type Mode = 'append' | 'test-and-increment';

/** Each client sends one PATCH (after reading the resource, in test-and-increment) and follows it to its end. */
async function runClients(servers: TestService[], mode: Mode, name: string): Promise<Outcome[]> {
  const random = mulberry32(SEED);
  const delays = Array.from({ length: CLIENTS }, () => random() * 20);
  return Promise.all(
    Array.from({ length: CLIENTS }, async (_, client): Promise<Outcome> => {
      const server = servers[client % servers.length]!;
      await sleep(delays[client]!);
      const patchDocument: unknown[] = [];
      let sawCount: number | undefined;
      if (mode === 'test-and-increment') {
        const read = await fetchJson(
          server.url,
          'GET',
          `/v1/resources/${T}/${name}`,
          undefined,
          authHeaders(server),
        );
        assert.equal(read.status, 200, JSON.stringify(read.body));
        sawCount = read.body.properties.Count as number;
        patchDocument.push(
          { op: 'test', path: '/Count', value: sawCount },
          { op: 'replace', path: '/Count', value: sawCount + 1 },
        );
      }
      patchDocument.push({ op: 'add', path: '/Labels/-', value: `c${client}` });
      const res = await fetchJson(
        server.url,
        'PATCH',
        `/v1/resources/${T}/${name}?wait=30`,
        { patchDocument, clientToken: `${name}-${client}` },
        authHeaders(server),
      );
      const base = { client, ...(sawCount === undefined ? {} : { sawCount }) };
      if (res.status === 409 || res.status === 400) {
        assert.ok(
          res.body.errorCode === 'ResourceConflict' ||
            (mode === 'test-and-increment' && res.body.errorCode === 'InvalidRequest'),
          `client ${client}: ${JSON.stringify(res.body)}`,
        );
        return { ...base, verdict: res.body.errorCode };
      }
      assert.equal(res.status, 202, `client ${client}: ${JSON.stringify(res.body)}`);
      const event = res.body.progressEvent;
      if (event.operationStatus === 'SUCCESS')
        return {
          ...base,
          verdict: 'SUCCESS',
          requestToken: event.requestToken,
          resourceModel: event.resourceModel,
        };
      assert.equal(event.operationStatus, 'FAILED', `client ${client}: not terminal after 30 s`);
      assert.equal(event.errorCode, 'ResourceConflict', `client ${client}: ${JSON.stringify(event)}`);
      return { ...base, verdict: 'ResourceConflict', requestToken: event.requestToken };
    }),
  );
}

/** The UPDATE operations on the resource that succeeded, in the order they ran (the store's start order). */
async function appliedInOrder(server: TestService, tokens: Set<string>): Promise<string[]> {
  const newestFirst: string[] = [];
  let next: string | null = null;
  do {
    const q: string = next ? `&nextToken=${encodeURIComponent(next)}` : '';
    const page = await fetchJson(
      server.url,
      'GET',
      `/v1/requests?operation=UPDATE&status=SUCCESS&maxResults=1000${q}`,
      undefined,
      authHeaders(server),
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    for (const e of page.body.progressEvents as { requestToken: string }[])
      if (tokens.has(e.requestToken)) newestFirst.push(e.requestToken);
    next = page.body.nextToken;
  } while (next);
  return newestFirst.reverse();
}

async function checkAgainstModel(servers: TestService[], mode: Mode, name: string): Promise<string> {
  const [first] = servers as [TestService];
  const created = await fetchJson(
    first.url,
    'POST',
    `/v1/resources/${T}?wait=10`,
    { desiredState: { Name: name, Count: 0, Labels: [] } },
    authHeaders(first),
  );
  assert.equal(created.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(created.body));

  const outcomes = await runClients(servers, mode, name);
  const applied = outcomes.filter((o) => o.verdict === 'SUCCESS');
  const byToken = new Map(applied.map((o) => [o.requestToken!, o]));
  const order = (await appliedInOrder(first, new Set(byToken.keys()))).map((t) => byToken.get(t)!);
  assert.equal(order.length, applied.length, 'every applied update is a SUCCESS operation in the store');

  // The sequential model: the applied patches, one after another, on the created state.
  const model = { Name: name, Size: 'S', Count: 0, Labels: [] as string[] };
  const problems: string[] = [];
  for (const o of order) {
    if (mode === 'test-and-increment') {
      if (o.sawCount !== model.Count)
        problems.push(
          `c${o.client} was applied to Count ${model.Count}, but its test was for Count ${o.sawCount}`,
        );
      model.Count += 1;
    }
    model.Labels.push(`c${o.client}`);
    // What the operation reported is the model at its turn.
    const reported = {
      Labels: o.resourceModel?.Labels,
      ...(mode === 'test-and-increment' ? { Count: o.resourceModel?.Count } : {}),
    };
    const expected = {
      Labels: [...model.Labels],
      ...(mode === 'test-and-increment' ? { Count: model.Count } : {}),
    };
    if (JSON.stringify(reported) !== JSON.stringify(expected))
      problems.push(
        `c${o.client} reported ${JSON.stringify(reported)}, the model says ${JSON.stringify(expected)}`,
      );
  }
  for (const server of servers) {
    const read = await fetchJson(
      server.url,
      'GET',
      `/v1/resources/${T}/${name}`,
      undefined,
      authHeaders(server),
    );
    assert.equal(read.status, 200);
    const final = { Count: read.body.properties.Count, Labels: read.body.properties.Labels };
    const expected = { Count: model.Count, Labels: model.Labels };
    if (JSON.stringify(final) !== JSON.stringify(expected))
      problems.push(`final state ${JSON.stringify(final)} is not the model's ${JSON.stringify(expected)}`);
  }
  const summary = `${applied.length} applied, ${outcomes.filter((o) => o.verdict === 'ResourceConflict').length} ResourceConflict, ${outcomes.filter((o) => o.verdict === 'InvalidRequest').length} InvalidRequest (test failed)`;
  assert.ok(applied.length > 0, 'at least one update applied');
  assert.deepEqual(problems, [], `lost or misapplied updates (seed ${SEED}; ${summary})`);
  return summary;
}

/**
 * Served by the state provider (the engine's own record) and by a provider of its own, an in-process
 * one that takes a few milliseconds per call (as any real one does), so the engine's general update
 * path, handler in between, is exercised too.
 */
type Serving = 'state' | 'provider';

function slowMemoryProvider(): Provider {
  const slow =
    (action: 'create' | 'update') =>
    async (req: HandlerRequest, store: Map<string, Record<string, unknown>>) => {
      await sleep(2);
      const key = String(req.desiredState.Name);
      if (action === 'update' && !store.has(key))
        return { status: 'FAILED' as const, errorCode: 'NotFound' as const };
      store.set(key, req.desiredState);
      return { status: 'SUCCESS' as const, resourceModel: req.desiredState };
    };
  return memoryProvider({ create: slow('create'), update: slow('update') }, 'slow-memory');
}

for (const serving of ['state', 'provider'] as const satisfies readonly Serving[]) {
  const providers = () =>
    serving === 'provider' ? { providers: new Map([[WIDGET_TYPE, slowMemoryProvider()]]) } : {};
  for (const mode of ['append', 'test-and-increment'] as const) {
    const tag = `${serving[0]}${mode[0]}`;
    test(`${CLIENTS} clients patching one resource (${mode}, ${serving}): each applied in order or refused, none lost`, async (t) => {
      t.diagnostic(`seed ${SEED}`);
      const server = await startTestService(providers());
      try {
        assert.equal((await server.call('POST', '/v1/types', WIDGET, authHeaders(server))).status, 201);
        t.diagnostic(await checkAgainstModel([server], mode, `one-${tag}`));
      } finally {
        await server.close();
      }
    });

    test(`${CLIENTS} clients patching one resource through two servers over one SQLite file (${mode}, ${serving})`, async (t) => {
      t.diagnostic(`seed ${SEED}`);
      const dataDir = tempDir();
      // Replicas of one deployment: the same provider behind both (one in-process instance here).
      const shared = providers();
      const a = await startTestService({ dataDir, leaseMs: 2000, ...shared });
      const b = await startTestService({ dataDir, leaseMs: 2000, ...shared });
      try {
        assert.equal((await a.call('POST', '/v1/types', WIDGET, authHeaders(a))).status, 201);
        t.diagnostic(await checkAgainstModel([a, b], mode, `two-${tag}`));
      } finally {
        await a.close();
        await b.close();
      }
    });

    test(
      `${CLIENTS} clients patching one resource through two servers over one PostgreSQL database (${mode}, ${serving})`,
      { skip: pgSkip },
      async (t) => {
        t.diagnostic(`seed ${SEED}`);
        // The replicas share the database and the secret key (here: the key file of one data folder).
        const dataDir = tempDir();
        const database = { url: PG_URL, schema: freshSchema(t) };
        const shared = providers();
        const a = await startTestService({ dataDir, database, leaseMs: 2000, ...shared });
        const b = await startTestService({ dataDir, database, leaseMs: 2000, ...shared });
        try {
          assert.equal((await a.call('POST', '/v1/types', WIDGET, authHeaders(a))).status, 201);
          t.diagnostic(await checkAgainstModel([a, b], mode, `pg-${tag}`));
        } finally {
          await a.close();
          await b.close();
        }
      },
    );
  }
}

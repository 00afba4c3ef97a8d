/**
 * Crash faults: a real `typeplane serve` process is killed with SIGKILL several times, at seeded random
 * moments, while 1,000 clients create resources with client tokens. After each kill it is restarted
 * on the same data; every client keeps sending its one call with its one token until it gets an
 * answer, then follows the operation to a terminal status.
 *
 * Half the resources are files (the built-in file provider: what it holds is the files on disk), half
 * are widgets served by the state provider (what it holds is its kv rows). Either way, what the
 * provider holds must be exactly what the store's index knows: nothing lost, nothing duplicated,
 * nothing leaked.
 *
 * Run with the embedded SQLite store, and with the PostgreSQL store (skipped when no server answers).
 * Replay a failure with FAULT_SEED=<the printed seed>.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { WIDGET, WIDGET_TYPE, spawnServer, tempDir } from '../helpers/service.js';
import { PG_URL, freshSchema, pgQuery, pgSkip } from '../helpers/postgres.js';
import { authHeaders, fetchJson, mulberry32, sleep, stopServer } from './helpers.js';

const N = 1000;
const KILLS = 3;
/** How long clients may take to end once the last restarted server is up (the kills take their own time). */
const GIVE_UP_MS = 45_000;
const FILE_TYPE = 'Typeplane::Local::File';
const SEED = Number(process.env.FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));

type Server = Awaited<ReturnType<typeof spawnServer>>;

/** Rows of the store the servers used, read independently of the API. */
type Query = (sql: string, values: unknown[]) => Promise<Record<string, unknown>[]>;

for (const kind of ['sqlite', 'postgresql'] as const)
  test(
    `${N} concurrent creates with client tokens survive ${KILLS} SIGKILLs: all terminal, none lost, duplicated or leaked [${kind}]`,
    { timeout: 120_000, skip: kind === 'postgresql' ? pgSkip : false },
    async (t) => {
      t.diagnostic(`seed ${SEED} (replay with FAULT_SEED=${SEED})`);
      const random = mulberry32(SEED);
      const started = Date.now();
      let giveUpAt = Number.POSITIVE_INFINITY;
      const dir = tempDir('typeplane-crash-');
      const dataDir = join(dir, 'data');
      const filesRoot = join(dir, 'files');
      const config = join(dir, 'typeplane.config.yaml');
      writeFileSync(
        config,
        `providers:\n  - builtin: file\n    config: { root: ${JSON.stringify(filesRoot)} }\n`,
      );
      // One admin token across restarts, as an operator's would be.
      const env = { TYPEPLANE_ADMIN_TOKEN: randomBytes(32).toString('base64url') };
      const schema = kind === 'postgresql' ? freshSchema(t) : undefined;
      const storeArgs = schema ? ['--database-url', PG_URL, '--database-schema', schema] : [];
      const serve = () => spawnServer(dataDir, ['--config', config, '--lease', '1', ...storeArgs], env);

      // The server the clients talk to now; undefined while it is down.
      let server: Server | undefined = await serve();
      const headers = () => authHeaders(server);
      const url = () => server?.url;
      {
        const res = await fetchJson(url()!, 'POST', '/v1/types', WIDGET, headers());
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }

      const call = (i: number) =>
        i % 2 === 0
          ? {
              type: FILE_TYPE,
              body: {
                desiredState: { Path: `d${i % 7}/f${i}.txt`, Content: `content ${i}` },
                clientToken: `tok-${i}`,
              },
            }
          : {
              type: WIDGET_TYPE,
              body: {
                desiredState: { Name: `w${i}`, Color: `c${i}`, Secret: `s${i}` },
                clientToken: `tok-${i}`,
              },
            };

      // What the server logged as errors, for a failure's message (the answer only names a request id).
      const serverErrors = () =>
        (server?.logs() ?? '')
          .split('\n')
          .filter((line) => line.includes('"level":50'))
          .slice(-3)
          .join('\n');
      let networkErrors = 0;
      let throttled = 0;
      let finished = 0;
      /** One client: its call, sent again with the same token until answered, then followed to the end. */
      const client = async (i: number) => {
        const { type, body } = call(i);
        let requestToken: string | undefined;
        const tokens = new Set<string>();
        for (;;) {
          // A client never outlives the test, whatever goes wrong.
          if (Date.now() > giveUpAt)
            throw new Error(
              `client ${i} still not terminal ${GIVE_UP_MS} ms after the last restart (seed ${SEED})`,
            );
          const at = url();
          if (at === undefined) {
            await sleep(20);
            continue;
          }
          try {
            if (requestToken === undefined) {
              const res = await fetchJson(
                at,
                'POST',
                `/v1/resources/${encodeURIComponent(type)}`,
                body,
                headers(),
              );
              // A thousand requests of one token at once are more than its queue holds (fairness):
              // throttled, a client sends again after Retry-After, as the AWS SDK and the CLI do.
              if (res.status === 429) {
                throttled++;
                await sleep(500 + random() * 1000);
                continue;
              }
              assert.equal(res.status, 202, `client ${i}: ${JSON.stringify(res.body)}\n${serverErrors()}`);
              requestToken = res.body.progressEvent.requestToken as string;
              tokens.add(requestToken);
            }
            const res = await fetchJson(at, 'GET', `/v1/requests/${requestToken}`, undefined, headers());
            if (res.status === 429) {
              throttled++;
              await sleep(500 + random() * 1000);
              continue;
            }
            assert.equal(res.status, 200, `client ${i}: ${JSON.stringify(res.body)}\n${serverErrors()}`);
            const event = res.body.progressEvent;
            if (['SUCCESS', 'FAILED', 'CANCEL_COMPLETE'].includes(event.operationStatus)) {
              finished++;
              return { i, event, tokens };
            }
            // Not sooner: a thousand clients polling faster would be most of what the server does.
            await sleep(250);
          } catch (e) {
            if (e instanceof assert.AssertionError) throw e;
            networkErrors++;
            // The server is down (or going down): the answer may be lost; the token makes sending again safe.
            requestToken = undefined;
            await sleep(20 + random() * 80);
          }
        }
      };

      const clients = Array.from({ length: N }, (_, i) => client(i));
      const killLog: string[] = [];
      let killedMidway = false;
      try {
        for (let k = 0; k < KILLS; k++) {
          const delay = Math.round(150 + random() * 1350);
          await sleep(delay);
          const victim = server!;
          server = undefined;
          victim.child.kill('SIGKILL');
          await new Promise((r) => victim.child.once('exit', r));
          killLog.push(`kill ${k + 1} after ${delay} ms with ${finished} of ${N} terminal`);
          if (k === 0) killedMidway = finished < N;
          server = await serve();
        }
      } finally {
        giveUpAt = Date.now() + GIVE_UP_MS;
      }
      t.diagnostic(killLog.join(', '));
      let outcomes: Awaited<ReturnType<typeof client>>[];
      try {
        outcomes = await Promise.all(clients);
      } catch (e) {
        await stopServer(server);
        throw e;
      }
      t.diagnostic(
        `all ${N} clients terminal after ${Date.now() - started} ms; ${networkErrors} calls failed on the way, ${throttled} were throttled (429) and sent again`,
      );

      try {
        assert.ok(killedMidway, 'the first kill came while creates were still running');
        // Every operation terminal and successful, and each client's token named one operation only.
        assert.deepEqual(
          outcomes
            .filter((o) => o.event.operationStatus !== 'SUCCESS')
            .map((o) => [o.i, o.event.operationStatus, o.event.errorCode, o.event.statusMessage]),
          [],
          `every create ends in SUCCESS (seed ${SEED})`,
        );
        assert.deepEqual(
          outcomes.filter((o) => o.tokens.size !== 1).map((o) => [o.i, [...o.tokens]]),
          [],
          `a client token always gives back the same operation (seed ${SEED})`,
        );

        // Exactly one CREATE operation per client: a retry never started a second one.
        const creates: string[] = [];
        let next: string | null = null;
        do {
          const q: string = next ? `&nextToken=${encodeURIComponent(next)}` : '';
          const page = await fetchJson(
            server.url,
            'GET',
            `/v1/requests?operation=CREATE&maxResults=1000${q}`,
            undefined,
            headers(),
          );
          creates.push(...page.body.progressEvents.map((e: { requestToken: string }) => e.requestToken));
          next = page.body.nextToken;
        } while (next);
        assert.equal(creates.length, N, `${N} create operations, one per client token (seed ${SEED})`);
        assert.deepEqual(new Set(creates), new Set(outcomes.map((o) => o.event.requestToken)));

        // Every SUCCESS resource is readable and is what its client asked for.
        const listed = {
          [FILE_TYPE]: await listAll(server, FILE_TYPE),
          [WIDGET_TYPE]: await listAll(server, WIDGET_TYPE),
        };
        assert.equal(listed[FILE_TYPE].length, N / 2);
        assert.equal(listed[WIDGET_TYPE].length, N / 2);
        for (const ids of Object.values(listed)) assert.equal(new Set(ids).size, ids.length, 'no duplicates');
        for (let from = 0; from < N; from += 50) {
          await Promise.all(
            outcomes.slice(from, from + 50).map(async ({ i, event }) => {
              const { type, body } = call(i);
              const read = await fetchJson(
                server!.url,
                'GET',
                `/v1/resources/${encodeURIComponent(type)}/${encodeURIComponent(event.identifier)}`,
                undefined,
                headers(),
              );
              assert.equal(read.status, 200, `${type} ${event.identifier}: ${JSON.stringify(read.body)}`);
              if (type === FILE_TYPE) assert.equal(read.body.properties.Content, body.desiredState.Content);
              else assert.equal(read.body.properties.Color, (body.desiredState as { Color: string }).Color);
            }),
          );
        }
      } finally {
        await stopServer(server);
      }

      // What the providers hold, read independently of the API, is exactly what the index knows.
      let query: Query;
      let done = async () => undefined as void;
      if (schema) {
        query = (sql, values) =>
          pgQuery(sql.replaceAll('FROM ', `FROM ${schema}.`).replaceAll('$?', '$1'), values);
      } else {
        const db = new Database(join(dataDir, 'typeplane.db'), { readonly: true });
        query = async (sql, values) =>
          db.prepare(sql.replaceAll('$?', '?')).all(...values) as Record<string, unknown>[];
        done = async () => void db.close();
      }
      const index = async (type: string) =>
        (
          await query('SELECT identifier FROM resources WHERE type_name = $? ORDER BY identifier', [type])
        ).map((r) => r.identifier as string);
      // The state provider's resources are the engine's record, written with their operation in one
      // transaction: the successful creates and the rows are the same set.
      const created = (
        await query(
          `SELECT identifier FROM operations WHERE type_name = $? AND operation = 'CREATE' AND status = 'SUCCESS' ORDER BY identifier`,
          [WIDGET_TYPE],
        )
      ).map((r) => r.identifier as string);
      const [active] = await query(
        `SELECT COUNT(*) AS n FROM operations WHERE status NOT IN ('SUCCESS','FAILED','CANCEL_COMPLETE')`,
        [],
      );
      const fileIndex = await index(FILE_TYPE);
      const widgetIndex = await index(WIDGET_TYPE);
      await done();
      assert.equal(Number(active?.n), 0, 'no operation left active');
      assert.deepEqual(created, widgetIndex, `state provider creates = index (seed ${SEED})`);
      assert.equal(widgetIndex.length, N / 2);
      assert.deepEqual(filesOnDisk(filesRoot), [...fileIndex].sort(), `files on disk = index (seed ${SEED})`);
      assert.equal(fileIndex.length, N / 2);
      t.diagnostic(`done in ${Date.now() - started} ms`);
    },
  );

async function listAll(server: Server, type: string): Promise<string[]> {
  const ids: string[] = [];
  let next: string | null = null;
  do {
    const q: string = next ? `&nextToken=${encodeURIComponent(next)}` : '';
    const page = await fetchJson(
      server.url,
      'GET',
      `/v1/resources/${encodeURIComponent(type)}?maxResults=1000${q}`,
      undefined,
      authHeaders(server),
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    ids.push(...page.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier));
    next = page.body.nextToken;
  } while (next);
  return ids;
}

/** Regular files under the root, as root-relative paths, leaving out the provider's own bookkeeping. */
function filesOnDisk(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string, prefix: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.typeplane')) continue;
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(join(folder, entry.name), relative);
      else found.push(relative);
    }
  };
  walk(root, '');
  return found.sort();
}

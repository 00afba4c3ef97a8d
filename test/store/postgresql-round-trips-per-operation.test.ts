/**
 * What each create, read, update and delete costs the PostgreSQL store, in figures that do not depend
 * on the machine: round trips to the database (each a write of requests that the store then waits on)
 * and the queries they carried. Each is held under a ceiling, so a change that adds a round trip or a
 * query to every create fails here, saying which figure grew and listing the queries. The figures are
 * printed (diagnostics) to make lowering a ceiling easy. Skips without a PostgreSQL server (fails
 * under CI), as the other PostgreSQL tests do.
 *
 * A real server in this process over real HTTP on loopback, its store in a fresh schema, one request
 * at a time, a type served by the state provider (as bench/api.ts's). The meter wraps the store's
 * connections as they connect: the queries each is asked (`query`), and its socket's writes (`_write`,
 * `_writev`: one per flush of what was sent together).
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropSchema, PG_URL, pgSkip } from '../helpers/postgres.js';
import { mostCommon } from '../helpers/most-common.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { widgetSchema } from '../helpers/widget-schema.js';

/** Resources created, read, updated and deleted, each measured. */
const N = 8;
const KINDS = ['create', 'read', 'update', 'delete'] as const;
type Kind = (typeof KINDS)[number];

interface Figures {
  /** Writes to the database's sockets, each followed by a wait for the answers: what most of the N took. */
  roundTrips: number;
  /** Queries sent (a text of several statements, as BEGIN with its locks, counts each statement), as most sent. */
  statements: number;
  /**
   * Statements the server was sent as text to parse, as written to the socket (Parse messages, and the
   * statements of simple Query messages): the store's connections prepare every statement with values
   * once (PreparingClient) and then only bind it, so a warm connection parses only BEGIN, the advisory
   * locks and COMMIT.
   */
  parsed: number;
}

const TYPE = widgetSchema('Test::RoundTrips::Widget');

/*
 * The ceilings: the figures measured as this file was written (before it, a create took 5 round
 * trips, an update 6, a delete 9). A record-backed mutation is one transaction in two round trips:
 * - create: BEGIN with the resource's lock and the type's (shared: a new default version waits), one
 *   statement that checks no operation is in progress on it and the default version has not moved and
 *   inserts the operation (already SUCCESS) and the resource (an INSERT: the key taken refuses it, as a
 *   client token used before does), and COMMIT = 1 round trip, 5 statements. (Refused, it is decided
 *   again after reading what is there, as the others are: 2 round trips more.)
 * - update: the engine reads the resource first (outside the transaction, to patch it); then as a
 *   create, the resource replaced instead of inserted = 3 round trips, 8 statements.
 * - delete: the engine reads the resource and its referrers first (outside, one round trip each); then
 *   as a create (the type's lock not taken: a delete checks no default version), the resource, its
 *   references and its additional identifiers deleted = 4 round trips, 10 statements.
 * - read: the resource = 1 round trip, 1 statement.
 * Parsed: every statement that reads or writes a row is prepared on its connection's first use and
 * bound by name afterwards (a create's is over a kilobyte of SQL); only BEGIN, the advisory locks (the
 * type's too, but for a delete) and COMMIT are sent as text. A query made to bypass the preparing
 * client (a config object without a name, say) shows here as one more parsed statement.
 */
const CEILINGS: Record<Kind, Figures> = {
  create: { roundTrips: 1, statements: 5, parsed: 4 },
  read: { roundTrips: 1, statements: 1, parsed: 0 },
  update: { roundTrips: 3, statements: 8, parsed: 4 },
  delete: { roundTrips: 4, statements: 10, parsed: 3 },
};

/** What the store's connections were asked and wrote since the last take. */
interface Tally {
  roundTrips: number;
  statements: number;
  parsed: number;
  log: string[];
}

const statementsIn = (text: string) => text.split(';').filter((s) => s.trim() !== '').length;

/**
 * The statements a buffer written to the server hands it to parse: a Parse message ('P', the extended
 * protocol) is one; a Query message ('Q', the simple protocol) holds a text of several. pg writes each
 * message as a buffer of its own.
 */
function parsedIn(chunk: unknown): number {
  if (!Buffer.isBuffer(chunk) || chunk.length < 5) return 0;
  if (chunk[0] === 0x50) return 1;
  // Q, its length (4 bytes), then the text, NUL-terminated.
  if (chunk[0] === 0x51) return statementsIn(chunk.toString('utf8', 5, chunk.indexOf(0, 5)));
  return 0;
}

/** Meters every pg client that connects from now on; `stop` puts pg back as it was. */
function meterConnections(): { take(): Tally; stop(): void } {
  let tally: Tally = { roundTrips: 0, statements: 0, parsed: 0, log: [] };
  const connect = pg.Client.prototype.connect;
  // A connection's writes are counted once it is ready: its start-up exchange is not a request's.
  pg.Client.prototype.connect = function (this: pg.Client, ...args: unknown[]) {
    this.once('connect', () => {
      const socket = this.connection.stream as unknown as Record<
        '_write' | '_writev',
        (...a: unknown[]) => unknown
      >;
      for (const method of ['_write', '_writev'] as const) {
        const write = socket[method];
        socket[method] = function (this: unknown, ...a: unknown[]) {
          tally.roundTrips++;
          const chunks = method === '_writev' ? (a[0] as { chunk: unknown }[]).map((c) => c.chunk) : [a[0]];
          for (const chunk of chunks) tally.parsed += parsedIn(chunk);
          return write.apply(this, a);
        };
      }
      const query = this.query;
      this.query = function (this: pg.Client, ...a: unknown[]) {
        const config = a[0] as string | { text?: string };
        const text = typeof config === 'string' ? config : (config.text ?? '');
        tally.statements += statementsIn(text);
        tally.log.push(text.replace(/\s+/g, ' ').slice(0, 100));
        return (query as (...b: unknown[]) => unknown).apply(this, a);
      } as typeof this.query;
    });
    return (connect as (...b: unknown[]) => unknown).apply(this, args);
  } as typeof connect;
  return {
    take() {
      const taken = tally;
      tally = { roundTrips: 0, statements: 0, parsed: 0, log: [] };
      return taken;
    },
    stop() {
      pg.Client.prototype.connect = connect;
    },
  };
}

const name = (i: number) => `r${String(i).padStart(2, '0')}`;

/** One operation of `kind` on resource `i`, which must succeed. */
async function operate(svc: TestService, kind: Kind, i: number): Promise<void> {
  const path = `/v1/resources/${encodeURIComponent(TYPE.typeName)}`;
  const id = name(i);
  const clientToken = `${kind}-${id}`;
  const answer =
    kind === 'create'
      ? await svc.call('POST', `${path}?wait=10`, {
          desiredState: { Name: id, Size: 'M', Color: 'blue', Count: i },
          clientToken,
        })
      : kind === 'read'
        ? await svc.call('GET', `${path}/${id}`)
        : kind === 'update'
          ? await svc.call('PATCH', `${path}/${id}?wait=10`, {
              patchDocument: [{ op: 'replace', path: '/Color', value: 'red' }],
              clientToken,
            })
          : await svc.call('DELETE', `${path}/${id}?wait=10`, { clientToken });
  const ok =
    kind === 'read' ? answer.status === 200 : answer.body?.progressEvent?.operationStatus === 'SUCCESS';
  assert.ok(ok, `${kind} of ${id}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
}

type Measured = Record<Kind, { figures: Figures; log: string[] }>;

/** A fresh server and schema; N operations of each kind, each measured alone. */
async function measure(): Promise<Measured> {
  const schema = `tp_round_trips_${randomBytes(6).toString('hex')}`;
  const meter = meterConnections();
  let svc: TestService | undefined;
  try {
    // No polling pass meanwhile: the engine's, the stacks' and the recipes' send queries of their own.
    svc = await startTestService({ database: { url: PG_URL, schema }, pollIntervalMs: 3_600_000 });
    assert.equal((await svc.call('POST', '/v1/types', TYPE)).status, 201);
    // The first operations fill caches (the type's registration stamp, the token's lookup).
    for (const kind of KINDS) await operate(svc, kind, 99);
    const measured = {} as Measured;
    for (const kind of KINDS) {
      const samples: Tally[] = [];
      for (let i = 0; i < N; i++) {
        meter.take();
        await operate(svc, kind, i);
        // Whatever the operation left to the next turns of the event loop is its cost too.
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
        samples.push(meter.take());
      }
      const key = (s: Tally) =>
        JSON.stringify({ roundTrips: s.roundTrips, statements: s.statements, parsed: s.parsed });
      const usual = mostCommon(samples.map(key));
      measured[kind] = {
        figures: JSON.parse(usual) as Figures,
        log: samples.find((s) => key(s) === usual)!.log,
      };
    }
    return measured;
  } finally {
    await svc?.close();
    meter.stop();
    await dropSchema(schema);
  }
}

let measured: Measured;
before(async () => {
  if (pgSkip === false) measured = await measure();
});

test('the meter sees the store', { skip: pgSkip }, () => {
  // A meter that sees no connection would count nothing, and every ceiling would hold.
  assert.ok(
    measured.read.figures.roundTrips > 0 && measured.read.figures.statements > 0,
    'no round trip or query seen for a read: the meter does not see the store',
  );
});

for (const kind of KINDS)
  test(`a ${kind} takes no more round trips and queries than its ceilings`, { skip: pgSkip }, (t) => {
    const { figures, log } = measured[kind];
    const ceilings = CEILINGS[kind];
    t.diagnostic(`${figures.roundTrips} round trips, ${figures.statements} statements: ${log.join(' | ')}`);
    const keys = Object.keys(ceilings) as (keyof Figures)[];
    for (const k of keys)
      if (figures[k] < ceilings[k])
        t.diagnostic(`below its ceiling: lower CEILINGS.${kind}.${k} to ${figures[k]}`);
    const grown = keys.filter((k) => figures[k] > ceilings[k]);
    assert.equal(
      grown.length,
      0,
      `a ${kind} costs more than its ceilings allow: ` +
        `${grown.map((k) => `${k} grew from ${ceilings[k]} to ${figures[k]}`).join('; ')}.\n` +
        `Queries: ${log.join(' | ')}.\n` +
        'Cut the added round trip (send it with another: the store pipelines), or raise the ceiling in this file with the reason in the commit message.',
    );
  });

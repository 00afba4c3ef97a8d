/**
 * What each create, read, update and delete costs the SQLite store, in figures that do not depend on
 * the machine: statements run, transactions, and frames appended to the WAL. Each is held under a
 * ceiling, so a change that adds a statement or a page write to every create fails here, saying which
 * figure grew. The figures are printed (diagnostics) to make lowering a ceiling easy.
 *
 * A real server in this process over real HTTP on loopback, one request at a time (each mutation its
 * own commit), types served by the state provider: a plain one, one with an additional identifier,
 * one with a write-only (sealed) property. Run three times on fresh files: the counts must not vary.
 * The server opens its store itself (startService takes no store), so its checkpointer may start; the
 * WAL meter's open reader keeps every frame in the WAL all the same (see test/helpers/sqlite-meter.ts).
 *
 * The resource counts' changes reach the file on a clock, not with each operation (at most once a
 * second, resource-counts.ts): on a loaded machine a flush lands in some run's operation and not in
 * another's. Their frames are set apart from the operations' and held to that rate instead.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';
import { mostCommon } from '../helpers/most-common.js';
import {
  COUNTS_TABLES,
  meterStatements,
  meterWal,
  type StatementTally,
  type WalMeter,
} from '../helpers/sqlite-meter.js';
import { widgetSchema } from '../helpers/widget-schema.js';

/** Resources of each type created, read, updated and deleted, each measured. */
const N = 8;
const KINDS = ['create', 'read', 'update', 'delete'] as const;
type Kind = (typeof KINDS)[number];

interface Figures {
  /**
   * Statements per operation, BEGIN/COMMIT and savepoints not counted: what most of the N ran (the API
   * token's lookup, cached for a second, falls into one of them now and then).
   */
  statements: number;
  /** Of those, INSERT, UPDATE and DELETE. */
  writes: number;
  /** BEGIN … COMMIT (and SAVEPOINT … RELEASE nested in one) per operation, as most ran. */
  transactions: number;
  /** WAL frames (pages written) by all N operations together: splits and file growth come now and then. */
  walFrames: number;
  /**
   * Temporary b-trees SQLite builds while running the operation's statements, each on every run
   * (test/helpers/sqlite-meter.ts): none. The four partial indexes of active operations, written
   * with `status IN` three statuses, built one each on every insert and update of an operation
   * (13–15 µs an insert, against 4–6 µs without).
   */
  temporary: number;
}

interface Case {
  schema: Record<string, unknown>;
  desired(i: number): Record<string, unknown>;
  patch(i: number): unknown[];
  ceilings: Record<Kind, Figures>;
}

const name = (i: number) => `r${String(i).padStart(2, '0')}`;

/*
 * The ceilings are the figures measured at 51e0225, less the client-token index's frame (migration 20),
 * and a delete's PRAGMA data_version (its token lookup reads what other connections committed first);
 * then less the resource_counts frame, plus the look at the counts' changes held in memory (migration
 * 21, resource-counts.ts); then less two statements a mutation, since its client token (when not
 * held in memory), whether an operation is in progress on the resource and the resource's row are
 * looked up in one statement (lookBefore). A record-backed
 * mutation is one transaction;
 * what its statements are for:
 * - create: PRAGMA data_version (whether another connection committed: if not, the default version
 *   checked against and the counts' holder are known in memory; once per group commit), one look: the
 *   client token (a replay answers the earlier operation), no active operation on the identifier, no
 *   resource with it; the operation inserted (already SUCCESS), the resource inserted = 4 statements,
 *   2 writes. (The counts' changes are held in memory since, not in a TEMP table whose look was a
 *   fifth statement once per group.)
 * - update: the engine reads the resource first (outside the transaction, to patch it); then as a
 *   create, the resource replaced instead of inserted = 5 statements, 2 writes.
 * - delete: the engine reads the resource and its referrers first (outside); then PRAGMA data_version,
 *   the look (client token, active operation, resource), referrers again (inside, where they cannot
 *   change), the operation inserted, the resource, its references and its additional identifiers
 *   deleted = 9 statements, 4 writes.
 * - read: the resource = 1 statement.
 * Each written row costs a page (a WAL frame) per b-tree it is in: an operation is in operations and
 * its request_token key (sqlite_autoindex_operations_1) — its client token reaches the token index
 * later, in a batch of thousands (client-tokens.ts) —; a resource in resources = 3 frames a create,
 * update or delete (a count's change reaches resource_counts once a second, not with each group).
 * Now and then a leaf splits (2 more pages) or the file grows (page 1, whose header counts the pages,
 * is written again).
 */
const CASES: Record<string, Case> = {
  // As bench/api.ts's Bench::Api::Widget.
  plain: {
    schema: widgetSchema('Test::Costs::Widget'),
    desired: (i) => ({ Name: name(i), Size: 'M', Color: 'blue', Count: i }),
    patch: () => [{ op: 'replace', path: '/Color', value: 'red' }],
    ceilings: {
      create: { statements: 4, writes: 2, transactions: 1, walFrames: 24, temporary: 0 },
      read: { statements: 1, writes: 0, transactions: 0, walFrames: 0, temporary: 0 },
      // 27: 3 each, 2 more operations pages (a leaf split) and page 1 once.
      update: { statements: 5, writes: 2, transactions: 1, walFrames: 27, temporary: 0 },
      delete: { statements: 9, writes: 4, transactions: 1, walFrames: 26, temporary: 0 },
    },
  },
  // The engine looks the Arn up before the transaction (an early AlreadyExists) and the store again inside
  // it, then deletes the resource's identifier rows and inserts them again: a create runs 4 statements
  // more, an update 3, both 2 writes more; a delete runs the same statements as plain. Every mutation
  // writes 2 frames more (resource_identifiers and resource_identifiers_of).
  'additional identifier': {
    schema: {
      typeName: 'Test::Costs::Named',
      description: 'A Name, and an Arn as unique as the Name.',
      properties: { Name: { type: 'string' }, Arn: { type: 'string' }, Color: { type: 'string' } },
      additionalProperties: false,
      required: ['Name'],
      primaryIdentifier: ['/properties/Name'],
      additionalIdentifiers: [['/properties/Arn']],
      createOnlyProperties: ['/properties/Name'],
    },
    desired: (i) => ({ Name: name(i), Arn: `arn:costs:${name(i)}`, Color: 'blue' }),
    patch: () => [{ op: 'replace', path: '/Color', value: 'red' }],
    ceilings: {
      create: { statements: 8, writes: 4, transactions: 1, walFrames: 42, temporary: 0 },
      read: { statements: 1, writes: 0, transactions: 0, walFrames: 0, temporary: 0 },
      // 42: each operation row keeps who asked (requested_by, the token's id), so one more leaf split.
      update: { statements: 8, writes: 4, transactions: 1, walFrames: 42, temporary: 0 },
      delete: { statements: 9, writes: 4, transactions: 1, walFrames: 40, temporary: 0 },
    },
  },
  // Sealing changes what a row holds, not how many are written: the same statements as plain.
  'write-only property': {
    schema: {
      typeName: 'Test::Costs::Login',
      description: 'A Name and a write-only Password, sealed at rest.',
      properties: { Name: { type: 'string' }, Password: { type: 'string' }, Color: { type: 'string' } },
      additionalProperties: false,
      required: ['Name'],
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
      writeOnlyProperties: ['/properties/Password'],
    },
    desired: (i) => ({ Name: name(i), Password: `secret-${name(i)}`, Color: 'blue' }),
    patch: (i) => [{ op: 'replace', path: '/Password', value: `rotated-${name(i)}` }],
    ceilings: {
      create: { statements: 4, writes: 2, transactions: 1, walFrames: 24, temporary: 0 },
      read: { statements: 1, writes: 0, transactions: 0, walFrames: 0, temporary: 0 },
      // 26: as additional identifier's, one more leaf split with requested_by in each operation row.
      update: { statements: 5, writes: 2, transactions: 1, walFrames: 26, temporary: 0 },
      delete: { statements: 9, writes: 4, transactions: 1, walFrames: 26, temporary: 0 },
    },
  },
};

/** One operation's counts. */
interface Sample {
  tally: StatementTally;
  frames: number;
  pages: number[];
}

/** Per case and kind: the figures, an operation's statements and the frames by table or index. */
type Measured = Record<
  string,
  Record<Kind, { figures: Figures; sql: string[]; framesBy: Record<string, number> }>
>;

/** The b-trees the counts' flushes write (a count, the holder released and claimed again). */
const COUNTS = new Set(COUNTS_TABLES);

/** The counts' flushes in one run: their frames, and how long the measured operations took. */
interface Background {
  frames: number;
  elapsedMs: number;
}

/** Bytes a WAL frame takes: the page and its 24-byte header. */
let frameBytes = 0;

/** One operation of `kind` on resource `i`, which must succeed. */
async function operate(svc: TestService, c: Case, kind: Kind, i: number): Promise<void> {
  const path = `/v1/resources/${encodeURIComponent(c.schema.typeName as string)}`;
  const id = name(i);
  const clientToken = `${kind}-${c.schema.typeName as string}-${id}`;
  const answer =
    kind === 'create'
      ? await svc.call('POST', `${path}?wait=10`, { desiredState: c.desired(i), clientToken })
      : kind === 'read'
        ? await svc.call('GET', `${path}/${id}`)
        : kind === 'update'
          ? await svc.call('PATCH', `${path}/${id}?wait=10`, { patchDocument: c.patch(i), clientToken })
          : await svc.call('DELETE', `${path}/${id}?wait=10`, { clientToken });
  const ok =
    kind === 'read' ? answer.status === 200 : answer.body?.progressEvent?.operationStatus === 'SUCCESS';
  assert.ok(
    ok,
    `${kind} of ${c.schema.typeName as string} ${id}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`,
  );
}

/** A fresh server and file; every case's operations, each measured alone. */
async function measure(): Promise<{ measured: Measured; background: Background }> {
  const dataDir = tempDir('typeplane-costs-');
  const path = join(dataDir, 'typeplane.db');
  const ignored = new Set<Database.Database>();
  const statements = meterStatements(path, ignored);
  let svc: TestService | undefined;
  let wal: WalMeter | undefined;
  try {
    // No polling pass meanwhile: the engine's, the stacks' and the recipes' run statements of their own.
    svc = await startTestService({ dataDir, pollIntervalMs: 3_600_000 });
    for (const c of Object.values(CASES))
      assert.equal((await svc.call('POST', '/v1/types', c.schema)).status, 201);
    wal = meterWal(path);
    ignored.add(wal.pin);
    frameBytes = wal.pageSize + 24;
    const samples: Record<string, Record<Kind, Sample[]>> = {};
    let elapsedMs = 0;
    for (const [caseName, c] of Object.entries(CASES)) {
      // A type's first operations fill caches (its registration stamp): not what each one costs.
      for (const kind of KINDS) await operate(svc, c, kind, 99);
      samples[caseName] = { create: [], read: [], update: [], delete: [] };
      const start = performance.now();
      for (const kind of KINDS)
        for (let i = 0; i < N; i++) {
          statements.take();
          wal.take();
          await operate(svc, c, kind, i);
          // Whatever the operation left to the next turns of the event loop is its cost too.
          for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
          samples[caseName][kind].push({ tally: statements.take(), ...wal.take() });
        }
      elapsedMs += performance.now() - start;
    }
    return summarise(samples, wal, elapsedMs);
  } finally {
    await svc?.close();
    wal?.close();
    statements.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function summarise(
  samples: Record<string, Record<Kind, Sample[]>>,
  wal: WalMeter,
  elapsedMs: number,
): { measured: Measured; background: Background } {
  const all = Object.values(samples).flatMap((byKind) => Object.values(byKind).flat());
  const owners = wal.ownersOf(new Set(all.flatMap((s) => s.pages)));
  const background: Background = { frames: 0, elapsedMs };
  const measured: Measured = {};
  for (const [caseName, byKind] of Object.entries(samples)) {
    measured[caseName] = {} as Measured[string];
    for (const kind of KINDS) {
      const list = byKind[kind];
      const counts = list.map(({ tally: t }) => ({
        statements: t.statements,
        writes: t.writes,
        transactions: t.transactions + t.savepoints,
        temporary: t.temporary,
      }));
      const usual = mostCommon(counts.map((c) => JSON.stringify(c)));
      const framesBy: Record<string, number> = {};
      let countFrames = 0;
      for (const page of list.flatMap((s) => s.pages)) {
        const owner = owners.get(page)!;
        if (COUNTS.has(owner)) countFrames++;
        else framesBy[owner] = (framesBy[owner] ?? 0) + 1;
      }
      background.frames += countFrames;
      measured[caseName][kind] = {
        figures: {
          ...(JSON.parse(usual) as Omit<Figures, 'walFrames'>),
          walFrames: list.reduce((sum, s) => sum + s.frames, 0) - countFrames,
        },
        sql: list[counts.findIndex((c) => JSON.stringify(c) === usual)]!.tally.log,
        framesBy,
      };
    }
  }
  return { measured, background };
}

const LABELS: Record<keyof Figures, string> = {
  statements: 'statements',
  writes: 'writes',
  transactions: 'transactions',
  walFrames: `WAL frames for all ${N}`,
  temporary: 'temporary b-trees built',
};

function describe(f: Figures): string {
  const each = f.walFrames / N;
  return (
    `${f.statements} statements (${f.writes} writes), ${f.transactions} transactions, ` +
    `${f.temporary} temporary b-trees built, ` +
    `${f.walFrames} WAL frames for ${N}: ${each.toFixed(2)} each, ${((each * frameBytes) / 1024).toFixed(1)} KiB`
  );
}

const article = (kind: Kind) => (kind === 'update' ? 'an' : 'a');

let runs: Measured[];
let backgrounds: Background[];
before(async () => {
  const measured = [await measure(), await measure(), await measure()];
  runs = measured.map((m) => m.measured);
  backgrounds = measured.map((m) => m.background);
});

test('the resource counts reach the file on their clock, not with each operation', () => {
  for (const [i, { frames, elapsedMs }] of backgrounds.entries()) {
    // A flush writes the count's page and the holder's (released, then claimed by the next change):
    // one at most each second, and one more for a second begun before the first operation.
    const allowed = 3 * (Math.floor(elapsedMs / 1000) + 1);
    assert.ok(
      frames <= allowed,
      `run ${i + 1}: the counts' tables took ${frames} WAL frames in ${elapsedMs.toFixed(0)} ms of operations, more than their once-a-second flushes write (${allowed}): something writes them with each operation`,
    );
  }
});

test('the counts are the same from run to run, and they count the store', () => {
  const [first, ...others] = runs;
  for (const [i, run] of others.entries()) assert.deepEqual(run, first, `run ${i + 2} differs from run 1`);
  // A meter watching the wrong file would see nothing, and every ceiling would hold.
  for (const [caseName, byKind] of Object.entries(first!))
    assert.ok(
      byKind.create.figures.statements > 0 && byKind.create.figures.walFrames > 0,
      `no statements or frames seen for a create (${caseName}): the meters do not see the store`,
    );
});

for (const [caseName, c] of Object.entries(CASES))
  for (const kind of KINDS)
    test(`${article(kind)} ${kind} (${caseName}) costs no more than its ceilings`, (t) => {
      const { figures, sql, framesBy } = runs[0]![caseName]![kind];
      const ceilings = c.ceilings[kind];
      t.diagnostic(`${describe(figures)}; frames by b-tree ${JSON.stringify(framesBy)}`);
      t.diagnostic(`statements: ${sql.join(' | ')}`);
      const grown = (Object.keys(ceilings) as (keyof Figures)[]).filter((k) => figures[k] > ceilings[k]);
      for (const k of Object.keys(ceilings) as (keyof Figures)[])
        if (figures[k] < ceilings[k])
          t.diagnostic(
            `below its ceiling: lower CASES['${caseName}'].ceilings.${kind}.${k} to ${figures[k]}`,
          );
      assert.equal(
        grown.length,
        0,
        `${article(kind)} ${kind} (${caseName}) costs more than its ceilings allow: ` +
          `${grown.map((k) => `${LABELS[k]} grew from ${ceilings[k]} to ${figures[k]}`).join('; ')}.\n` +
          `Now ${describe(figures)}.\nFrames by b-tree: ${JSON.stringify(framesBy)}.\n` +
          `Statements: ${sql.join(' | ')}.\n` +
          'Cut the added work, or raise the ceiling in this file with the reason in the commit message.',
      );
    });

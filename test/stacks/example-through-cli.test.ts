/**
 * The README's walk-through: `examples/stacks/app.template` validated, deployed, shown and deleted
 * with `typeplane stack …` against a real server whose `Typeplane.Data/postgresDatabases` is the
 * built-in PostgreSQL provider (the real server on 127.0.0.1:5432) and `Typeplane::Local::File` the
 * built-in file provider (a temp folder). Skips, saying why, when no PostgreSQL answers.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { parse as parseYaml } from 'yaml';
import { createPostgresProvider, MANIFEST_TYPE } from '../../src/providers/postgresql/index.js';
import { createFileProvider } from '../../src/providers/file/index.js';
import { PG_URL, pgSkip } from '../helpers/postgres.js';
import { startTestService, tempDir } from '../helpers/service.js';
import { exits, typeplaneCli, type CliRun } from './helpers.js';

const TEMPLATE = 'examples/stacks/app.template';

test(
  'the example stack deploys through the CLI: a database, then a file built with !Sub from its outputs; the password is never printed',
  { skip: pgSkip },
  async (t) => {
    const hex = randomBytes(4).toString('hex');
    const dbName = `tp-test-stack-${hex}`;
    const password = `pw-${randomBytes(12).toString('base64url')}`;
    const root = tempDir();
    const database = createPostgresProvider({ url: PG_URL, scope: `tp-test-${hex}` });
    const files = createFileProvider({ root });
    const s = await startTestService({
      providers: new Map([
        [MANIFEST_TYPE, database],
        ['Typeplane::Local::File', files],
      ]),
    });
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    t.after(async () => {
      await s.close();
      await database.close?.();
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(dbName)} WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(dbName)}`);
      await admin.end();
    });
    for (const [file, type] of [
      ['examples/postgresDatabases.yaml', 'application/yaml'],
      ['examples/typeplane-local-file.yaml', 'application/yaml'],
    ] as const) {
      const r = await s.call('POST', '/v1/types', readFileSync(file, 'utf8'), { 'content-type': type });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const cli = (...args: string[]) => typeplaneCli(s.url, s.token, args);
    const runs: CliRun[] = [];
    const run = async (...args: string[]) => {
      const r = await cli(...args);
      runs.push(r);
      return r;
    };

    const [short, valid] = await Promise.all([
      run('stack', 'validate', TEMPLATE, '--parameters', 'DatabasePassword=short'),
      run(
        'stack',
        'validate',
        TEMPLATE,
        '--parameters',
        `DatabaseName=${dbName}`,
        `DatabasePassword=${password}`,
      ),
    ]);
    exits(short, 1);
    assert.match(short.stdout, /^examples\/stacks\/app\.template:\d+:\d+ error TP4012 .*DatabasePassword/m);
    exits(valid, 0);
    assert.match(valid.stdout, /valid \(types: Typeplane\.Data\/postgresDatabases, Typeplane::Local::File\)/);

    const deploy = await run(
      'stack',
      'deploy',
      'orders',
      TEMPLATE,
      '--parameters',
      `DatabaseName=${dbName}`,
      `DatabasePassword=${password}`,
      'Size=L',
    );
    exits(deploy, 0);
    // Not a terminal: one plain line per event, in order.
    const progress = deploy.stderr.split('\n').filter((l) => / (CREATE|UPDATE)_/.test(l));
    const at = (re: RegExp) => progress.findIndex((l) => re.test(l));
    assert.ok(at(/ Database \(.*CREATE_COMPLETE/) >= 0, deploy.stderr);
    assert.ok(
      at(/ Database \(.*CREATE_COMPLETE/) < at(/ ConnectionFile .*CREATE_IN_PROGRESS/),
      deploy.stderr,
    );
    assert.match(deploy.stdout, /^status\s+CREATE_COMPLETE/m);

    const written = join(root, `${dbName}.env`);
    const port = new URL(PG_URL).port || '5432';
    assert.equal(
      readFileSync(written, 'utf8'),
      `# orders: many connections\nPGHOST=${new URL(PG_URL).hostname}\nPGPORT=${port}\nPGUSER=${dbName}\nPGDATABASE=${dbName}\n`,
    );
    assert.equal(statSync(written).mode & 0o777, 0o600);
    const db = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    assert.equal(db.rowCount, 1, 'the database exists');

    const [outputs, shown, events, drift, list] = await Promise.all([
      run('stack', 'outputs', 'orders', '-o', 'json'),
      run('stack', 'show', 'orders', '-o', 'yaml'),
      run('stack', 'events', 'orders'),
      run('stack', 'drift', 'orders', '-o', 'json'),
      run('stack', 'list'),
    ]);
    for (const r of [outputs, shown, events, drift, list]) exits(r, 0);
    const byName = Object.fromEntries(
      JSON.parse(outputs.stdout).outputs.map((o: { name: string; value: unknown }) => [o.name, o.value]),
    );
    assert.deepEqual(byName, {
      Host: new URL(PG_URL).hostname,
      Port: Number(port),
      ConnectionFile: `${dbName}.env`,
    });
    const view = parseYaml(shown.stdout);
    assert.equal(view.status, 'CREATE_COMPLETE');
    assert.equal(view.parameters.DatabasePassword, '****');
    assert.match(events.stdout, /^TIME\s+LOGICAL ID\s+TYPE\s+IDENTIFIER\s+STATUS\s+REASON$/m);
    assert.match(events.stdout, /ConnectionFile\s+Typeplane::Local::File\s+\S+\.env\s+CREATE_COMPLETE/);
    assert.equal(JSON.parse(drift.stdout).status, 'IN_SYNC');
    assert.match(list.stdout, /^orders\s+CREATE_COMPLETE/m);

    const deleted = await run('stack', 'delete', 'orders');
    exits(deleted, 0);
    assert.match(deleted.stdout, /DELETE_COMPLETE/);
    assert.equal(existsSync(written), false, 'the file is gone');
    const gone = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    assert.equal(gone.rowCount, 0, 'the database is gone');

    for (const r of runs)
      assert.ok(
        !r.stdout.includes(password) && !r.stderr.includes(password),
        `password printed:\n${r.stdout}${r.stderr}`,
      );
  },
);

/**
 * The alert rules in docs/operations.md ("Alert rules"): a rules file `promtool check rules` accepts
 * (where Debian's prometheus package installs it), naming only metrics a server exposes — each store's
 * own ones on that store.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { eachStoreService } from '../helpers/each-store.js';
import { promtoolMissing, scrape } from './scrape.js';

const DOC = new URL('../../docs/operations.md', import.meta.url);

/** The YAML block of the "Alert rules" section. */
function rulesText(): string {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('### Alert rules'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'no YAML block under "### Alert rules"');
  return block[1]!;
}

/** The metric names the rules' expressions use, without a histogram's series suffix. */
function metricNames(rules: string): string[] {
  const names = rules.match(/\b(?:typeplane|http_server)_[a-z_]+\b/g) ?? [];
  return [...new Set(names.map((n) => n.replace(/_(bucket|count|sum)$/, '')))].sort();
}

test('promtool check rules accepts the documented alert rules', (t) => {
  const rules = rulesText();
  assert.match(rules, /alert: TypeplaneQueueGrowing/);
  if (promtoolMissing) return t.skip(promtoolMissing);
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-rules-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'typeplane.rules.yaml');
  writeFileSync(file, rules);
  const run = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  // promtool found every rule documented, not fewer.
  const documented = rules.match(/^\s*- alert: /gm)?.length ?? 0;
  assert.ok(documented >= 7, `${documented} rules documented`);
  assert.match(run.stdout, new RegExp(`SUCCESS: ${documented} rules found`));
});

eachStoreService('the alert rules name metrics the server exposes', async (svc, _t, kind) => {
  const other = kind === 'sqlite' ? 'typeplane_postgresql_' : 'typeplane_sqlite_';
  const names = metricNames(rulesText()).filter((n) => !n.startsWith(other));
  assert.ok(names.includes('typeplane_operations_due'));
  const { text } = await scrape(svc);
  const exposed = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
  assert.deepEqual(
    names.filter((n) => !exposed.has(n)),
    [],
  );
});

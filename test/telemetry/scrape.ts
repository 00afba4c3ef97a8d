/**
 * Reading `GET /metrics` in tests: the exposition parsed by a parser of the format (not by the tests'
 * own regular expressions), and `promtool check metrics` on it where Prometheus's tool is installed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import parse, { type Family, type Sample } from 'parse-prometheus-text-format';
import type { Api } from '../helpers/service.js';

export interface Scrape {
  text: string;
  families: Map<string, Family>;
}

export async function scrape(client: Api): Promise<Scrape> {
  const answer = await client.call('GET', '/metrics');
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = answer.body as string;
  // The parser folds every series of a labelled histogram into one (it keeps only label-less ones
  // whole), so histograms are read series by series: `<name>_count`, `<name>_sum`, `<name>_bucket`,
  // each a family the parser starts again at every series (joined here).
  const seriesBySeries = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
  const families = new Map<string, Family>();
  for (const family of parse(seriesBySeries)) {
    const seen = families.get(family.name);
    if (seen) seen.metrics.push(...family.metrics);
    else families.set(family.name, family);
  }
  return { text, families };
}

/** The family's samples whose labels include `labels`. */
export function samples(s: Scrape, name: string, labels: Record<string, string> = {}): Sample[] {
  const family = s.families.get(name);
  assert.ok(family, `no metric ${name} in the exposition`);
  return family.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

/** The sum of the matching samples' values: a counter's or gauge's, or a histogram's counts (`<name>_count`). */
export function total(s: Scrape, name: string, labels: Record<string, string> = {}): number {
  return samples(s, name, labels).reduce((sum, m) => sum + Number(m.value), 0);
}

/** Every label value in the exposition. */
export function labelValues(s: Scrape): Set<string> {
  const values = new Set<string>();
  for (const family of s.families.values())
    for (const m of family.metrics) for (const v of Object.values(m.labels ?? {})) values.add(v);
  return values;
}

/** Whether Prometheus's `promtool` is on PATH: the reason to skip its check otherwise. */
export const promtoolMissing: string | false =
  spawnSync('promtool', ['--version'], { stdio: 'ignore' }).error === undefined
    ? false
    : "promtool is not installed (Debian's prometheus package provides it)";

/**
 * prom-client's own default metrics that promtool's linter questions (gauges named `…_total`): the
 * library's names, kept as dashboards know them.
 */
const LIBRARY_NAMES =
  /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

/** `promtool check metrics` on the text: what it found wrong (but the library's names), '' when nothing. */
export function promtoolProblems(text: string): string {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.equal(run.error, undefined);
  return `${run.stdout}${run.stderr}`
    .split('\n')
    .filter((line) => line !== '' && !LIBRARY_NAMES.test(line))
    .join('\n');
}

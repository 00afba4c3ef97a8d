/**
 * The counters and histograms that keep their own series (src/telemetry/series.ts) expose exactly
 * what prom-client's Counter and Histogram expose for the same observations — the same text, line
 * for line — before and after a reset, with labels and without; and a series kept across a reset is
 * known to be stale, so its keeper asks for the new one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { OwnCounter, OwnHistogram, SeriesByValues } from '../../src/telemetry/series.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVED = [0, 0.001, 0.0011, 0.05, 0.1, 0.7, 1, 3, 250];

/** Both registries' text, each metric registered under the same name on its own registry. */
async function texts(theirs: Registry, ours: Registry): Promise<[string, string]> {
  return [await theirs.metrics(), await ours.metrics()];
}

test('a labelled histogram of its own exposes what prom-client exposes, before and after a reset', async () => {
  const [theirs, ours] = [new Registry(), new Registry()];
  const labelNames = ['type_name', 'operation'] as const;
  const reference = new Histogram({
    name: 'h_seconds',
    help: 'H.',
    labelNames,
    buckets: BUCKETS,
    registers: [theirs],
  });
  const own = new OwnHistogram('h_seconds', 'H.', labelNames, BUCKETS, [ours]);
  const kept = new SeriesByValues((type_name, operation) => own.series({ type_name, operation }));
  const [emptyTheirs, emptyOurs] = await texts(theirs, ours);
  assert.equal(emptyOurs, emptyTheirs);
  for (const [i, value] of OBSERVED.entries()) {
    const labels = { type_name: i % 2 ? 'A::B::C' : 'X::Y::Z', operation: i % 3 ? 'create' : 'delete' };
    reference.observe(labels, value);
    own.observe(kept.find(labels.type_name, labels.operation), value);
  }
  const [before, after] = await texts(theirs, ours);
  assert.match(before, /h_seconds_bucket\{le="\+Inf",type_name="A::B::C",operation="create"\} \d/);
  assert.equal(after, before);

  const stale = kept.find('A::B::C', 'create');
  theirs.resetMetrics();
  ours.resetMetrics();
  assert.equal(stale.live, false, 'a series kept across a reset is stale');
  const [resetTheirs, resetOurs] = await texts(theirs, ours);
  assert.equal(resetOurs, resetTheirs);
  reference.observe({ type_name: 'A::B::C', operation: 'create' }, 0.002);
  own.observe(kept.find('A::B::C', 'create'), 0.002);
  const [againTheirs, againOurs] = await texts(theirs, ours);
  assert.match(againTheirs, /h_seconds_count\{type_name="A::B::C",operation="create"\} 1\n/);
  assert.equal(againOurs, againTheirs);
});

test('a histogram without labels shows its zero series from the start, as prom-client does', async () => {
  const [theirs, ours] = [new Registry(), new Registry()];
  const reference = new Histogram({ name: 't_seconds', help: 'T.', buckets: BUCKETS, registers: [theirs] });
  const own = new OwnHistogram('t_seconds', 'T.', [], BUCKETS, [ours]);
  const [emptyTheirs, emptyOurs] = await texts(theirs, ours);
  assert.match(emptyTheirs, /^t_seconds_count 0$/m);
  assert.equal(emptyOurs, emptyTheirs);
  const series = own.series({});
  for (const value of OBSERVED) {
    reference.observe(value);
    own.observe(series, value);
  }
  const [fedTheirs, fedOurs] = await texts(theirs, ours);
  assert.equal(fedOurs, fedTheirs);
  theirs.resetMetrics();
  ours.resetMetrics();
  const [resetTheirs, resetOurs] = await texts(theirs, ours);
  assert.equal(resetOurs, resetTheirs);
});

test('a counter of its own exposes what prom-client exposes', async () => {
  const [theirs, ours] = [new Registry(), new Registry()];
  const labelNames = ['type_name', 'operation', 'status'] as const;
  const reference = new Counter({ name: 'c_total', help: 'C.', labelNames, registers: [theirs] });
  const own = new OwnCounter('c_total', 'C.', labelNames, [ours]);
  const kept = new SeriesByValues((type_name, operation, status) =>
    own.series({ type_name, operation, status }),
  );
  const ended = [
    ['A::B::C', 'CREATE', 'SUCCESS'],
    ['A::B::C', 'CREATE', 'FAILED'],
    ['A::B::C', 'CREATE', 'SUCCESS'],
    ['X::Y::Z', 'DELETE', 'SUCCESS'],
  ] as const;
  for (const [type_name, operation, status] of ended) {
    reference.inc({ type_name, operation, status });
    kept.find(type_name, operation, status).value++;
  }
  const [theirsText, oursText] = await texts(theirs, ours);
  assert.match(theirsText, /^c_total\{type_name="A::B::C",operation="CREATE",status="SUCCESS"\} 2$/m);
  assert.equal(oursText, theirsText);
});

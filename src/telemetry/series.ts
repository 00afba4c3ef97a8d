/**
 * @module Counters and histograms that keep their series themselves, registered on a prom-client
 * registry as its own metrics are (the registry reads them only when scraped). prom-client finds a
 * series by hashing its label values on every observation — its `labels()` children only keep the
 * values bound, and hash them again on each call — and a histogram's `observe` makes a closure and an
 * object each time. Here whoever records asks for a series once per label set and keeps it: an
 * observation is then a few additions, and allocates nothing.
 *
 * @example
 * const ended = new OwnCounter('jobs_total', 'Jobs ended, by status.', ['status'], [registry]);
 * const succeeded = ended.series({ status: 'SUCCESS' }); // once
 * succeeded.value++; // each time (ask again once `succeeded.live` is false: the metric was reset)
 */
import type { Registry } from 'prom-client';

export type Labels = Readonly<Record<string, string>>;

/** One label set of a counter. `live` turns false when the metric is reset: its keeper asks for it anew. */
export interface CounterSeries {
  readonly labels: Labels;
  value: number;
  live: boolean;
}

/** One label set of a histogram: observations per bucket (not cumulative; the last is past every bound, +Inf only). */
export interface HistogramSeries {
  readonly labels: Labels;
  readonly buckets: number[];
  sum: number;
  count: number;
  live: boolean;
}

interface Value {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

abstract class OwnMetric<S extends { readonly labels: Labels; live: boolean }> {
  readonly aggregator = 'sum';
  abstract readonly type: 'counter' | 'histogram';
  private readonly byKey = new Map<string, S>();
  private wasReset = false;

  constructor(
    readonly name: string,
    readonly help: string,
    /** The label names, in the order their values make a series' key. */
    private readonly labelNames: readonly string[],
    registers: readonly Registry[],
  ) {
    for (const registry of registers) registry.registerMetric(this as never);
  }

  /** The series of `labels` (every label name given, no other), made on first use: to be kept while `live`. */
  series(labels: Labels): S {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let series = this.byKey.get(key);
    if (!series) {
      series = this.made(labels);
      this.byKey.set(key, series);
    }
    return series;
  }

  protected abstract made(labels: Labels): S;

  protected abstract valuesOf(series: S, values: Value[]): void;

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Value[] }> {
    // A metric without labels is shown from the start, at zero, as prom-client's are (not after a reset).
    if (this.labelNames.length === 0 && !this.wasReset) this.series({});
    const values: Value[] = [];
    for (const series of this.byKey.values()) this.valuesOf(series, values);
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Forgets every series, as prom-client's reset does. */
  reset(): void {
    for (const series of this.byKey.values()) series.live = false;
    this.byKey.clear();
    this.wasReset = true;
  }
}

/** A counter: keep a series and add to its `value`. */
export class OwnCounter extends OwnMetric<CounterSeries> {
  readonly type = 'counter';

  protected made(labels: Labels): CounterSeries {
    return { labels, value: 0, live: true };
  }

  protected valuesOf({ labels, value }: CounterSeries, values: Value[]): void {
    values.push({ labels: { ...labels }, value });
  }
}

/** A histogram: keep a series and `observe` into it. */
export class OwnHistogram extends OwnMetric<HistogramSeries> {
  readonly type = 'histogram';

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly upperBounds: readonly number[],
    registers: readonly Registry[],
  ) {
    super(name, help, labelNames, registers);
  }

  protected made(labels: Labels): HistogramSeries {
    return {
      labels,
      buckets: new Array<number>(this.upperBounds.length + 1).fill(0),
      sum: 0,
      count: 0,
      live: true,
    };
  }

  observe(series: HistogramSeries, value: number): void {
    // As prom-client: an observation counts in the first bucket whose bound it does not exceed.
    let i = 0;
    while (i < this.upperBounds.length && value > this.upperBounds[i]!) i++;
    series.buckets[i]!++;
    series.sum += value;
    series.count++;
  }

  protected valuesOf({ labels, buckets, sum, count }: HistogramSeries, values: Value[]): void {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    this.upperBounds.forEach((le, i) => {
      cumulative += buckets[i]!;
      values.push({ labels: { le, ...labels }, value: cumulative, metricName: bucket });
    });
    values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: bucket });
    values.push({ labels: { ...labels }, value: sum, metricName: `${this.name}_sum` });
    values.push({ labels: { ...labels }, value: count, metricName: `${this.name}_count` });
  }
}

/**
 * Series kept by up to three label values, found with a map per label (no key made per call), asked
 * of their metric again once reset.
 */
export class SeriesByValues<S extends { live: boolean }> {
  private readonly kept = new Map<string, Map<string, Map<string, S>>>();

  constructor(private readonly make: (a: string, b: string, c: string) => S) {}

  find(a: string, b = '', c = ''): S {
    let byB = this.kept.get(a);
    if (byB === undefined) this.kept.set(a, (byB = new Map()));
    let byC = byB.get(b);
    if (byC === undefined) byB.set(b, (byC = new Map()));
    let series = byC.get(c);
    if (series === undefined || !series.live) byC.set(c, (series = this.make(a, b, c)));
    return series;
  }
}

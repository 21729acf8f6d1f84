import { MetricSeries } from './metric-series';
import { metricId, type MetricDatapoint, type MetricKey, type Statistic } from './types';

/** Defaults of {@link MetricStore}, named once for the code and its docs. */
export const METRIC_STORE_DEFAULTS = {
  /** A long `eo local up` session keeps this many datapoints per metric, dropping the oldest by time. */
  maxDatapointsPerMetric: 100_000,
} as const;

/**
 * Local mode's CloudWatch: the datapoints every source recorded, per metric, oldest first, and
 * the statistics over a time range that alarms and the demo's report ask for.
 *
 * @example
 * const store = new MetricStore();
 * store.put({ namespace: 'AWS/Lambda', metricName: 'Errors', dimensions: { FunctionName: 'f' } }, 1);
 * store.statistic(key, 'Sum', periodStart, Date.now()); // 1
 */
export class MetricStore {
  private readonly series = new Map<string, { readonly key: MetricKey; readonly datapoints: MetricSeries }>();
  private recorded = 0;

  public constructor(private readonly maxDatapointsPerMetric: number = METRIC_STORE_DEFAULTS.maxDatapointsPerMetric) {
    if (!Number.isInteger(maxDatapointsPerMetric) || maxDatapointsPerMetric < 1) throw new RangeError(`maxDatapointsPerMetric must be a whole number >= 1 (given ${maxDatapointsPerMetric})`);
  }

  /** Records `value` for the metric at `at` (epoch ms; now by default). Datapoints out of order are kept in order. */
  public put(key: MetricKey, value: number, at: number = Date.now()): void {
    if (!Number.isFinite(value)) throw new RangeError(`${metricId(key)}: a datapoint must be a finite number (given ${value})`);
    const id = metricId(key);
    const entry = this.series.get(id) ?? { key, datapoints: new MetricSeries(this.maxDatapointsPerMetric) };
    this.series.set(id, entry);
    this.recorded += 1;
    entry.datapoints.put(at, value, this.recorded);
  }

  /** The statistic over the datapoints in `[fromMs, toMs)`; undefined when there are none (CloudWatch's missing data). */
  public statistic(key: MetricKey, statistic: Statistic, fromMs: number, toMs: number): number | undefined {
    const values = this.datapoints(key, fromMs, toMs).map((point) => point.value);
    return statisticOf(values, statistic);
  }

  /**
   * How many datapoints were recorded so far: a position in the order they were recorded, which
   * divides them exactly where time cannot (two in the same millisecond, one on either side of a
   * period's close).
   */
  public position(): number {
    return this.recorded;
  }

  /** The statistic over the datapoints recorded after position `after` and up to `upTo` (see {@link position}); undefined when there are none. */
  public statisticBetween(key: MetricKey, statistic: Statistic, after: number, upTo: number): number | undefined {
    const values = this.series.get(metricId(key))?.datapoints.valuesBetweenPositions(after, upTo) ?? [];
    return statisticOf(values, statistic);
  }

  /** Whether the metric has a datapoint in `[fromMs, toMs)`. */
  public has(key: MetricKey, fromMs: number, toMs: number): boolean {
    return this.datapoints(key, fromMs, toMs).length > 0;
  }

  /** The datapoints in `[fromMs, toMs)`, oldest first. */
  public datapoints(key: MetricKey, fromMs: number, toMs: number): MetricDatapoint[] {
    return this.series.get(metricId(key))?.datapoints.datapointsBetween(fromMs, toMs) ?? [];
  }

  /** Every metric that has datapoints. */
  public keys(): MetricKey[] {
    return [...this.series.values()].map((entry) => entry.key);
  }
}

/** The statistic of some values; undefined for none. */
export function statisticOf(values: readonly number[], statistic: Statistic): number | undefined {
  if (values.length === 0) return undefined;
  switch (statistic) {
    case 'Sum':
      return values.reduce((total, value) => total + value, 0);
    case 'Maximum':
      return values.reduce((largest, value) => Math.max(largest, value));
    case 'Minimum':
      return values.reduce((smallest, value) => Math.min(smallest, value));
    case 'Average':
      return values.reduce((total, value) => total + value, 0) / values.length;
    case 'SampleCount':
      return values.length;
  }
}

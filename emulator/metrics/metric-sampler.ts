import type { MetricStore } from './metric-store';
import { metricId, type MetricKey, type Statistic } from './types';

/** A count that only grows (a function's invocations, a mapping's deliveries); each sample records what it grew by. */
export interface CounterSource {
  readonly key: MetricKey;
  read(): number;
}

/** Metrics read together in one call (a queue's visible and in-flight messages); each sample records their current values. */
export interface GaugeGroup {
  readonly keys: readonly MetricKey[];
  /** The current values, in the order of `keys`. */
  read(): Promise<readonly number[]>;
}

/** What the alarm evaluator reads metrics from: a way to take samples now, and the statistics of what was recorded. */
export interface MetricSource {
  /**
   * Records what the counters grew by since the last sample, and samples the gauges among `keys`
   * (every gauge when `keys` is not given). Resolves with the failures, one per gauge group that failed.
   */
  sample(keys?: readonly MetricKey[]): Promise<unknown[]>;
  /** How many datapoints were recorded so far: where a period ends (see {@link MetricStore.position}). */
  position(): number;
  /** The statistic over the datapoints recorded after position `after`, up to `upTo`; undefined when there are none. */
  statisticBetween(key: MetricKey, statistic: Statistic, after: number, upTo: number): number | undefined;
}

/**
 * Turns local mode's sources into datapoints of a {@link MetricStore}: counters become Sums (a
 * datapoint of the growth, only when it grew: an idle source publishes nothing, as on AWS) and
 * gauges become one datapoint per sample. Datapoints recorded by others (EMF lines) are in the
 * same store.
 */
export class MetricSampler implements MetricSource {
  private readonly lastReadings = new Map<string, number>();

  public constructor(
    public readonly store: MetricStore,
    private readonly counters: readonly CounterSource[],
    private readonly gauges: readonly GaugeGroup[],
  ) {
    for (const counter of counters) this.lastReadings.set(metricId(counter.key), counter.read());
  }

  public async sample(keys?: readonly MetricKey[]): Promise<unknown[]> {
    const now = Date.now();
    for (const counter of this.counters) this.recordGrowth(counter, now);
    const wanted = keys === undefined ? undefined : new Set(keys.map(metricId));
    const groups = this.gauges.filter((group) => wanted === undefined || group.keys.some((key) => wanted.has(metricId(key))));
    const results = await Promise.allSettled(groups.map((group) => this.sampleGauges(group)));
    return results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
  }

  public position(): number {
    return this.store.position();
  }

  public statisticBetween(key: MetricKey, statistic: Statistic, after: number, upTo: number): number | undefined {
    return this.store.statisticBetween(key, statistic, after, upTo);
  }

  private recordGrowth(counter: CounterSource, now: number): void {
    const id = metricId(counter.key);
    const reading = counter.read();
    const growth = reading - (this.lastReadings.get(id) ?? 0);
    this.lastReadings.set(id, reading);
    if (growth > 0) this.store.put(counter.key, growth, now);
  }

  private async sampleGauges(group: GaugeGroup): Promise<void> {
    const values = await group.read();
    const at = Date.now();
    group.keys.forEach((key, index) => {
      const value = values[index];
      if (value === undefined || !Number.isFinite(value)) throw new Error(`${metricId(key)}: the sample gave no number (given ${String(value)})`);
    });
    group.keys.forEach((key, index) => this.store.put(key, values[index] ?? 0, at));
  }
}

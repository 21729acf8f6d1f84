/**
 * One metric's datapoints, capped: what the store answers for ranges of time and of recording
 * positions, checked against a plain list that is filtered and sorted on every query, over many
 * drops (so across compactions) and with datapoints put out of time order.
 */
import { MetricSeries } from '../../../emulator/metrics/metric-series';
import { MetricStore } from '../../../emulator/metrics';
import { seededRandom } from '../../helpers/fakes';

interface Point {
  readonly at: number;
  readonly value: number;
  readonly position: number;
}

/** The obvious implementation: every datapoint in a list; past the cap, the oldest by time (the first recorded among equals) goes. */
class ReferenceSeries {
  private points: Point[] = [];

  public constructor(private readonly max: number) {}

  public put(point: Point): void {
    this.points.push(point);
    if (this.points.length <= this.max) return;
    const oldest = [...this.points].sort((a, b) => a.at - b.at || a.position - b.position)[0] as Point;
    this.points = this.points.filter((kept) => kept !== oldest);
  }

  public valuesBetweenPositions(after: number, upTo: number): number[] {
    return this.points.filter((point) => point.position > after && point.position <= upTo).map((point) => point.value);
  }

  public datapointsBetween(fromMs: number, toMs: number): { at: number; value: number }[] {
    return this.points
      .filter((point) => point.at >= fromMs && point.at < toMs)
      .sort((a, b) => a.at - b.at || a.position - b.position)
      .map(({ at, value }) => ({ at, value }));
  }
}

test.each([1, 2, 3, 7, 50])('with a cap of %d, every range of time and of positions reads as the plain list does, through 600 puts, a fifth of them late', (cap) => {
  const next = seededRandom(cap);
  const series = new MetricSeries(cap);
  const reference = new ReferenceSeries(cap);
  let clock = 1_000;
  for (let position = 1; position <= 600; position++) {
    clock += Math.floor(next() * 3);
    // A late datapoint (an EMF line's own timestamp, say) lands before some already recorded.
    const at = next() < 0.2 ? clock - Math.floor(next() * 40) : clock;
    const value = Math.floor(next() * 100);
    series.put(at, value, position);
    reference.put({ at, value, position });
    const from = clock - Math.floor(next() * 60);
    const to = from + Math.floor(next() * 60);
    const after = position - Math.floor(next() * (cap + 10));
    const upTo = after + Math.floor(next() * (cap + 10));
    expect([position, series.datapointsBetween(from, to)]).toEqual([position, reference.datapointsBetween(from, to)]);
    expect([position, series.valuesBetweenPositions(after, upTo)]).toEqual([position, reference.valuesBetweenPositions(after, upTo)]);
  }
});

test('past the cap the oldest by time is dropped, also when it was recorded last', () => {
  const series = new MetricSeries(2);
  series.put(2000, 2, 1);
  series.put(3000, 3, 2);
  series.put(1000, 1, 3);
  expect(series.datapointsBetween(0, 10_000)).toEqual([{ at: 2000, value: 2 }, { at: 3000, value: 3 }]);
  expect(series.valuesBetweenPositions(0, 3)).toEqual([2, 3]);
});

test('a range of positions beyond the last recorded, or empty, holds nothing', () => {
  const series = new MetricSeries(10);
  series.put(1000, 5, 1);
  expect(series.valuesBetweenPositions(1, 5)).toEqual([]);
  expect(series.valuesBetweenPositions(1, 1)).toEqual([]);
  expect(series.valuesBetweenPositions(0, 1)).toEqual([5]);
});

test('Maximum and Minimum hold over more datapoints than a call can take as arguments', () => {
  const count = 300_000;
  const store = new MetricStore(count);
  const key = { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: { QueueName: 'q' } };
  for (let index = 0; index < count; index++) store.put(key, index % 1_000, 1_000);
  expect(() => Math.max(...store.datapoints(key, 0, 2_000).map((point) => point.value))).toThrow(RangeError);
  expect(store.statisticBetween(key, 'Maximum', 0, store.position())).toBe(999);
  expect(store.statisticBetween(key, 'Minimum', 0, store.position())).toBe(0);
});

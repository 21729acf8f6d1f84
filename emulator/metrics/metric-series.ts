import type { MetricDatapoint } from './types';

/** A datapoint and its place in the order of recording. */
interface StoredDatapoint extends MetricDatapoint {
  readonly position: number;
  /** Dropped past the cap: still in the recording-order list until the next compaction, and skipped there. */
  dropped: boolean;
}

/**
 * The datapoints of one metric, capped at `maxDatapoints` (the oldest by time are dropped), kept
 * twice: in time order, for ranges of time, and in recording order, for ranges of positions. Both
 * are read by binary search, and a datapoint is dropped by moving a start index, so that a put and
 * a query cost the same after hours of an `eo local up` session as in its first minute. The lists
 * are compacted after every `maxDatapoints` drops, so each holds at most twice the cap.
 */
export class MetricSeries {
  private byTime: StoredDatapoint[] = [];
  /** Where the datapoints still kept begin in `byTime`. */
  private timeStart = 0;
  private byPosition: StoredDatapoint[] = [];

  public constructor(private readonly maxDatapoints: number) {}

  /** Records a datapoint; `position` must be greater than every position recorded before. */
  public put(at: number, value: number, position: number): void {
    const point: StoredDatapoint = { at, value, position, dropped: false };
    this.byPosition.push(point);
    this.insertByTime(point);
    if (this.byTime.length - this.timeStart > this.maxDatapoints) this.dropOldest();
  }

  /** The values of the datapoints recorded after position `after` and up to `upTo`, in recording order. */
  public valuesBetweenPositions(after: number, upTo: number): number[] {
    const values: number[] = [];
    for (let index = firstIndex(this.byPosition, 0, (point) => point.position > after); index < this.byPosition.length; index++) {
      const point = this.byPosition[index] as StoredDatapoint;
      if (point.position > upTo) break;
      if (!point.dropped) values.push(point.value);
    }
    return values;
  }

  /** The datapoints in `[fromMs, toMs)`, oldest first. */
  public datapointsBetween(fromMs: number, toMs: number): MetricDatapoint[] {
    const datapoints: MetricDatapoint[] = [];
    for (let index = firstIndex(this.byTime, this.timeStart, (point) => point.at >= fromMs); index < this.byTime.length; index++) {
      const { at, value } = this.byTime[index] as StoredDatapoint;
      if (at >= toMs) break;
      datapoints.push({ at, value });
    }
    return datapoints;
  }

  /** Inserts after every datapoint at or before its time: in order, that is at the end. */
  private insertByTime(point: StoredDatapoint): void {
    let index = this.byTime.length;
    while (index > this.timeStart && (this.byTime[index - 1] as StoredDatapoint).at > point.at) index -= 1;
    if (index === this.byTime.length) this.byTime.push(point);
    else this.byTime.splice(index, 0, point);
  }

  private dropOldest(): void {
    (this.byTime[this.timeStart] as StoredDatapoint).dropped = true;
    this.timeStart += 1;
    if (this.timeStart < this.maxDatapoints) return;
    this.byTime = this.byTime.slice(this.timeStart);
    this.timeStart = 0;
    this.byPosition = this.byPosition.filter((point) => !point.dropped);
  }
}

/** The first index from `start` whose datapoint meets `holds`, which must be false then true along the list; the length when none does. */
function firstIndex(points: readonly StoredDatapoint[], start: number, holds: (point: StoredDatapoint) => boolean): number {
  let low = start;
  let high = points.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (holds(points[middle] as StoredDatapoint)) high = middle;
    else low = middle + 1;
  }
  return low;
}

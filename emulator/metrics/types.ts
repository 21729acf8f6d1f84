/** A CloudWatch metric, as an alarm or a dashboard names it: namespace, name and dimensions. */
export interface MetricKey {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, string>>;
}

/** The statistics local mode computes over a period's datapoints. */
export type Statistic = 'Sum' | 'Maximum' | 'Minimum' | 'Average' | 'SampleCount';

export const STATISTICS: readonly Statistic[] = ['Sum', 'Maximum', 'Minimum', 'Average', 'SampleCount'];

/** One datapoint recorded for a metric. */
export interface MetricDatapoint {
  /** Epoch ms. */
  readonly at: number;
  readonly value: number;
}

/** `Namespace/MetricName{dim=value,...}`, dimensions sorted: one string per metric, whatever the order they were given in. */
export function metricId(key: MetricKey): string {
  const dimensions = Object.entries(key.dimensions)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join(',');
  return `${key.namespace}/${key.metricName}{${dimensions}}`;
}

/** `AWS/SQS ApproximateAgeOfOldestMessage`, for reports. */
export function metricLabel(key: MetricKey): string {
  return `${key.namespace} ${key.metricName}`;
}

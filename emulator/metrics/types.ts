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

/**
 * `Namespace/MetricName{dim=value,...}`, dimensions sorted: one string per metric, whatever the
 * order they were given in, and never one for two metrics. A backslash escapes what would end a
 * part early: `\` and `{` in the namespace (which may hold `/`), `\`, `/` and `{` in the metric
 * name, `\`, `,` and `=` in a dimension's name or value. Names of AWS's own metrics hold
 * none of them, and read as they are.
 */
export function metricId(key: MetricKey): string {
  const dimensions = Object.entries(key.dimensions)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${escapePart(name, DIMENSION_SPECIALS)}=${escapePart(value, DIMENSION_SPECIALS)}`)
    .join(',');
  return `${escapePart(key.namespace, NAMESPACE_SPECIALS)}/${escapePart(key.metricName, NAME_SPECIALS)}{${dimensions}}`;
}

const NAMESPACE_SPECIALS = /[\\{]/g;
const NAME_SPECIALS = /[\\/{]/g;
const DIMENSION_SPECIALS = /[\\,=]/g;

function escapePart(text: string, specials: RegExp): string {
  return text.replace(specials, (character) => `\\${character}`);
}

/** `AWS/SQS ApproximateAgeOfOldestMessage`, for reports. */
export function metricLabel(key: MetricKey): string {
  return `${key.namespace} ${key.metricName}`;
}

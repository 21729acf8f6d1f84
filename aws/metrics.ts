/**
 * The metrics the runtime publishes (Powertools EMF lines, with a `service` dimension): their
 * namespace and names, read by the runtime that counts them and the constructs that set the
 * namespace and alarm on them.
 */

/** Metric names, one per outcome the runtime counts. */
export const MetricName = {
  PROCESSED: 'EventsProcessed',
  DUPLICATES: 'DuplicatesSkipped',
  CONFLICTING_DUPLICATES: 'ConflictingDuplicates',
  TRANSIENT_FAILURES: 'TransientFailures',
  PERMANENT_FAILURES: 'PermanentFailures',
  SENT_TO_DLQ: 'SentToDlq',
  STALE_WRITES: 'StaleWritesSkipped',
} as const;
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

/** The CloudWatch namespace of the runtime's metrics. */
export const METRICS_NAMESPACE = 'EffectivelyOnce';

import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

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

export const METRICS_NAMESPACE = 'EffectivelyOnce';

/** The logger and metrics of one consumer. */
export interface Observability {
  readonly logger: Logger;
  readonly metrics: Metrics;
  count(name: MetricName, value?: number): void;
}

/**
 * A logger whose every line names the consumer (and, through {@link eventKeys}, the event and its
 * source), and metrics in the `EffectivelyOnce` namespace with a `consumer` dimension. Both name
 * the service {@link serviceNameFor} gives.
 */
export function createObservability(consumer: string): Observability {
  const serviceName = serviceNameFor(consumer);
  const logger = new Logger({ serviceName, persistentKeys: { consumer } });
  const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE, serviceName });
  return {
    logger,
    metrics,
    count: (name, value = 1) => {
      if (value > 0) metrics.addMetric(name, MetricUnit.Count, value);
    },
  };
}

/**
 * `POWERTOOLS_SERVICE_NAME` when set and not blank (the constructs set it from their
 * `serviceName` prop), else the consumer's name. Powertools prefers a `serviceName` option to the
 * variable, so the variable has to be read here for the prop to take effect.
 */
function serviceNameFor(consumer: string): string {
  const fromEnv = process.env.POWERTOOLS_SERVICE_NAME;
  return fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv : consumer;
}

/** The keys that tie a log line to one event of one source. */
export function eventKeys(eventId: string | undefined, source: string, itemIdentifier: string): Record<string, string> {
  return { eventId: eventId ?? 'unknown', source, itemIdentifier };
}

import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { CONSUMER_ENV } from '../../../aws/consumer-env';
import { METRICS_NAMESPACE, type MetricName } from '../../../aws/metrics';

export { METRICS_NAMESPACE, MetricName } from '../../../aws/metrics';

/** The logger and metrics of one consumer. */
export interface Observability {
  readonly logger: Logger;
  readonly metrics: Metrics;
  count(name: MetricName, value?: number): void;
}

/**
 * A logger whose every line names the consumer (and, through {@link eventKeys}, the event and its
 * source), and metrics in the `EffectivelyOnce` namespace with Powertools' one dimension, `service`:
 * the service {@link serviceNameFor} gives, which both name.
 */
export function createObservability(consumer: string): Observability {
  const serviceName = serviceNameFor(consumer);
  const logger = new Logger({ serviceName, persistentKeys: { consumer } });
  const metrics = new Metrics({ namespace: process.env[CONSUMER_ENV.metricsNamespace] ?? METRICS_NAMESPACE, serviceName });
  return {
    logger,
    metrics,
    count: (name, value = 1) => {
      if (value > 0) metrics.addMetric(name, MetricUnit.Count, value);
    },
  };
}

/** One invocation's observability: its own log lines and counts, published once, when it ends. */
export interface InvocationObservability extends Observability {
  /** Publishes this invocation's counts, and only them. */
  flush(): void;
}

/**
 * The consumer's observability scoped to one invocation. On Lambda Managed Instances several
 * invocations run at once in one process and share the handler's module state: every log line
 * here carries its invocation's request id (`function_request_id`, Powertools' name for it), and
 * its counts are kept apart and published in one synchronous step when it ends, so no other
 * invocation's counts can come between them and the flush (with or without the runtime's invoke
 * store, which scopes Powertools' own state per invocation only where it exists).
 */
export function invocationObservability(base: Observability, lambdaContext?: Pick<Context, 'awsRequestId'>): InvocationObservability {
  const counts = new Map<MetricName, number>();
  const requestId = lambdaContext?.awsRequestId;
  const logger = requestId === undefined || requestId === '' ? base.logger : base.logger.createChild({ persistentKeys: { function_request_id: requestId } });
  return {
    logger,
    metrics: base.metrics,
    count: (name, value = 1) => {
      if (value > 0) counts.set(name, (counts.get(name) ?? 0) + value);
    },
    flush: () => {
      for (const [name, value] of counts) base.count(name, value);
      counts.clear();
      base.metrics.publishStoredMetrics();
    },
  };
}

/**
 * `POWERTOOLS_SERVICE_NAME` when set and not blank (the constructs set it from their
 * `serviceName` prop), else the consumer's name. Powertools prefers a `serviceName` option to the
 * variable, so the variable has to be read here for the prop to take effect.
 */
function serviceNameFor(consumer: string): string {
  const fromEnv = process.env[CONSUMER_ENV.serviceName];
  return fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv : consumer;
}

/** The keys that tie a log line to one event of one source. */
export function eventKeys(eventId: string | undefined, source: string, itemIdentifier: string): Record<string, string> {
  return { eventId: eventId ?? 'unknown', source, itemIdentifier };
}

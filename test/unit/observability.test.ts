/**
 * The consumer's logger and metrics. Metrics output is disabled and the log level SILENT so that
 * nothing reaches stdout; the tests read the stored metrics instead of the EMF lines.
 */
import { createObservability, eventKeys, METRICS_NAMESPACE, MetricName } from '../../lambdas/runtime/observability';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

describe('createObservability', () => {
  test('count stores a metric; a count of zero stores nothing (no empty datapoints)', () => {
    const observability = createObservability('page-view-counter');
    observability.count(MetricName.PROCESSED, 0);
    expect(observability.metrics.hasStoredMetrics()).toBe(false);
    observability.count(MetricName.SENT_TO_DLQ);
    expect(observability.metrics.hasStoredMetrics()).toBe(true);
  });

  test('the logger names the consumer on every line', () => {
    const observability = createObservability('page-view-counter');
    expect(observability.logger.getPersistentLogAttributes()).toMatchObject({ consumer: 'page-view-counter' });
  });

  test('metric names are stable: dashboards and alarms refer to them', () => {
    expect(METRICS_NAMESPACE).toBe('EffectivelyOnce');
    expect(Object.values(MetricName)).toEqual(['EventsProcessed', 'DuplicatesSkipped', 'ConflictingDuplicates', 'TransientFailures', 'PermanentFailures', 'SentToDlq', 'StaleWritesSkipped']);
  });
});

describe('eventKeys', () => {
  test('ties a log line to the event and its source record', () => {
    expect(eventKeys('evt-1', 'sqs', 'm-1')).toEqual({ eventId: 'evt-1', source: 'sqs', itemIdentifier: 'm-1' });
    expect(eventKeys(undefined, 'kinesis', '4959')).toEqual({ eventId: 'unknown', source: 'kinesis', itemIdentifier: '4959' });
  });
});

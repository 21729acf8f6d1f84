/**
 * The consumer's logger and metrics. Metrics output is disabled and the log level SILENT so that
 * nothing reaches stdout; the tests read the stored metrics instead of the EMF lines.
 */
import { createObservability, eventKeys, METRICS_NAMESPACE, MetricName, type Observability } from '../../../../lambdas/runtime/core/observability';

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

/** Builds the consumer's observability with `POWERTOOLS_SERVICE_NAME` set as given (undefined: unset) and the logger at INFO. */
function observabilityWith(serviceName: string | undefined, consumer = 'page-view-counter'): Observability {
  const saved = { service: process.env.POWERTOOLS_SERVICE_NAME, level: process.env.POWERTOOLS_LOG_LEVEL };
  setEnv('POWERTOOLS_SERVICE_NAME', serviceName);
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  try {
    return createObservability(consumer);
  } finally {
    setEnv('POWERTOOLS_SERVICE_NAME', saved.service);
    setEnv('POWERTOOLS_LOG_LEVEL', saved.level);
  }
}

function setEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** The JSON line the logger writes for one info message, caught on its way to stdout. */
function loggedLine(observability: Observability): Record<string, unknown> {
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    observability.logger.info('hello');
    return JSON.parse(String(write.mock.calls[0][0])) as Record<string, unknown>;
  } finally {
    write.mockRestore();
  }
}

/** The `service` dimension of the metrics' EMF output. */
function metricService(observability: Observability): unknown {
  observability.count(MetricName.PROCESSED);
  return (observability.metrics.serializeMetrics() as unknown as Record<string, unknown>).service;
}

describe('createObservability: the service name', () => {
  test('POWERTOOLS_SERVICE_NAME (set by the construct\'s serviceName prop) names the service in log lines and metrics; the consumer key stays', () => {
    const observability = observabilityWith('page-views');
    const line = loggedLine(observability);
    expect(line.service).toBe('page-views');
    expect(line.consumer).toBe('page-view-counter');
    expect(metricService(observability)).toBe('page-views');
  });

  test.each([[undefined], [''], ['  ']])('without it (%p) the consumer names the service', (serviceName) => {
    const observability = observabilityWith(serviceName);
    expect(loggedLine(observability).service).toBe('page-view-counter');
    expect(metricService(observability)).toBe('page-view-counter');
  });
});

describe('eventKeys', () => {
  test('ties a log line to the event and its source record', () => {
    expect(eventKeys('evt-1', 'sqs', 'm-1')).toEqual({ eventId: 'evt-1', source: 'sqs', itemIdentifier: 'm-1' });
    expect(eventKeys(undefined, 'kinesis', '4959')).toEqual({ eventId: 'unknown', source: 'kinesis', itemIdentifier: '4959' });
  });
});

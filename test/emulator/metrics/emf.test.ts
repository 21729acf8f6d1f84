/**
 * CloudWatch's embedded metric format as Lambda's log agent reads it from a function's stdout, and
 * the output sink that records it while passing the output on untouched.
 */
import { emfDatapoints, emfRecorder, MetricStore, type MetricKey } from '../../../emulator/metrics';
import type { OutputSource } from '../../../emulator/functions/output';

const TIMESTAMP = 1796118055404;

/** A line as Powertools' Metrics writes it on flush. */
function powertoolsLine(fields: Record<string, unknown> = {}, directive: Record<string, unknown> = {}): string {
  return JSON.stringify({
    _aws: {
      Timestamp: TIMESTAMP,
      CloudWatchMetrics: [{ Namespace: 'EffectivelyOnce', Dimensions: [['service']], Metrics: [{ Name: 'EventsProcessed', Unit: 'Count' }, { Name: 'DuplicatesSkipped', Unit: 'Count' }], ...directive }],
    },
    service: 'page-view-counter',
    EventsProcessed: 94,
    DuplicatesSkipped: 5,
    ...fields,
  });
}

const metric = (metricName: string, dimensions: Record<string, string> = { service: 'page-view-counter' }): MetricKey => ({ namespace: 'EffectivelyOnce', metricName, dimensions });

describe('emfDatapoints', () => {
  test('a Powertools line gives one datapoint per metric, dimensioned by service, at its timestamp', () => {
    const line = '{"_aws":{"Timestamp":1796118055404,"CloudWatchMetrics":[{"Namespace":"EffectivelyOnce","Dimensions":[["service"]],"Metrics":[{"Name":"EventsProcessed","Unit":"Count"},{"Name":"DuplicatesSkipped","Unit":"Count"}]}]},"service":"page-view-counter","EventsProcessed":94,"DuplicatesSkipped":5}';
    expect(emfDatapoints(line)).toEqual([
      { key: metric('EventsProcessed'), value: 94, at: TIMESTAMP },
      { key: metric('DuplicatesSkipped'), value: 5, at: TIMESTAMP },
    ]);
  });

  test('an array of values gives a datapoint for each', () => {
    expect(emfDatapoints(powertoolsLine({ EventsProcessed: [3, 4] }))).toEqual([
      { key: metric('EventsProcessed'), value: 3, at: TIMESTAMP },
      { key: metric('EventsProcessed'), value: 4, at: TIMESTAMP },
      { key: metric('DuplicatesSkipped'), value: 5, at: TIMESTAMP },
    ]);
  });

  test('each dimension set makes its own metric', () => {
    const line = powertoolsLine({ source: 'orders' }, { Dimensions: [['service'], ['service', 'source']], Metrics: [{ Name: 'EventsProcessed', Unit: 'Count' }] });
    expect(emfDatapoints(line).map((point) => point.key)).toEqual([metric('EventsProcessed'), metric('EventsProcessed', { service: 'page-view-counter', source: 'orders' })]);
  });

  test('a dimension set whose value the line does not carry is dropped, and the others kept', () => {
    const line = powertoolsLine({}, { Dimensions: [['service', 'tenant'], ['service']], Metrics: [{ Name: 'EventsProcessed', Unit: 'Count' }] });
    expect(emfDatapoints(line)).toEqual([{ key: metric('EventsProcessed'), value: 94, at: TIMESTAMP }]);
  });

  test.each([
    ['no Dimensions', { Dimensions: undefined }],
    ['an empty Dimensions', { Dimensions: [] }],
    ['one empty dimension set', { Dimensions: [[]] }],
  ])('%s gives one metric with no dimensions', (_, directive) => {
    expect(emfDatapoints(powertoolsLine({}, { ...directive, Metrics: [{ Name: 'EventsProcessed', Unit: 'Count' }] }))).toEqual([{ key: metric('EventsProcessed', {}), value: 94, at: TIMESTAMP }]);
  });

  test('a metric the line names but carries no number for gives no datapoint', () => {
    expect(emfDatapoints(powertoolsLine({ DuplicatesSkipped: 'five' })).map((point) => point.key.metricName)).toEqual(['EventsProcessed']);
  });

  test.each([
    ['a JSON log line without _aws', JSON.stringify({ level: 'INFO', message: 'processed', service: 'page-view-counter', EventsProcessed: 94 })],
    ['a JSON line whose _aws has no CloudWatchMetrics', JSON.stringify({ _aws: { Timestamp: TIMESTAMP }, EventsProcessed: 94 })],
    ['a plain text line', 'START RequestId: 6f1c Version: $LATEST'],
    ['malformed JSON', powertoolsLine().slice(0, -1)],
    ['a JSON array', `[${powertoolsLine()}]`],
    ['an empty line', ''],
  ])('%s gives no datapoints', (_, line) => {
    expect(emfDatapoints(line)).toEqual([]);
  });
});

describe('emfRecorder', () => {
  const stdout = (functionName: string): OutputSource => ({ functionName, stream: 'stdout' });

  function recorder(): { store: MetricStore; passed: Array<[string, OutputSource]>; sink: ReturnType<typeof emfRecorder> } {
    const store = new MetricStore();
    const passed: Array<[string, OutputSource]> = [];
    return { store, passed, sink: emfRecorder(store, (chunk, source) => passed.push([chunk, source])) };
  }

  const processed = (store: MetricStore, service = 'page-view-counter'): number | undefined => store.statistic(metric('EventsProcessed', { service }), 'Sum', 0, Number.MAX_SAFE_INTEGER);

  test('records a line split across chunks once its end arrives', () => {
    const { store, sink } = recorder();
    const line = `${powertoolsLine()}\n`;
    sink(line.slice(0, 40), stdout('page-view-counter'));
    sink(line.slice(40, 90), stdout('page-view-counter'));
    expect(store.keys()).toEqual([]);
    sink(line.slice(90), stdout('page-view-counter'));
    expect(processed(store)).toBe(94);
    expect(store.datapoints(metric('DuplicatesSkipped'), 0, Number.MAX_SAFE_INTEGER)).toEqual([{ at: TIMESTAMP, value: 5 }]);
  });

  test('records every line of a chunk that carries several', () => {
    const { store, sink } = recorder();
    sink(`${powertoolsLine()}\nplain text\n${powertoolsLine({ EventsProcessed: 6 })}\n`, stdout('page-view-counter'));
    expect(processed(store)).toBe(100);
  });

  test("keeps two functions' partial lines apart", () => {
    const { store, sink } = recorder();
    const counter = `${powertoolsLine()}\n`;
    const orders = `${powertoolsLine({ service: 'order-processor', EventsProcessed: 7 })}\n`;
    sink(counter.slice(0, 50), stdout('page-view-counter'));
    sink(orders.slice(0, 60), stdout('order-processor'));
    sink(counter.slice(50), stdout('page-view-counter'));
    sink(orders.slice(60), stdout('order-processor'));
    expect(processed(store)).toBe(94);
    expect(processed(store, 'order-processor')).toBe(7);
  });

  test('ignores stderr', () => {
    const { store, sink } = recorder();
    sink(`${powertoolsLine()}\n`, { functionName: 'page-view-counter', stream: 'stderr' });
    expect(store.keys()).toEqual([]);
  });

  test('passes every chunk on to next unchanged, stdout and stderr, split or not', () => {
    const { passed, sink } = recorder();
    const line = `${powertoolsLine()}\n`;
    const chunks: Array<[string, OutputSource]> = [
      [line.slice(0, 30), stdout('page-view-counter')],
      ['{"level":"ERROR","message":"boom"}\n', { functionName: 'page-view-counter', stream: 'stderr' }],
      [line.slice(30), stdout('page-view-counter')],
      ['not json\n', stdout('order-processor')],
    ];
    for (const [chunk, source] of chunks) sink(chunk, source);
    expect(passed).toEqual(chunks);
  });
});

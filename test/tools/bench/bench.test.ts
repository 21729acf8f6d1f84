/**
 * The benchmark's pure parts: the workload it generates (the duplicates it promises, where they
 * fall), the capacity it prices from the requests made (DynamoDB's rules, not the emulator's),
 * how the cold-start part bundles and compares (the deployment's options, both SDK placements,
 * the ratios to the bare handler), and the Lambda context it hands each batch.
 */
import { existsSync } from 'node:fs';
import type { SQSRecord } from 'aws-lambda';
import { BENCH_DEFAULTS, capacityOf, generateWorkload, itemSize, planBenchmark, STRATEGY_NAMES, type StrategyName } from '../../../tools/bench';
import { BARE_HANDLER, coldStartHandlers, compareColdStarts, esbuildOptions, EXAMPLE_HANDLERS, RUNTIME_PROVIDED_MODULES, type MeasuredBundle } from '../../../tools/bench/coldstart';
import type { MeteredCall } from '../../../tools/bench/metering';
import { invocationContext } from '../../../tools/bench/invocation-context';
import { coldStartTable } from '../../../tools/bench/report';
import { CONSUMER_BUNDLING } from '../../../lib/consumer-function';
import { CONSUMER_DEFAULTS } from '../../../lib/defaults';

const eventIdOf = (record: SQSRecord): string => (JSON.parse(record.body) as { eventId: string }).eventId;

describe('generateWorkload', () => {
  const workload = generateWorkload({ events: 3_000, seed: 7 });
  const batches = workload.batches.map((batch) => batch.Records);

  test('is the same for the same seed, and another for another seed', () => {
    expect(generateWorkload({ events: 3_000, seed: 7 })).toEqual(workload);
    expect(generateWorkload({ events: 3_000, seed: 8 }).batches[0]).not.toEqual(workload.batches[0]);
  });

  test('delivers the records asked for, 10% of them duplicates, in batches of at most 100', () => {
    expect(batches.flat()).toHaveLength(3_000);
    expect(batches.every((records) => records.length <= 100)).toBe(true);
    expect(new Set(batches.flat().map(eventIdOf)).size).toBe(workload.distinctEvents);
    expect(workload).toMatchObject({ distinctEvents: 2_700, inBatchDuplicates: 150, redeliveries: 150 });
  });

  test('an in-batch duplicate is a producer retry: same event id, a new message id, in the same batch', () => {
    const firstDeliveries = batches.map((records) => records.filter((record) => record.attributes.ApproximateReceiveCount === '1'));
    const twins = firstDeliveries.flatMap((records) => records.filter((record, position) => records.findIndex((other) => eventIdOf(other) === eventIdOf(record)) !== position));
    expect(twins).toHaveLength(150);
    const messageIds = new Map<string, Set<string>>();
    for (const record of batches.flat()) messageIds.set(eventIdOf(record), (messageIds.get(eventIdOf(record)) ?? new Set()).add(record.messageId));
    for (const twin of twins) expect(messageIds.get(eventIdOf(twin))?.size).toBe(2);
  });

  test('a redelivery is the same message again, with a higher receive count, in a later batch', () => {
    const firstBatchOf = new Map<string, number>();
    batches.forEach((records, index) => records.forEach((record) => firstBatchOf.set(record.messageId, firstBatchOf.get(record.messageId) ?? index)));
    const redelivered = batches.flatMap((records, index) => records.filter((record) => record.attributes.ApproximateReceiveCount !== '1').map((record) => ({ record, index })));
    expect(redelivered).toHaveLength(150);
    for (const { record, index } of redelivered) expect(index).toBeGreaterThan(firstBatchOf.get(record.messageId) as number);
  });

  test('expects one view per distinct event on its page and on its day', () => {
    const pages = [...workload.expected].filter(([key]) => key.startsWith('page#'));
    const days = [...workload.expected].filter(([key]) => key.startsWith('day#'));
    expect(pages.reduce((sum, [, views]) => sum + views, 0)).toBe(2_700);
    expect(days.reduce((sum, [, views]) => sum + views, 0)).toBe(2_700);
    expect(days).toHaveLength(5);
    expect(pages.length).toBeGreaterThan(100);
  });

  test('scattered redeliveries spread over many batches', () => {
    const scattered = generateWorkload({ events: 3_000, seed: 7, redeliveries: 'scattered' });
    const withRedeliveries = scattered.batches.filter((batch) => batch.Records.some((record) => record.attributes.ApproximateReceiveCount !== '1'));
    expect(scattered.redeliveries).toBe(150);
    expect(withRedeliveries.length).toBeGreaterThan(20);
  });

  test.each([
    [{ events: 0 }, /events must be/],
    [{ duplicateRate: 0.6 }, /duplicateRate must be/],
    [{ batchSize: 1 }, /batchSize must be/],
  ])('refuses %p', (options, message) => {
    expect(() => generateWorkload({ events: 100, seed: 1, ...options })).toThrow(message);
  });
});

describe('planBenchmark', () => {
  test('a crash-window workload of its own size, with the same seed, or none when skipped', () => {
    expect(planBenchmark({ crashWindowEvents: 200 }).crashWindowWorkload?.deliveries).toBe(200);
    expect(planBenchmark({ crashWindowEvents: 0 }).crashWindowWorkload).toBeUndefined();
  });

  test('fills in the defaults: every strategy, batches of 100, 10% duplicates', () => {
    const { settings, workload } = planBenchmark();
    expect(settings).toMatchObject({ ...BENCH_DEFAULTS, batchSize: 100, duplicateRate: 0.1, strategies: STRATEGY_NAMES });
    expect(workload.deliveries).toBe(BENCH_DEFAULTS.events);
  });

  test('runs the SQL part by default, and alone when no DynamoDB strategy is named', () => {
    expect(planBenchmark().settings.sql).toBe(true);
    expect(planBenchmark({ strategies: [] }).settings).toMatchObject({ strategies: [], sql: true });
  });

  test.each([
    [{ rounds: 0 }, /rounds must be a whole number >= 1/],
    [{ warmupEvents: -1 }, /warmupEvents must be/],
    [{ coldStartSamples: 1.5 }, /coldStartSamples must be/],
    [{ strategies: [], sql: false }, /at least one of naive, powertools, direct, transactional, batch, or the SQL part be on/],
    [{ strategies: ['batch', 'batch'] as StrategyName[] }, /must not repeat/],
    [{ strategies: ['fast'] as unknown as StrategyName[] }, /unknown strategies fast/],
    [{ events: 0 }, /events must be a whole number >= 1/],
    [{ crashWindowEvents: -5 }, /crashWindowEvents must be a whole number >= 0/],
    [{ crashWindowRate: 0 }, /crashWindowRate must be more than 0 and at most 1/],
    [{ crashWindowRate: 1.5 }, /crashWindowRate must be more than 0 and at most 1/],
    [{ crashWindowTimeoutMs: 999 }, /crashWindowTimeoutMs must be a whole number of ms in 1000..900000/],
  ])('refuses %p with a RangeError that names it', (options, message) => {
    expect(() => planBenchmark(options)).toThrow(RangeError);
    expect(() => planBenchmark(options)).toThrow(message);
  });
});

describe('capacityOf', () => {
  const call = (command: string, input: Record<string, unknown>, outcome: MeteredCall['outcome'] = 'ok'): MeteredCall => ({ command, input, outcome });
  const counterUpdate = { TableName: 'counters', Key: { pk: { S: 'page#home' } }, UpdateExpression: 'ADD #a :v', ExpressionAttributeNames: { '#a': 'views' }, ExpressionAttributeValues: { ':v': { N: '1' } } };
  const dedupPut = { TableName: 'idempotency', Item: { id: { S: 'c#e-1' }, expiration: { N: '1800000000' }, payloadHash: { S: 'abc' } }, ConditionExpression: 'attribute_not_exists(id)' };

  test('a standard write of a small item is 1 WRU, also when its condition fails', () => {
    expect(capacityOf([call('UpdateItemCommand', counterUpdate), call('PutItemCommand', dedupPut, 'condition-failed')])).toMatchObject({ requests: 2, writeUnits: 2 });
  });

  test('a transactional write is 2 WRUs per item, and a cancelled transaction is charged as if committed', () => {
    const transaction = { TransactItems: [{ Put: dedupPut }, { Update: counterUpdate }, { Update: counterUpdate }] };
    const capacity = capacityOf([call('TransactWriteItemsCommand', transaction), call('TransactWriteItemsCommand', transaction, 'cancelled')]);
    expect(capacity).toMatchObject({ requests: 2, writeUnits: 12, cancelledWriteUnits: 6, byCommand: { TransactWriteItemsCommand: 2 } });
  });

  test('a request refused otherwise (throttled, a server error) is counted but not charged', () => {
    const transaction = { TransactItems: [{ Put: dedupPut }, { Update: counterUpdate }] };
    expect(capacityOf([call('TransactWriteItemsCommand', transaction, 'error'), call('UpdateItemCommand', counterUpdate, 'error')])).toMatchObject({ requests: 2, writeUnits: 0, readUnits: 0 });
  });

  test('an item over 1 KB costs a WRU per started KB', () => {
    const big = { ...dedupPut, Item: { ...dedupPut.Item, data: { S: 'x'.repeat(2_000) } } };
    expect(itemSize(big.Item)).toBeGreaterThan(2_000);
    expect(capacityOf([call('PutItemCommand', big)]).writeUnits).toBe(2);
  });

  test('a consistent BatchGetItem costs 1 RRU per key, found or not; an eventually consistent one half', () => {
    const keys = [{ id: { S: 'a' } }, { id: { S: 'b' } }];
    expect(capacityOf([call('BatchGetItemCommand', { RequestItems: { t: { Keys: keys, ConsistentRead: true } } })]).readUnits).toBe(2);
    expect(capacityOf([call('BatchGetItemCommand', { RequestItems: { t: { Keys: keys } } })]).readUnits).toBe(1);
  });

  test('item sizes follow DynamoDB: names and values, numbers by significant digits', () => {
    expect(itemSize({ pk: { S: 'page#home' } })).toBe(2 + 9);
    expect(itemSize({ n: { N: '12345' } })).toBe(1 + 4);
    expect(itemSize({ b: { BOOL: true }, m: { M: { k: { S: 'v' } } } })).toBe(1 + 1 + 1 + 3 + 1 + 1 + 1);
  });
});

describe('cold start', () => {
  test('bundles with the deployed options: nothing external, minified, with a source map, for the runtime', () => {
    expect(CONSUMER_BUNDLING.externalModules).toEqual([]);
    expect(esbuildOptions('bundled')).toMatchObject({ bundle: true, platform: 'node', format: 'cjs', minify: true, sourcemap: true, target: 'node24', external: [] });
  });

  test('the external variant differs only in leaving the runtime-provided SDK out, as CDK does by default', () => {
    const { external, ...rest } = esbuildOptions('external');
    expect(external).toEqual([...RUNTIME_PROVIDED_MODULES]);
    expect(rest).toEqual({ ...esbuildOptions('bundled'), external: undefined });
  });

  test('refuses a bundling option it cannot pass on to esbuild, naming it', () => {
    expect(() => esbuildOptions('bundled', { ...CONSUMER_BUNDLING, keepNames: true })).toThrow(/bundling options keepNames/);
  });

  const row = (handler: string, sdk: MeasuredBundle['sdk'], bundleBytes: number, initMs: number): MeasuredBundle => ({ handler, sdk, bundleBytes, sourceMapBytes: 3 * bundleBytes, initMs });
  const measured = [
    row('bare', 'bundled', 1_024, 100),
    row('bare', 'external', 512, 80),
    row('batch', 'bundled', 2_048, 150),
    row('batch', 'external', 1_024, 100),
    row('naive', 'bundled', 3_072, 90),
    row('naive', 'external', 1_024, 60),
  ];

  test('compares each bundle with the bare handler with the same SDK placement, and with the same handler with the SDK external', () => {
    const rows = compareColdStarts(measured);
    expect(rows.map((entry) => [entry.handler, entry.sdk, entry.bundleRatio, entry.initRatio, entry.vsExternal])).toEqual([
      ['bare', 'bundled', 1, 1, { bundleBytes: 2, initMs: 1.25 }],
      ['bare', 'external', 1, 1, { bundleBytes: 1, initMs: 1 }],
      ['batch', 'bundled', 2, 1.5, { bundleBytes: 2, initMs: 1.5 }],
      ['batch', 'external', 2, 1.25, { bundleBytes: 1, initMs: 1 }],
      ['naive', 'bundled', 3, 0.9, { bundleBytes: 3, initMs: 1.5 }],
      ['naive', 'external', 2, 0.75, { bundleBytes: 1, initMs: 1 }],
    ]);
    expect(coldStartTable(rows).split('\n')[4]).toMatch(/^batch\s+bundled\s+2\.0\s+6\.0\s+150\.0\s+2\.00x\s+1\.50x\s+2\.00x\s+1\.50x$/);
  });

  test('each row leads with the fields the issue names, the bundle size in KiB', () => {
    const [first] = compareColdStarts([row('bare', 'bundled', 1_500, 100), row('bare', 'external', 1_500, 100)]);
    expect(Object.keys(first ?? {}).slice(0, 6)).toEqual(['handler', 'sdk', 'bundleKiB', 'initMs', 'bundleRatio', 'initRatio']);
    expect(first).toMatchObject({ handler: 'bare', bundleKiB: 1.5, bundleBytes: 1_500, sourceMapBytes: 4_500 });
  });

  test.each([
    ['without its external variant', measured.filter((entry) => !(entry.handler === 'batch' && entry.sdk === 'external')), /no cold start of batch with the SDK external/],
    ['without the bare handler', measured.filter((entry) => entry.handler !== 'bare'), /no cold start of bare with the SDK bundled/],
  ])('refuses a handler measured %s', (_case, rows, message) => {
    expect(() => compareColdStarts(rows)).toThrow(message);
  });

  test('measures the bare handler first, then the strategies asked for, then the example app\'s handlers, each from a file that exists', () => {
    const handlers = coldStartHandlers(['batch', 'powertools']);
    expect(handlers.map(({ handler }) => handler)).toEqual([BARE_HANDLER, 'batch', 'powertools', ...EXAMPLE_HANDLERS]);
    for (const { entry } of handlers) expect(existsSync(entry)).toBe(true);
    expect(handlers.find(({ handler }) => handler === 'page-view-counter')?.entry).toMatch(/example\/handlers\/page-view-counter\.ts$/);
  });
});

describe('invocationContext', () => {
  test('counts down from the deployed consumers\' timeout, as Lambda\'s context does', () => {
    const context = invocationContext('bench-batch');
    expect(context.functionName).toBe('bench-batch');
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(CONSUMER_DEFAULTS.timeout.toMilliseconds() - 1_000);
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(CONSUMER_DEFAULTS.timeout.toMilliseconds());
    expect(invocationContext('bench-batch', 0).getRemainingTimeInMillis()).toBe(0);
  });
});

/**
 * The bench's peer is Powertools as its users run it: its own `BatchProcessor` handed the batch
 * through `processPartialResponse`, the records of one batch processed at once, each made
 * idempotent by Powertools with the Lambda context registered, and none of our consumer in the way.
 * A slow fake DynamoDB shows the overlap: one effect at a time is the sequential peer this replaced.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchProcessor } from '@aws-lambda-powertools/batch';
import { createConsumer } from '../../../lambdas/runtime/consumer/consumer';
import { createStrategyHandler } from '../../../tools/bench/strategies';
import { describePeer } from '../../../tools/bench/handlers/powertools';
import { FakeClient, type RecordedCommand } from '../../helpers/fakes';
import { lambdaContext, pageView, sqsEvent, sqsRecord } from '../../helpers/events';

jest.mock('@aws-lambda-powertools/batch', () => {
  const actual = jest.requireActual<typeof import('@aws-lambda-powertools/batch')>('@aws-lambda-powertools/batch');
  return { ...actual, processPartialResponse: jest.fn(actual.processPartialResponse) };
});
jest.mock('../../../lambdas/runtime/consumer/consumer', () => {
  const actual = jest.requireActual<typeof import('../../../lambdas/runtime/consumer/consumer')>('../../../lambdas/runtime/consumer/consumer');
  return { ...actual, createConsumer: jest.fn(actual.createConsumer) };
});

const { processPartialResponse } = jest.requireMock<typeof import('@aws-lambda-powertools/batch')>('@aws-lambda-powertools/batch');
const EFFECT_MS = 30;
const tables = { countersTable: 'counters', idempotencyTable: 'idempotency' };

/** DynamoDB as the peer sees it: every counter update takes a while, and the overlap is recorded. */
function slowDynamo(): { client: DynamoDBClient; fake: FakeClient; maxInFlight: () => number } {
  let inFlight = 0;
  let maxInFlight = 0;
  const fake = new FakeClient(async (command: RecordedCommand) => {
    if (command.name !== 'UpdateItemCommand' || command.input.TableName !== tables.countersTable) return {};
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, EFFECT_MS));
    inFlight -= 1;
    return {};
  });
  // A real client, so that Powertools accepts it as an SDK v3 client, answering through the fake.
  const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  client.send = fake.send as never;
  return { client, fake, maxInFlight: () => maxInFlight };
}

const batchOf = (count: number) => sqsEvent(...Array.from({ length: count }, (_, index) => sqsRecord(pageView(`page-${index}`, `view-${index}`))));

beforeEach(() => jest.clearAllMocks());

describe('the bench peer (`powertools`)', () => {
  test('hands the batch to Powertools\' own BatchProcessor through processPartialResponse, in parallel, with the context', async () => {
    const { client } = slowDynamo();
    const context = lambdaContext('bench-powertools');
    const event = batchOf(3);
    const response = await createStrategyHandler('powertools', { ...tables, dynamodb: client })(event, context);
    expect(response.batchItemFailures).toEqual([]);
    expect(processPartialResponse).toHaveBeenCalledTimes(1);
    const [given, , processor, options] = (processPartialResponse as jest.Mock).mock.calls[0] as [unknown, unknown, unknown, { context?: unknown; processInParallel?: boolean }];
    expect(given).toBe(event);
    expect(processor).toBeInstanceOf(BatchProcessor);
    expect(options.context).toBe(context);
    expect(options.processInParallel).not.toBe(false);
  });

  test('runs the records of one batch at once: their effects overlap', async () => {
    const { client, maxInFlight } = slowDynamo();
    await createStrategyHandler('powertools', { ...tables, dynamodb: client })(batchOf(4), lambdaContext('bench-powertools'));
    // Every record's first counter update in flight at once (the sequential peer: 1). Counted, not
    // timed, so that a loaded machine cannot make it pass or fail.
    expect(maxInFlight()).toBe(4);
  });

  test('builds none of our consumer', async () => {
    const { client } = slowDynamo();
    await createStrategyHandler('powertools', { ...tables, dynamodb: client })(batchOf(2), lambdaContext('bench-powertools'));
    expect(createConsumer).not.toHaveBeenCalled();
  });

  test('makes each record idempotent with Powertools on the event id, the lock bounded by the registered context', async () => {
    const { client, fake } = slowDynamo();
    const before = Date.now();
    await createStrategyHandler('powertools', { ...tables, dynamodb: client })(batchOf(2), lambdaContext('bench-powertools', 30_000));
    const puts = fake.commandsNamed('PutItemCommand').map((command) => command.input as { TableName: string; Item: Record<string, { S?: string; N?: string }> });
    expect(puts).toHaveLength(2);
    for (const put of puts) {
      expect(put.TableName).toBe(tables.idempotencyTable);
      expect(put.Item.id?.S).toMatch(/^bench-powertools#/);
      expect(Number(put.Item.in_progress_expiration?.N)).toBeGreaterThan(before);
      expect(Number(put.Item.in_progress_expiration?.N)).toBeLessThanOrEqual(Date.now() + 30_000);
    }
    expect(new Set(puts.map((put) => put.Item.id?.S)).size).toBe(2);
    expect(fake.commandsNamed('UpdateItemCommand').filter((command) => command.input.TableName === tables.idempotencyTable)).toHaveLength(2);
  });

  test('describes itself from the installed package', () => {
    const manifest = path.join(path.dirname(require.resolve('@aws-lambda-powertools/batch')), '..', '..', 'package.json');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    expect(describePeer()).toEqual({ package: '@aws-lambda-powertools/batch', version, processor: 'BatchProcessor', processInParallel: true });
  });
});

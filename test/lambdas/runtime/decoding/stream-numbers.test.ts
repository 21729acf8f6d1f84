/**
 * DynamoDB numbers through a whole consumer: a DynamoDB Streams batch, the default decoder, the
 * transactional strategy, the DLQ. A DynamoDB number has up to 38 significant digits; a number no
 * JavaScript number holds exactly fails its record alone, permanently, to the DLQ with its context
 * (it never holds the shard as a transient failure retried on every delivery), and with
 * `numbers: 'lossless'` every number reaches the handler exactly, as a NumberValue.
 *
 * DynamoDB and SQS are fakes that record commands and succeed: what is under test is what the
 * runtime sends, not the engines. The records are AWS-shaped (the Lambda developer guide's
 * example event), their numbers written as DynamoDB writes them, as text.
 */
import type { DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { z } from 'zod';
import { DlqReason, type FailureEnvelope } from '../../../../aws/dlq-format';
import {
  createConsumer,
  DlqSender,
  dynamoStreamDecoder,
  increment,
  NumberValue,
  route,
  SourceKind,
  StreamNumbers,
  transactionalStrategy,
  type EventDecoder,
  type Routes,
  type Effects,
} from '../../../../lambdas/runtime';
import { dynamoEvent, dynamoStreamRecord } from '../../../helpers/events';
import { asClient, FakeClient, noSleep, recordingObservability } from '../../../helpers/fakes';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

/** 2^53 + 1: util-dynamodb alone makes it a BigInt, which JSON cannot hash. */
const BIG_INTEGER = '9007199254740993';
/** 38 significant digits: util-dynamodb alone makes it 0.12345678901234568. */
const LONG_FRACTION = '0.1234567890123456789012345678901234567';
const DEDUP = { table: 'idempotency', consumer: 'order-totals' };

/** An order's change whose new image holds `total` as DynamoDB wrote it. */
function orderChange(sequenceNumber: string, total: string, eventID = `evt-${sequenceNumber}`): DynamoDBRecord {
  const pk = { S: `order#${sequenceNumber}` };
  return dynamoStreamRecord({ eventName: 'MODIFY', eventID, sequenceNumber, keys: { pk }, newImage: { pk, total: { N: total } }, oldImage: { pk, total: { N: '0' } } });
}

function consumerWith(routes: Routes<Effects>, decode?: EventDecoder) {
  const dynamodb = new FakeClient();
  const sqs = new FakeClient(() => ({ MessageId: 'dlq-message' }));
  const handler = createConsumer<Effects>({
    name: DEDUP.consumer,
    source: SourceKind.DYNAMODB_STREAM,
    routes,
    decode,
    strategy: transactionalStrategy({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: DEDUP, retry: { sleep: noSleep, maxAttempts: 1 } }),
    dlq: new DlqSender(asClient<SQSClient>(sqs), 'https://sqs.us-east-1.amazonaws.com/000000000000/order-totals-dlq', { sleep: noSleep }),
    observability: recordingObservability(),
  });
  return {
    reported: async (...records: DynamoDBRecord[]) => (await handler(dynamoEvent(...records))).batchItemFailures.map((failure) => failure.itemIdentifier),
    dlqMessages: () => sqs.commandsNamed('SendMessageCommand').map((command) => JSON.parse(String(command.input.MessageBody)) as FailureEnvelope),
    /** The event ids whose dedup records the transactions put. */
    committed: () =>
      dynamodb.commandsNamed('TransactWriteItemsCommand').flatMap((command) =>
        (command.input.TransactItems as TransactWriteItem[]).flatMap((item) => (item.Put ? [String(item.Put.Item?.id?.S).slice(DEDUP.consumer.length + 1)] : [])),
      ),
  };
}

describe('by default a number no JavaScript number holds fails its record alone, to the DLQ', () => {
  const totals: unknown[] = [];
  const routes: Routes<Effects> = {
    'dynamodb.MODIFY': {
      handle: (event) => {
        totals.push((event.payload as { newImage: { total: unknown } }).newImage.total);
        return [increment('totals', { pk: 'orders' }, 'changes')];
      },
    },
  };
  beforeEach(() => totals.splice(0));

  test('2^53 + 1 and a 38-digit fraction go to the DLQ as permanent, not reported for retry; the later change is applied', async () => {
    const { reported, dlqMessages, committed } = consumerWith(routes);

    const failures = await reported(orderChange('100', BIG_INTEGER), orderChange('101', LONG_FRACTION), orderChange('102', '42.5'));

    expect(failures).toEqual([]);
    expect(dlqMessages().map((message) => [message.source.itemIdentifier, message.reason, message.error.name, message.error.kind])).toEqual([
      ['100', DlqReason.PERMANENT, 'UndecodableRecordError', 'permanent'],
      ['101', DlqReason.PERMANENT, 'UndecodableRecordError', 'permanent'],
    ]);
    expect(dlqMessages().map((message) => message.error.message.split(':')[0])).toEqual([
      `NewImage.total is the DynamoDB number ${BIG_INTEGER}, which no JavaScript number holds exactly (Number() would make it 9007199254740992)`,
      `NewImage.total is the DynamoDB number ${LONG_FRACTION}, which no JavaScript number holds exactly (Number() would make it 0.12345678901234568)`,
    ]);
    expect(dlqMessages()[0]?.error.message).toContain("numbers: 'lossless'");
    // The DLQ keeps the change as the stream wrote it, the number's text whole, for a redrive.
    expect(dlqMessages()[0]?.original.body).toContain(`"total":{"N":"${BIG_INTEGER}"}`);
    expect(totals).toEqual([42.5]);
    expect(committed()).toEqual(['evt-102']);
  });

  test('two copies of such a change in one batch both go to the DLQ: neither crashes the batch', async () => {
    const { reported, dlqMessages, committed } = consumerWith(routes);

    const failures = await reported(orderChange('200', BIG_INTEGER, 'evt-twin'), orderChange('201', BIG_INTEGER, 'evt-twin'));

    expect(failures).toEqual([]);
    expect(dlqMessages().map((message) => message.source.itemIdentifier)).toEqual(['200', '201']);
    expect(committed()).toEqual([]);
  });
});

describe("with numbers: 'lossless' every number reaches the handler exactly, as a NumberValue", () => {
  const totals: NumberValue[] = [];
  const changedTotal = z.object({ newImage: z.object({ total: z.instanceof(NumberValue) }), oldImage: z.object({ total: z.instanceof(NumberValue) }) });
  const routes: Routes<Effects> = {
    'dynamodb.MODIFY': route(changedTotal, (event) => {
      totals.push(event.payload.newImage.total);
      return [increment('totals', { pk: 'orders' }, 'changes')];
    }),
  };
  beforeEach(() => totals.splice(0));

  test('2^53 + 1, a 38-digit fraction and a small number all arrive with their text and are applied', async () => {
    const { reported, dlqMessages, committed } = consumerWith(routes, dynamoStreamDecoder(undefined, { numbers: StreamNumbers.LOSSLESS }));

    const failures = await reported(orderChange('300', BIG_INTEGER), orderChange('301', LONG_FRACTION), orderChange('302', '42.5'));

    expect(failures).toEqual([]);
    expect(dlqMessages()).toEqual([]);
    expect(totals.map((total) => total.value)).toEqual([BIG_INTEGER, LONG_FRACTION, '42.5']);
    expect(totals[0]?.toBigInt()).toBe(9_007_199_254_740_993n);
    expect(committed()).toEqual(['evt-300', 'evt-301', 'evt-302']);
  });

  test('two copies of the change in one batch: the second is a duplicate of the first', async () => {
    const { reported, dlqMessages, committed } = consumerWith(routes, dynamoStreamDecoder(undefined, { numbers: 'lossless' }));

    const failures = await reported(orderChange('400', BIG_INTEGER, 'evt-twin'), orderChange('401', BIG_INTEGER, 'evt-twin'));

    expect(failures).toEqual([]);
    expect(dlqMessages()).toEqual([]);
    expect(committed()).toEqual(['evt-twin']);
  });
});

/**
 * DynamoDB numbers from a real table's stream (DynamoDB Local) through a consumer that commits to
 * real tables and sends its failures to a real queue (fauxqs). The engine decides the text a
 * stream record carries (DynamoDB trims leading and trailing zeros); the runtime decides what a
 * handler gets: a number a double holds exactly as a number, any other to the DLQ by default, and
 * every one as a NumberValue with its text under `numbers: 'lossless'`.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { destroyClients, type LocalClients } from '../../../../emulator/engines';
import { createConsumer, DlqSender, dynamoStreamDecoder, increment, SourceKind, transactionalStrategy, type EventDecoder } from '../../../../lambdas/runtime';
import { dynamoEvent } from '../../../helpers/events';
import { createQueue, testClients, uniqueName } from '../../../helpers/engines';
import { countersOf, dlqFailures, idempotencyTable, pkTable } from '../../../helpers/fixtures';
import { readTableStream, tableStreamsClient } from '../../../helpers/streams';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

/** What is written, and the text the stream gives back for it. */
const TOTALS = {
  'order#big': ['9007199254740993', '9007199254740993'],
  'order#long': ['0.12345678901234567890123456789012345670', '0.1234567890123456789012345678901234567'],
  'order#small': ['042.50', '42.5'],
} as const;

let clients: LocalClients;
let changes: DynamoDBRecord[];

beforeAll(async () => {
  clients = testClients();
  const orders = await pkTable(clients.dynamodb, 'orders', true);
  for (const [pk, [written]] of Object.entries(TOTALS)) {
    await clients.dynamodb.send(new PutItemCommand({ TableName: orders.tableName, Item: { pk: { S: pk }, total: { N: written } } }));
  }
  changes = await readTableStream(tableStreamsClient(), orders.streamArn ?? '');
});
afterAll(() => destroyClients(clients));

/** A consumer that counts each change it is handed under the change's key, committing to real tables. */
async function countingConsumer(decode?: EventDecoder) {
  const [counters, idempotency, dlq] = await Promise.all([pkTable(clients.dynamodb, 'counters'), idempotencyTable(clients.dynamodb), createQueue(clients.sqs, uniqueName('numbers-dlq'))]);
  const totals: unknown[] = [];
  const handler = createConsumer({
    name: 'order-totals',
    source: SourceKind.DYNAMODB_STREAM,
    decode,
    routes: {
      'dynamodb.INSERT': {
        handle: (event) => {
          const { pk, total } = (event.payload as { newImage: { pk: string; total: unknown } }).newImage;
          totals.push(total);
          return [increment(counters.tableName, { pk }, 'views')];
        },
      },
    },
    strategy: transactionalStrategy({ dynamodb: clients.dynamodb, dedup: { table: idempotency, consumer: 'order-totals' } }),
    dlq: new DlqSender(clients.sqs, dlq.url),
  });
  const failures = (await handler(dynamoEvent(...changes))).batchItemFailures;
  return { failures, totals, counted: await countersOf(clients.dynamodb, counters.tableName), dlq: await dlqFailures(clients.sqs, dlq.url) };
}

test('the stream carries each number as DynamoDB keeps it: its text, leading and trailing zeros trimmed', () => {
  const texts = Object.fromEntries(changes.map((change) => [change.dynamodb?.NewImage?.pk?.S, change.dynamodb?.NewImage?.total?.N]));
  expect(texts).toEqual(Object.fromEntries(Object.entries(TOTALS).map(([pk, [, kept]]) => [pk, kept])));
});

test('by default the two numbers no double holds go to the DLQ as permanent, the third is applied as a number', async () => {
  const { failures, totals, counted, dlq } = await countingConsumer();
  expect(failures).toEqual([]);
  expect(totals).toEqual([42.5]);
  expect(counted).toEqual({ 'order#small': 1 });
  expect(dlq.map((failure) => [failure.error.name, failure.reason, failure.error.message.split(',')[0]]).sort()).toEqual([
    ['UndecodableRecordError', 'permanent', `NewImage.total is the DynamoDB number ${TOTALS['order#long'][1]}`],
    ['UndecodableRecordError', 'permanent', `NewImage.total is the DynamoDB number ${TOTALS['order#big'][1]}`],
  ]);
});

test("with numbers: 'lossless' every change is applied and every number arrives with its text", async () => {
  const { failures, totals, counted, dlq } = await countingConsumer(dynamoStreamDecoder(undefined, { numbers: 'lossless' }));
  expect(failures).toEqual([]);
  expect(dlq).toEqual([]);
  expect(totals.map(String).sort()).toEqual(Object.values(TOTALS).map(([, kept]) => kept).sort());
  expect(counted).toEqual({ 'order#big': 1, 'order#long': 1, 'order#small': 1 });
});

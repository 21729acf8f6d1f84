/**
 * An SQS FIFO consumer on the local engines, end to end: a FIFO source queue and FIFO DLQ on
 * fauxqs (through the contract layer), the emulated SQS mapping with two pollers, the runtime
 * committing to DynamoDB Local, and `eo dlq redrive` back into the FIFO queue. Each event appends
 * its sequence number to its account's history, so the history shows the order of application.
 *
 * - A transient failure in the middle of a group holds the group: the history keeps its order.
 * - A producer's retry after FIFO's 5-minute deduplication window (a new deduplication id) is
 *   delivered again, and counted once on its eventId.
 * - Two permanent failures of one group go to the FIFO DLQ in their order, and come back from it
 *   in that order once the cause is fixed.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { createConsumer, createEnvelope, DlqSender, outgoingMessage, PermanentError, publishToSqs, route, SourceKind, transactionalStrategy, TransientError, type BatchHandler, type Effect, type Envelope } from '../../../lambdas/runtime';
import { LOCAL_REGION } from '../../../emulator/engines';
import { SqsMapping } from '../../../emulator/event-sources/sqs-mapping';
import type { Invoker } from '../../../emulator/types';
import { redriveQueue } from '../../../operations/dlq';
import { createQueue, uniqueName, type CreatedQueue } from '../../helpers/engines';
import { idempotencyTable, itemByPk, pkTable } from '../../helpers/fixtures';
import { pollUntil } from '../../helpers/poll';
import { contextOf, dlqTestClients, FAST_SWEEP, topologyOf } from './support';

const { clients, streams } = dlqTestClients();
const ENTRY = 'ledger.entry';
const noWait = { sleep: async () => undefined, maxAttempts: 1 };

interface Ledger {
  readonly queue: CreatedQueue;
  readonly dlq: CreatedQueue;
  readonly table: string;
  readonly consumer: BatchHandler;
  /** Deliveries of each `<account>:<seq>` so far. */
  readonly deliveries: Map<string, number>;
  /** Flips the permanent failure of account `c` off: the fix is deployed. */
  fix(): void;
}

async function fifoQueueWithDlq(prefix: string): Promise<{ queue: CreatedQueue; dlq: CreatedQueue }> {
  const dlq = await createQueue(clients.sqs, `${uniqueName(`${prefix}-dlq`)}.fifo`, { FifoQueue: 'true' });
  const queue = await createQueue(clients.sqs, `${uniqueName(prefix)}.fifo`, { FifoQueue: 'true', VisibilityTimeout: '2', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 6 }) });
  return { queue, dlq };
}

/**
 * The ledger consumer: `a:2` fails transiently on its first two deliveries; account `c` fails
 * permanently until `fix()`.
 */
async function setUp(): Promise<Ledger> {
  const [idempotency, history, { queue, dlq }] = await Promise.all([idempotencyTable(clients.dynamodb), pkTable(clients.dynamodb, 'ledger'), fifoQueueWithDlq('ledger')]);
  const deliveries = new Map<string, number>();
  let fixed = false;
  const entry = z.object({ account: z.string(), seq: z.number() });
  const consumer = createConsumer({
    name: 'ledger',
    source: SourceKind.SQS,
    routes: {
      [ENTRY]: route(entry, ({ payload }): Effect[] => {
        const key = `${payload.account}:${payload.seq}`;
        const delivery = (deliveries.get(key) ?? 0) + 1;
        deliveries.set(key, delivery);
        if (key === 'a:2' && delivery <= 2) throw new TransientError('a:2 fails for now');
        if (payload.account === 'c' && !fixed) throw new PermanentError('account c is closed until the fix');
        return [{ kind: 'update', table: history.tableName, key: { pk: payload.account }, updateExpression: 'SET #h = list_append(if_not_exists(#h, :empty), :seq)', names: { '#h': 'history' }, values: { ':empty': [], ':seq': [payload.seq] } }];
      }),
    },
    strategy: transactionalStrategy({ dynamodb: clients.dynamodb, dedup: { table: idempotency, consumer: 'ledger' }, retry: noWait }),
    dlq: new DlqSender(clients.sqs, dlq.url, noWait),
    maxAttempts: 5,
  });
  return { queue, dlq, table: history.tableName, consumer, deliveries, fix: () => (fixed = true) };
}

/** Invokes the handler as Lambda would, and notes `<account>:<seq>` of every record it is handed in `handed`. */
function asInvoker(handler: BatchHandler, handed: string[]): Invoker {
  return async (event) => {
    for (const record of (event as { Records: { body: string }[] }).Records) {
      const { account, seq } = (JSON.parse(record.body) as { payload: { account: string; seq: number } }).payload;
      handed.push(`${account}:${seq}`);
    }
    try {
      return { ok: true, response: await handler(event as never), durationMs: 1 };
    } catch (error) {
      return { ok: false, error: { kind: 'error', name: (error as Error).name, message: (error as Error).message }, durationMs: 1 };
    }
  };
}

function mappingOf(ledger: Ledger, handed: string[], sqs: SQSClient = clients.sqs): SqsMapping {
  return new SqsMapping({ queueUrl: ledger.queue.url, queueArn: ledger.queue.arn, region: LOCAL_REGION, batchSize: 10, maximumBatchingWindowSeconds: 0, reportBatchItemFailures: true, visibilityTimeoutSeconds: 2, concurrency: 2, invoke: asInvoker(ledger.consumer, handed), sqs });
}

function ledgerEntry(account: string, seq: number): Envelope {
  return createEnvelope({ type: ENTRY, businessKey: `${account}:${seq}`, source: 'test', payload: { account, seq } });
}

async function historyOf(ledger: Ledger, account: string): Promise<number[]> {
  const item = await itemByPk(clients.dynamodb, ledger.table, account);
  return (item?.history as number[] | undefined) ?? [];
}

async function historyReaches(ledger: Ledger, account: string, length: number): Promise<number[]> {
  return pollUntil(async () => {
    const history = await historyOf(ledger, account);
    return history.length >= length ? history : undefined;
  }, `${length} entries in the history of ${account}`, { timeoutMs: 30_000, intervalMs: 200 });
}

test('order per group through a transient failure, a late producer retry counted once, and the DLQ redriven in its order', async () => {
  const ledger = await setUp();
  const handed: string[] = [];
  const mapping = mappingOf(ledger, handed);
  mapping.start();
  try {
    // Each account is a message group (the partition key); the publisher interleaves them.
    const entries = [1, 2, 3, 4, 5].flatMap((seq) => ['a', 'b', 'c'].filter((account) => seq <= { a: 5, b: 3, c: 2 }[account]!).map((account) => outgoingMessage(ledgerEntry(account, seq), account)));
    await publishToSqs(clients.sqs, ledger.queue.url, entries);
    // b:2 published again after the 5-minute window: SQS sees a new deduplication id and delivers it.
    const retried = ledgerEntry('b', 2);
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: ledger.queue.url, MessageBody: JSON.stringify(retried), MessageGroupId: 'b', MessageDeduplicationId: `${retried.eventId}-after-5-minutes` }));

    expect(await historyReaches(ledger, 'a', 5)).toEqual([1, 2, 3, 4, 5]);
    expect(ledger.deliveries.get('a:2')).toBe(3);
    // a:3 waited for a:2: never attempted before a:2 applied.
    expect(ledger.deliveries.get('a:3')).toBe(1);
    // SQS delivered the late retry (handed to the function beside or after the first b:2, a twin the
    // runtime drops in the batch or a duplicate its dedup record stops), and it counted once.
    await pollUntil(async () => (handed.filter((entry) => entry === 'b:2').length >= 2 ? true : undefined), 'the late retry of b:2 handed to the function');
    expect(await historyReaches(ledger, 'b', 3)).toEqual([1, 2, 3]);

    const context = contextOf(clients, streams, topologyOf({ dlq: ledger.dlq, sources: [{ role: 'redrive', arn: ledger.queue.arn }], queues: [ledger.queue] }));
    await pollUntil(async () => ((ledger.deliveries.get('c:2') ?? 0) >= 1 ? true : undefined), 'c:2 delivered');
    expect(await historyOf(ledger, 'c')).toEqual([]);

    ledger.fix();
    const result = await pollUntil(async () => {
      const attempt = await redriveQueue({ ...context, queue: ledger.dlq.url }, { sweep: FAST_SWEEP });
      return attempt.redriven > 0 ? attempt : undefined;
    }, 'the two failures of c redriven');
    expect(result.redriven).toBe(2);
    expect(await historyReaches(ledger, 'c', 2)).toEqual([1, 2]);
    // Nothing applied twice: the history of b still has one 2.
    expect(await historyOf(ledger, 'b')).toEqual([1, 2, 3]);
  } finally {
    await mapping.stop();
  }
}, 90_000);

/**
 * Publishes the workload as a producer fleet would: page views to their SNS topic (which fans
 * them out to the counter's queue), order changes to the stream, ledger entries to the FIFO
 * queue, payments to their standard queue, and at the producer-retry rate
 * the same message a second time (a publish that in fact succeeded, retried: SNS gives it a new
 * MessageId, the envelope keeps its eventId). Records what it sent, for the dump and for
 * verification.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { publishToSns, publishToSqs, type OutgoingMessage } from '../../lambdas/runtime';
import { putRecordsInOrder, type KinesisEntry } from '../../lambdas/runtime/producing/producer';
import { chance } from '../faults/random';
import type { Random } from '../types';
import type { WorkloadEvent } from './workload';

/** One message as sent; `sequenceNumber` for stream records. */
export interface PublishedMessage {
  readonly target: string;
  readonly body: string;
  readonly event: WorkloadEvent;
  readonly retry: boolean;
  sequenceNumber?: string;
}

export interface PublishTargets {
  readonly sns: SNSClient;
  readonly sqs: SQSClient;
  readonly kinesis: KinesisClient;
  readonly pageViewsTopicArn: string;
  readonly ordersStreamName: string;
  /** The account ledger's FIFO queue. */
  readonly ledgerQueueUrl: string;
  /** The invoice payments' standard queue. */
  readonly paymentsQueueUrl: string;
}

/** Messages per progress step on the topic and the FIFO queue (the publishers batch within it). */
const CHUNK = 100;
const KINESIS_CHUNK = 250;

/** Decides which messages the producer sends twice, in workload order. */
export function planMessages(workload: readonly WorkloadEvent[], random: Random, producerRetryRate: number, targets: Pick<PublishTargets, 'pageViewsTopicArn' | 'ordersStreamName' | 'ledgerQueueUrl' | 'paymentsQueueUrl'>): PublishedMessage[] {
  const messages: PublishedMessage[] = [];
  const targetOf: Record<WorkloadEvent['target'], string> = { 'page-views': targets.pageViewsTopicArn, orders: targets.ordersStreamName, ledger: targets.ledgerQueueUrl, payments: targets.paymentsQueueUrl };
  for (const event of workload) {
    const target = targetOf[event.target];
    messages.push({ target, body: event.body, event, retry: false });
    if (chance(random, producerRetryRate)) messages.push({ target, body: event.body, event, retry: true });
  }
  return messages;
}

/** Sends the planned messages in chunks, calling `onProgress` with the count sent so far. */
export async function publishMessages(messages: readonly PublishedMessage[], targets: PublishTargets, onProgress: (sent: number) => void): Promise<void> {
  const toTopic = messages.filter((message) => message.target === targets.pageViewsTopicArn);
  const toStream = messages.filter((message) => message.target === targets.ordersStreamName);
  const toLedger = messages.filter((message) => message.target === targets.ledgerQueueUrl);
  const toPayments = messages.filter((message) => message.target === targets.paymentsQueueUrl);
  let sent = 0;
  const report = (count: number) => onProgress((sent += count));
  await Promise.all([
    publishTopic(toTopic, targets, report),
    publishStream(toStream, targets, report),
    publishLedger(toLedger, targets, report),
    inChunks(toPayments, report, (chunk) => publishToSqs(targets.sqs, targets.paymentsQueueUrl, chunk.map(toOutgoing))),
  ]);
}

/**
 * Ledger entries go to the FIFO queue in workload order, each account's in one message group. A
 * producer retry is sent with a deduplication id of its own, as a retry after FIFO's 5-minute
 * window would be: SQS delivers it again, and only the consumer's dedup on eventId stops it.
 */
function publishLedger(messages: readonly PublishedMessage[], targets: PublishTargets, report: (count: number) => void): Promise<void> {
  return inChunks(messages, report, (chunk) =>
    publishToSqs(targets.sqs, targets.ledgerQueueUrl, chunk.map((message) => ({ ...toOutgoing(message), partitionKey: message.event.partitionKey, deduplicationId: message.retry ? `${message.event.envelope?.eventId}-retried` : undefined }))),
  );
}

function publishTopic(messages: readonly PublishedMessage[], targets: PublishTargets, report: (count: number) => void): Promise<void> {
  return inChunks(messages, report, (chunk) => publishToSns(targets.sns, targets.pageViewsTopicArn, chunk.map(toOutgoing)));
}

/** Sends the messages `CHUNK` at a time, in order, reporting each chunk once it is sent. */
async function inChunks(messages: readonly PublishedMessage[], report: (count: number) => void, send: (chunk: readonly PublishedMessage[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < messages.length; start += CHUNK) {
    const chunk = messages.slice(start, start + CHUNK);
    await send(chunk);
    report(chunk.length);
  }
}

/**
 * Kinesis records go out `KINESIS_CHUNK` at a time with the producer's `putRecordsInOrder` (in
 * order per order id, the partition key), keeping each record's sequence number for verification.
 */
async function publishStream(messages: readonly PublishedMessage[], targets: PublishTargets, report: (count: number) => void): Promise<void> {
  for (let start = 0; start < messages.length; start += KINESIS_CHUNK) {
    const chunk = messages.slice(start, start + KINESIS_CHUNK);
    const entries = chunk.map((message, position): KinesisEntry => ({ Id: String(position), Data: Buffer.from(message.body, 'utf8'), PartitionKey: message.event.partitionKey ?? 'none' }));
    await putRecordsInOrder(targets.kinesis, targets.ordersStreamName, entries, { maxAttempts: 5 }, (entry, sequenceNumber) => {
      (chunk[Number(entry.Id)] as PublishedMessage).sequenceNumber = sequenceNumber;
    });
    report(chunk.length);
  }
}

function toOutgoing(message: PublishedMessage): OutgoingMessage {
  return { body: message.body, eventId: message.event.envelope?.eventId };
}

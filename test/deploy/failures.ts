/**
 * Puts failures in the deployed DLQs as AWS and the runtime would: a failure wrapper from the
 * runtime's own `DlqSender`, and the pointer a Kinesis mapping sends when it gives up on records.
 */
import { PutRecordCommand, type KinesisClient } from '@aws-sdk/client-kinesis';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DlqSender, SchemaViolationError } from '../../lambdas/runtime';
import { describeFailure } from '../../lambdas/runtime/failures/failure-context';
import { DlqReason } from '../../aws/dlq-format';
import { fromSqsRecord } from '../../lambdas/runtime/decoding/records';
import { onFailureRecord } from '../../aws/lambda/on-failure-record';
import { orderStatus, pageView, sqsRecord } from '../helpers/events';
import type { DeployedConsumer } from './consumers';

/** What the source queue must receive again. */
export interface SqsOriginal {
  readonly body: string;
  readonly attribute: { readonly name: string; readonly value: string };
}

/**
 * A page view the consumer refused (a schema it does not accept yet), wrapped with its failure
 * context and sent to the consumer's DLQ; the record came from the consumer's deployed queue, or
 * says it came from `sourceArn`, as anyone who can send to the DLQ can write.
 */
export async function putQueueFailure(sqs: SQSClient, consumer: DeployedConsumer, sourceArn = consumer.sourceArn): Promise<SqsOriginal> {
  const envelope = pageView('deploy-test');
  const attribute = { name: 'producer', value: 'deploy-test' };
  const received = sqsRecord(envelope, { queueArn: sourceArn });
  // Sent now, not at the helper's fixed time a year back: the redrive counts the dedup window from it.
  const attributes = { ...received.attributes, SentTimestamp: String(Date.now()) };
  const lambdaRecord = { ...received, attributes, messageAttributes: { [attribute.name]: { stringValue: attribute.value, stringListValues: [], binaryListValues: [], dataType: 'String' } } };
  const record = fromSqsRecord(lambdaRecord);
  const error = new SchemaViolationError(envelope.type, ['schemaVersion: 2 is not accepted yet']);
  const failure = describeFailure({ consumer: consumer.name, reason: DlqReason.PERMANENT, error, record, eventId: envelope.eventId, eventType: envelope.type, now: new Date() });
  await new DlqSender(sqs, consumer.dlq.url).send(failure);
  return { body: record.original.body, attribute };
}

/** What the stream must hold again after the redrive. */
export interface StreamOriginal {
  readonly data: string;
  readonly partitionKey: string;
  readonly sequenceNumber: string;
}

/**
 * An order event put on the consumer's deployed stream, and the on-failure pointer its mapping
 * would send after giving up on it, in the consumer's DLQ.
 */
export async function putStreamPointer(clients: { readonly kinesis: KinesisClient; readonly sqs: SQSClient }, consumer: DeployedConsumer): Promise<StreamOriginal> {
  const envelope = orderStatus('deploy-test-order', 'PAID', 2);
  const original = { data: JSON.stringify(envelope), partitionKey: 'deploy-test-order' };
  const put = await clients.kinesis.send(new PutRecordCommand({ StreamName: consumer.sourceArn.split('/').pop(), Data: Buffer.from(original.data, 'utf8'), PartitionKey: original.partitionKey }));
  if (!put.SequenceNumber || !put.ShardId) throw new Error(`PutRecord on ${consumer.sourceArn} returned no sequence number or shard: ${JSON.stringify(put)}`);
  const pointer = onFailureRecord({ kind: 'kinesis', condition: 'RetryAttemptsExhausted', functionArn: consumer.function.FunctionArn, streamArn: consumer.sourceArn, shardId: put.ShardId, records: [{ sequenceNumber: put.SequenceNumber, arrivalMs: Date.now() }], approximateInvokeCount: 4 });
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: consumer.dlq.url, MessageBody: JSON.stringify(pointer) }));
  return { ...original, sequenceNumber: put.SequenceNumber };
}

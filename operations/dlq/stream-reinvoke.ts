/**
 * Redrive for a DynamoDB stream: each failed change goes back to the consumer that failed on it,
 * as the mapping first delivered it. The stack's own function for that stream is invoked
 * (synchronously) with the original stream records, in their order, in batches no larger than its
 * mapping's, and its partial batch response is read as the mapping would read it.
 *
 * Why not make the stream emit the change again: nobody can write to a table's stream, and the
 * only way to make it emit is to change the item. The change it then emits is a new record, with
 * a new `eventID` (the runtime's default dedup key for a stream record) and of kind `MODIFY`
 * whatever the original was: a consumer on the default key applied a change twice, and one that
 * routes `INSERT`s skipped a redriven insert, which the redrive had reported as redriven. It also
 * reached every consumer of the stream, not the one that failed, could not bring back a change the
 * item had moved past, nor a `REMOVE`. The original record has none of these problems: its
 * `eventID`, kind, images and sequence number are the ones the consumer first saw, so a change the
 * consumer applied meanwhile is a duplicate, by whatever key it dedups on.
 *
 * What it costs: the operator needs `lambda:InvokeFunction` on the consumer function (and on
 * nothing else: only a function that a mapping of the stack wires to the record's stream is ever
 * invoked), and the invocation runs beside the mapping's, so a redriven change can arrive after
 * later changes of its item, as any redrive does; consumers of a stream keep versions for that.
 */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { DynamoDBRecord } from 'aws-lambda';
import type { OriginalRecord } from '../../aws/dlq-format';
import { LAMBDA_LIMITS } from '../../aws/limits';
import { batchesOf, readBatchAnswer, type BatchFailureKind } from '../../aws/lambda/invoke-batches';
import { MalformedEntryError } from './errors';
import type { ConsumerFunction, StackTopology } from './types';

/** Who failed on a record: the consumer its wrapper names, or the function its on-failure record names. */
export interface FailedBy {
  readonly consumer?: string;
  readonly functionArn?: string;
}

/**
 * The stack's function that consumes `streamArn` and failed on the record: the one `failedBy`
 * names, or the stream's only consumer when it names none.
 * @throws MalformedEntryError when no function of the stack fits: nothing outside it is invoked
 */
export function streamConsumerOf(topology: StackTopology, streamArn: string, failedBy: FailedBy): ConsumerFunction {
  const consumers = topology.consumerFunctions.filter((candidate) => candidate.sourceArn === streamArn);
  const functionName = failedBy.functionArn === undefined ? undefined : functionNameOfArn(failedBy.functionArn);
  const matching = consumers.filter((candidate) => (functionName !== undefined ? candidate.functionName === functionName : failedBy.consumer === undefined || candidate.consumer === failedBy.consumer));
  if (matching.length === 1) return matching[0] as ConsumerFunction;
  const who = functionName ?? failedBy.consumer ?? 'an unnamed consumer';
  throw new MalformedEntryError(`${who} is not the one consumer of ${streamArn} in the stack (its consumers: ${consumers.map((candidate) => candidate.functionName).join(', ') || 'none'}): nothing is invoked`);
}

/** `arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]` -> `<name>`. */
function functionNameOfArn(arn: string): string {
  return /:function:([^:]+)/.exec(arn)?.[1] ?? arn;
}

/**
 * The stream record a runtime wrapper keeps: `original.body` is the record's `dynamodb` part as
 * JSON, its attributes the `eventName` and `eventID`.
 * @throws MalformedEntryError when the body is not such a part
 */
export function recordOfOriginal(original: OriginalRecord, streamArn: string, region: string): DynamoDBRecord {
  let change: DynamoDBRecord['dynamodb'];
  try {
    change = JSON.parse(original.body) as DynamoDBRecord['dynamodb'];
  } catch (error) {
    throw new MalformedEntryError('the original body is not a DynamoDB stream record', { cause: error });
  }
  if (!change?.Keys || !change.SequenceNumber) throw new MalformedEntryError('the original DynamoDB stream record has no Keys or SequenceNumber');
  const eventName = (original.attributes?.eventName || (change.NewImage ? (change.OldImage ? 'MODIFY' : 'INSERT') : 'REMOVE')) as DynamoDBRecord['eventName'];
  return { eventID: original.attributes?.eventID || undefined, eventName, eventVersion: '1.1', eventSource: 'aws:dynamodb', awsRegion: region, dynamodb: change, eventSourceARN: streamArn };
}

/** What a re-invocation came to: how many records the function took, and the first it failed on, if any. */
export interface Reinvocation {
  readonly done: number;
  readonly failed?: { readonly sequenceNumber: string; readonly reason: string };
}

/**
 * Invokes the consumer with the records, in order, a batch at a time. Stops at the first record the
 * function reports (or at a batch whose invocation fails), as its mapping would resume there: the
 * records after it are not sent.
 */
export async function reinvoke(lambda: LambdaClient, consumer: ConsumerFunction, records: readonly DynamoDBRecord[]): Promise<Reinvocation> {
  let done = 0;
  for (const batch of batchesOf(records, consumer.batchSize ?? LAMBDA_LIMITS.defaultStreamBatchSize)) {
    const output = await lambda.send(new InvokeCommand({ FunctionName: consumer.functionName, Payload: Buffer.from(JSON.stringify({ Records: batch })) }));
    const { failure } = readBatchAnswer(output, batch.map(sequenceOf));
    if (failure !== undefined) return { done: done + failure.position, failed: { sequenceNumber: sequenceOf(batch[failure.position]), reason: FAILURE_REASONS[failure.kind](failure.detail) } };
    done += batch.length;
  }
  return { done };
}

const FAILURE_REASONS: Record<BatchFailureKind, (detail?: string) => string> = {
  'function-error': (detail) => detail ?? 'the function failed',
  'unknown-identifier': () => 'the function answered with an item identifier not in the batch, which fails the whole batch',
  reported: () => 'the function reported it failed again',
};

function sequenceOf(record: DynamoDBRecord | undefined): string {
  return record?.dynamodb?.SequenceNumber ?? '';
}

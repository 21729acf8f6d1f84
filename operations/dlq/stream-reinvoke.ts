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
import { InvokeCommand, type InvokeCommandOutput, type LambdaClient } from '@aws-sdk/client-lambda';
import type { DynamoDBRecord } from 'aws-lambda';
import type { OriginalRecord } from '../../aws/dlq-format';
import { LAMBDA_LIMITS } from '../../aws/limits';
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
    const failed = firstFailure(output, batch);
    if (failed !== undefined) return { done: done + failed.position, failed: { sequenceNumber: sequenceOf(batch[failed.position]), reason: failed.reason } };
    done += batch.length;
  }
  return { done };
}

/** Batches of at most `size` records and Lambda's synchronous payload limit, in order. */
function batchesOf(records: readonly DynamoDBRecord[], size: number): DynamoDBRecord[][] {
  const batches: DynamoDBRecord[][] = [];
  let batch: DynamoDBRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const recordBytes = Buffer.byteLength(JSON.stringify(record)) + 1;
    if (batch.length > 0 && (batch.length >= size || bytes + recordBytes > LAMBDA_LIMITS.maxSyncPayloadBytes - 32)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(record);
    bytes += recordBytes;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** The first record of the batch the answer fails, by position, or undefined when it took them all. */
function firstFailure(output: InvokeCommandOutput, batch: readonly DynamoDBRecord[]): { position: number; reason: string } | undefined {
  const payload = parsePayload(output.Payload);
  if (output.FunctionError !== undefined) return { position: 0, reason: `the function failed (${output.FunctionError}): ${String((payload as { errorMessage?: unknown } | undefined)?.errorMessage ?? 'no message')}` };
  const failures = (payload as { batchItemFailures?: unknown } | undefined)?.batchItemFailures;
  if (failures === undefined || failures === null) return undefined;
  const identifiers = Array.isArray(failures) ? failures.map((failure) => (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier) : [undefined];
  const positions = identifiers.map((identifier) => batch.findIndex((record) => sequenceOf(record) === identifier));
  if (positions.includes(-1)) return { position: 0, reason: 'the function answered with an item identifier not in the batch, which fails the whole batch' };
  if (positions.length === 0) return undefined;
  return { position: Math.min(...positions), reason: 'the function reported it failed again' };
}

function parsePayload(payload: Uint8Array | undefined): unknown {
  if (payload === undefined || payload.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.from(payload).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function sequenceOf(record: DynamoDBRecord | undefined): string {
  return record?.dynamodb?.SequenceNumber ?? '';
}

/**
 * One replayed batch: the consumer's function invoked synchronously with the records as its mapping
 * would deliver them (`{ Records: [...] }`), marked as a replay in the client context, and its answer
 * read as the mapping reads a partial batch response, plus the counts the runtime adds for a replay.
 */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { REPLAY_CLIENT_CONTEXT, type ReplayCounts } from '../../lambdas/runtime/consumer/replay-mode';
import { readBatchAnswer } from '../../aws/lambda/invoke-batches';
import type { StreamRecord } from '../../aws/streams/stream-reader';

/** The client context header's value: the replay marker as base64 JSON. */
export const REPLAY_CLIENT_CONTEXT_BASE64 = Buffer.from(JSON.stringify(REPLAY_CLIENT_CONTEXT)).toString('base64');

/** What a batch came to: its counts, and where the shard must stop, if it must. */
export interface BatchAnswer {
  readonly counts?: ReplayCounts;
  /**
   * The first record the function reported or could not take, and why; the shard goes on from
   * there when `retryable` (as its mapping retries from the first reported record), else stops.
   */
  readonly stoppedAt?: { readonly sequenceNumber: string; readonly reason: string; readonly retryable: boolean };
}

export async function invokeReplayBatch(lambda: LambdaClient, functionName: string, batch: readonly StreamRecord[]): Promise<BatchAnswer> {
  const output = await lambda.send(new InvokeCommand({ FunctionName: functionName, ClientContext: REPLAY_CLIENT_CONTEXT_BASE64, Payload: Buffer.from(JSON.stringify({ Records: batch.map((record) => record.lambdaRecord) })) }));
  const { payload, failure } = readBatchAnswer(output, batch.map((record) => record.sequenceNumber));
  const first = batch[0]?.sequenceNumber ?? '';
  if (failure?.kind === 'function-error') return { stoppedAt: { sequenceNumber: first, reason: failure.detail ?? 'the function failed', retryable: true } };
  const counts = payload?.replay as ReplayCounts | undefined;
  if (counts === undefined || typeof counts.records !== 'number') {
    return { stoppedAt: { sequenceNumber: first, reason: 'the function did not answer as a replay (no counts): its runtime predates replays, or it is not built on effectively-once/runtime; nothing after this batch was sent', retryable: false } };
  }
  if (failure === undefined) return { counts };
  if (failure.kind === 'unknown-identifier') return { counts, stoppedAt: { sequenceNumber: first, reason: 'the function reported an item identifier not in the batch', retryable: false } };
  const at = batch[failure.position] as StreamRecord;
  return { counts, stoppedAt: { sequenceNumber: at.sequenceNumber, reason: 'the function reported it (a transient failure, or not attempted in its time)', retryable: true } };
}

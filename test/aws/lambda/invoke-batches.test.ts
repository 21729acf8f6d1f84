/** Batches a synchronous Invoke can carry, and its answer read as the mapping reads a partial batch response. */
import { batchesOf, leadingBatch, readBatchAnswer } from '../../../aws/lambda/invoke-batches';
import { LAMBDA_LIMITS } from '../../../aws/limits';

const answer = (payload: unknown, functionError?: string) => ({ FunctionError: functionError, Payload: Buffer.from(JSON.stringify(payload)) });

test('a batch holds at most the mapping\'s size, and always the first record', () => {
  expect(leadingBatch([1, 2, 3, 4, 5], 2)).toEqual([1, 2]);
  expect(batchesOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  const huge = 'x'.repeat(LAMBDA_LIMITS.maxSyncPayloadBytes);
  expect(leadingBatch([{ data: huge }, { data: 'y' }], 10)).toHaveLength(1);
});

test('a batch stays under the payload limit, measured on the shape the function gets', () => {
  const third = 'x'.repeat(Math.floor(LAMBDA_LIMITS.maxSyncPayloadBytes / 3));
  const records = [1, 2, 3, 4].map((id) => ({ id, lambdaRecord: { data: third } }));
  const batches = batchesOf(records, 100, (record) => record.lambdaRecord);
  expect(batches.map((batch) => batch.map((record) => record.id))).toEqual([[1, 2], [3, 4]]);
  for (const batch of batches) expect(Buffer.byteLength(JSON.stringify({ Records: batch.map((record) => record.lambdaRecord) }))).toBeLessThanOrEqual(LAMBDA_LIMITS.maxSyncPayloadBytes);
});

test('the answer: all taken, the lowest reported, a function error or an unknown identifier failing the whole batch', () => {
  const ids = ['10', '11', '12'];
  expect(readBatchAnswer(answer({ batchItemFailures: [] }), ids)).toEqual({ payload: { batchItemFailures: [] } });
  expect(readBatchAnswer({}, ids)).toEqual({ payload: undefined });
  expect(readBatchAnswer(answer({ batchItemFailures: [{ itemIdentifier: '12' }, { itemIdentifier: '11' }] }), ids).failure).toEqual({ position: 1, kind: 'reported' });
  expect(readBatchAnswer(answer({ batchItemFailures: [{ itemIdentifier: '99' }] }), ids).failure).toEqual({ position: 0, kind: 'unknown-identifier' });
  expect(readBatchAnswer(answer({ batchItemFailures: 'all of them' }), ids).failure).toEqual({ position: 0, kind: 'unknown-identifier' });
  expect(readBatchAnswer(answer({ errorMessage: 'boom' }, 'Unhandled'), ids).failure).toEqual({ position: 0, kind: 'function-error', detail: 'the function failed (Unhandled): boom' });
});

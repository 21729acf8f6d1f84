/**
 * The stream shard model against the rules it cites (aws/model/stream-shard-model.ts): checkpoint
 * at the lowest reported record, bisect, bounded retries, record age, the on-failure destination.
 */
import { StreamShardModel, type ShardSettings } from '../../../aws/model/stream-shard-model';

const records = (count: number, arrivedAt = 0) => Array.from({ length: count }, (_, index) => ({ sequenceNumber: String(100 + index), partitionKey: 'pk', data: `r${index}`, arrivedAt }));
const sequences = (batch: readonly { sequenceNumber: string }[] | undefined) => batch?.map((record) => record.sequenceNumber);
const failures = (...identifiers: string[]) => ({ batchItemFailures: identifiers.map((itemIdentifier) => ({ itemIdentifier })) });

function shard(count: number, settings: Partial<ShardSettings> = {}): StreamShardModel {
  return new StreamShardModel(records(count), { batchSize: 4, bisectBatchOnFunctionError: false, maximumRetryAttempts: 2, maximumRecordAgeMs: -1, ...settings });
}

test('a batch that succeeds moves the checkpoint past it', () => {
  const model = shard(6);
  expect(sequences(model.nextBatch(0))).toEqual(['100', '101', '102', '103']);
  expect(model.settle(failures())).toBe(true);
  expect(sequences(model.nextBatch(0))).toEqual(['104', '105']);
  model.settle(failures());
  expect(model.drained).toBe(true);
});

test('a partial response checkpoints at the lowest reported record, and the retry reads on from there', () => {
  const model = shard(6);
  model.nextBatch(0);
  model.settle(failures('103', '101'));
  expect(sequences(model.nextBatch(0))).toEqual(['101', '102', '103', '104']);
});

test('with bisect on, a partial response retries only the rest of the batch', () => {
  const model = shard(6, { bisectBatchOnFunctionError: true });
  model.nextBatch(0);
  model.settle(failures('102'));
  expect(sequences(model.nextBatch(0))).toEqual(['102', '103']);
});

test('a failed invocation with bisect on splits the batch in two, first half first', () => {
  const model = shard(4, { bisectBatchOnFunctionError: true });
  model.nextBatch(0);
  expect(model.settle('failed')).toBe(false);
  expect(sequences(model.nextBatch(0))).toEqual(['100', '101']);
  model.settle(failures());
  expect(sequences(model.nextBatch(0))).toEqual(['102', '103']);
});

test('once its retries are used, a batch goes to the on-failure destination as metadata, and the shard moves on', () => {
  const model = shard(5, { maximumRetryAttempts: 1 });
  model.nextBatch(0);
  model.settle('failed');
  model.nextBatch(0);
  model.settle('failed');
  expect(model.onFailure).toEqual([{ condition: 'RetryAttemptsExhausted', startSequenceNumber: '100', endSequenceNumber: '103', batchSize: 4 }]);
  expect(sequences(model.nextBatch(0))).toEqual(['104']);
});

test('an identifier that is not in the batch fails it whole', () => {
  const model = shard(2);
  model.nextBatch(0);
  expect(model.settle(failures('999'))).toBe(false);
  expect(sequences(model.nextBatch(0))).toEqual(['100', '101']);
});

test('records older than the maximum age go to the destination before any invocation', () => {
  const model = shard(3, { maximumRecordAgeMs: 1_000 });
  expect(model.nextBatch(5_000)).toBeUndefined();
  expect(model.onFailure).toEqual([{ condition: 'RecordAgeExceeded', startSequenceNumber: '100', endSequenceNumber: '102', batchSize: 3 }]);
  expect(model.drained).toBe(true);
});

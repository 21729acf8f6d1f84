import { checkRequest, mergeFailedEntries, splitSqsBatch, SQS_BATCH_OPERATIONS, type AwsError, type CheckResult } from '../../../emulator/contract';

function refusal(result: CheckResult): AwsError {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const entriesFor = (_operation: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ Id: `e${i}`, MessageBody: 'x', ReceiptHandle: 'h', VisibilityTimeout: 1 }));
const batch = (operation: string, Entries: unknown[]) => checkRequest('sqs', operation, { QueueUrl: 'q', Entries });

describe.each(SQS_BATCH_OPERATIONS)('%s, the whole request', (operation) => {
  test.each([1, 10])('accepts %i entries', (count) => {
    expect(batch(operation, entriesFor(operation, count)).ok).toBe(true);
  });

  test('refuses 11 entries with TooManyEntriesInBatchRequest', () => {
    expect(refusal(batch(operation, entriesFor(operation, 11)))).toMatchObject({
      code: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
      jsonType: 'com.amazonaws.sqs#TooManyEntriesInBatchRequest',
      queryErrorHeader: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest;Sender',
      message: 'Maximum number of entries per request are 10. You have sent 11.',
    });
  });

  test('refuses no entries with EmptyBatchRequest naming the entry type', () => {
    expect(refusal(batch(operation, []))).toMatchObject({
      code: 'AWS.SimpleQueueService.EmptyBatchRequest',
      message: `There should be at least one ${operation}RequestEntry in the request.`,
    });
  });

  test('refuses a repeated id with BatchEntryIdsNotDistinct naming it', () => {
    const entries = [...entriesFor(operation, 2), { ...entriesFor(operation, 1)[0], Id: 'e1' }];
    expect(refusal(batch(operation, entries))).toMatchObject({ code: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct', message: 'Id e1 repeated.' });
  });

  test.each(['a', 'A-b_9', 'i'.repeat(80)])('accepts the id %j', (Id) => {
    expect(batch(operation, [{ ...entriesFor(operation, 1)[0], Id }]).ok).toBe(true);
  });

  test.each(['', 'a:b', 'a.b', 'a b', 'é', 'i'.repeat(81)])('refuses the id %j with InvalidBatchEntryId', (Id) => {
    expect(refusal(batch(operation, [{ ...entriesFor(operation, 1)[0], Id }])).code).toBe('AWS.SimpleQueueService.InvalidBatchEntryId');
  });
});

describe('SendMessageBatch total size', () => {
  const half = 524_288;
  test('accepts 1 MiB of messages in all', () => {
    expect(batch('SendMessageBatch', [{ Id: 'a', MessageBody: 'x'.repeat(half) }, { Id: 'b', MessageBody: 'x'.repeat(half) }]).ok).toBe(true);
  });

  test('refuses one byte more, counting attributes too, with BatchRequestTooLong', () => {
    const entries = [
      { Id: 'a', MessageBody: 'x'.repeat(half - 'k'.length - 'String'.length - 'v'.length), MessageAttributes: { k: { DataType: 'String', StringValue: 'v' } } },
      { Id: 'b', MessageBody: 'x'.repeat(half + 1) },
    ];
    expect(refusal(batch('SendMessageBatch', entries))).toMatchObject({
      code: 'AWS.SimpleQueueService.BatchRequestTooLong',
      message: 'Batch requests cannot be longer than 1048576 bytes. You have sent 1048577 bytes.',
    });
  });

  test('does not hold a batch to the queue’s own limit: that fails entries, not the request', () => {
    const entries = [{ Id: 'a', MessageBody: 'x'.repeat(1_024) }, { Id: 'b', MessageBody: 'x'.repeat(1_025) }];
    expect(checkRequest('sqs', 'SendMessageBatch', { Entries: entries }, { sqs: { maximumMessageSize: 1_024 } }).ok).toBe(true);
  });
});

describe('per-entry failures', () => {
  test('SendMessageBatch: entries that break a message rule fail alone, with SQS’s codes', () => {
    const input = {
      Entries: [
        { Id: 'ok', MessageBody: 'fine' },
        { Id: 'control', MessageBody: 'bad\u0001' },
        { Id: 'big', MessageBody: 'x'.repeat(1_025) },
        { Id: 'late', MessageBody: 'x', DelaySeconds: 901 },
        { Id: 'attr', MessageBody: 'x', MessageAttributes: { 'AWS.x': { DataType: 'String', StringValue: 'v' } } },
      ],
    };
    const { forward, failed } = splitSqsBatch('SendMessageBatch', input, { maximumMessageSize: 1_024 });

    expect(forward.map((entry) => entry.Id)).toEqual(['ok']);
    expect(failed.map(({ Id, Code, SenderFault }) => ({ Id, Code, SenderFault }))).toEqual([
      { Id: 'control', Code: 'InvalidMessageContents', SenderFault: true },
      { Id: 'big', Code: 'InvalidParameterValue', SenderFault: true },
      { Id: 'late', Code: 'InvalidParameterValue', SenderFault: true },
      { Id: 'attr', Code: 'InvalidParameterValue', SenderFault: true },
    ]);
    expect(failed[1]?.Message).toBe('One or more parameters cannot be validated. Reason: Message must be shorter than 1024 bytes.');
  });

  test('ChangeMessageVisibilityBatch: an entry out of range fails alone', () => {
    const input = { Entries: [{ Id: 'a', ReceiptHandle: 'h', VisibilityTimeout: 43_200 }, { Id: 'b', ReceiptHandle: 'h', VisibilityTimeout: 43_201 }] };
    const { forward, failed } = splitSqsBatch('ChangeMessageVisibilityBatch', input);
    expect(forward.map((entry) => entry.Id)).toEqual(['a']);
    expect(failed).toMatchObject([{ Id: 'b', Code: 'InvalidParameterValue', SenderFault: true }]);
  });

  test('DeleteMessageBatch has no per-entry rule', () => {
    expect(splitSqsBatch('DeleteMessageBatch', { Entries: [{ Id: 'a', ReceiptHandle: 'h' }] }).failed).toEqual([]);
  });

  test('mergeFailedEntries appends to the engine’s Failed list without the rule id', () => {
    const { failed } = splitSqsBatch('SendMessageBatch', { Entries: [{ Id: 'x', MessageBody: '\u0000' }] });
    const engine = { Successful: [{ Id: 'ok', MessageId: 'm', MD5OfMessageBody: 'd' }], Failed: [{ Id: 'e', SenderFault: false, Code: 'InternalError' }] };

    const merged = mergeFailedEntries(engine, failed);

    expect(merged.Successful).toBe(engine.Successful);
    expect(merged.Failed).toEqual([engine.Failed[0], { Id: 'x', SenderFault: true, Code: 'InvalidMessageContents', Message: failed[0]?.Message }]);
    expect(mergeFailedEntries(engine, [])).toBe(engine);
  });
});

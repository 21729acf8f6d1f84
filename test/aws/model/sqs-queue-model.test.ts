/**
 * The SQS queue model against the rules it cites (aws/model/sqs-queue-model.ts): a few scenarios,
 * each one rule, so that the property test's reference is itself held to AWS's pages.
 */
import { SqsQueueModel } from '../../../aws/model/sqs-queue-model';

const VISIBILITY_MS = 30_000;

function queue(fifo = false, maxReceiveCount = 3): SqsQueueModel {
  return new SqsQueueModel({ fifo, visibilityTimeoutMs: VISIBILITY_MS, maxReceiveCount });
}

const ids = (messages: readonly { messageId: string }[]) => messages.map((message) => message.messageId);

/** One message received, its visibility ended while that receive still holds it, and received again: two handles, the first stale. */
function receivedTwice() {
  const model = queue();
  model.send('m1', 'body');
  const first = model.receive(0, 10);
  model.expireVisibility(['m1'], 10);
  return { model, first, second: model.receive(10, 10) };
}

describe('a standard queue', () => {
  test('a received message is invisible until its visibility timeout ends, then comes back with its receive count up', () => {
    const model = queue();
    model.send('m1', 'body');
    expect(model.receive(0, 10)).toMatchObject([{ messageId: 'm1', receiveCount: 1 }]);
    expect(model.receive(VISIBILITY_MS - 1, 10)).toEqual([]);
    expect(model.receive(VISIBILITY_MS, 10)).toMatchObject([{ messageId: 'm1', receiveCount: 2 }]);
  });

  test('Lambda deletes what the response does not name; a failed invocation deletes nothing', () => {
    const model = queue();
    ['m1', 'm2', 'm3'].forEach((id) => model.send(id, id));
    const batch = model.receive(0, 10);
    expect(model.settle(batch, 'failed')).toBe(false);
    expect(model.settle(batch, { batchItemFailures: [{ itemIdentifier: 'm2' }] })).toBe(true);
    expect(model.fateOf('m1')).toBe('deleted');
    expect(model.fateOf('m2')).toBeUndefined();
    expect(ids(model.receive(VISIBILITY_MS, 10))).toEqual(['m2']);
  });

  test('an identifier that is not in the batch fails the whole batch', () => {
    const model = queue();
    model.send('m1', 'body');
    const batch = model.receive(0, 10);
    expect(model.settle(batch, { batchItemFailures: [{ itemIdentifier: 'elsewhere' }] })).toBe(false);
    expect(model.fateOf('m1')).toBeUndefined();
  });

  test('the redrive policy moves a message received maxReceiveCount times instead of handing it out again', () => {
    const model = queue(false, 2);
    model.send('m1', 'body');
    model.receive(0, 10);
    model.receive(VISIBILITY_MS, 10);
    expect(model.receive(2 * VISIBILITY_MS, 10)).toEqual([]);
    expect(model.movedBySqs).toEqual(['m1']);
    expect(model.drained).toBe(true);
  });

  test("a stale receipt handle \"might not\" delete: when it does, the message goes while another receive still holds it, and that one's delete finds nothing", () => {
    const { model, first, second } = receivedTwice();
    expect(model.settle(first, { batchItemFailures: [] }, { staleHandlesDelete: true })).toBe(true);
    expect(model.fateOf('m1')).toBe('deleted');
    expect(model.drained).toBe(true);
    expect(model.settle(second, { batchItemFailures: [] })).toBe(true);
    expect(model.fateOf('m1')).toBe('deleted');
  });

  test('by default, only the latest receipt handle deletes: a batch answered after another receive deletes nothing', () => {
    const { model, first, second } = receivedTwice();
    expect(model.settle(first, { batchItemFailures: [] })).toBe(true);
    expect(model.fateOf('m1')).toBeUndefined();
    model.settle(second, { batchItemFailures: [] });
    expect(model.fateOf('m1')).toBe('deleted');
  });

  test('a copy a server kept comes while the message is in flight, its receive count behind; each copy goes by its own handle', () => {
    const model = queue(false, 5);
    model.send('m1', 'body');
    model.receive(0, 10);
    const [held] = model.receive(VISIBILITY_MS, 10);
    expect(model.keepCopy('m1', VISIBILITY_MS + 1, 1)).toBe(true);
    const [copy] = model.receive(VISIBILITY_MS + 1, 10);
    expect([held?.receiveCount, copy?.messageId, copy?.receiveCount]).toEqual([2, 'm1', 2]);
    expect(model.settle([held!], { batchItemFailures: [] })).toBe(true);
    expect(model.drained).toBe(false);
    model.settle([copy!], { batchItemFailures: [] });
    expect([model.drained, model.fateOf('m1')]).toEqual([true, 'deleted']);
  });

  test('a kept copy is never handed out beside its message, and a missed receive is at least one', () => {
    const model = queue();
    model.send('m1', 'body');
    model.keepCopy('m1', 0, 1);
    expect(ids(model.receive(0, 10))).toEqual(['m1']);
    expect(ids(model.receive(0, 10))).toEqual(['m1']);
    expect(model.keepCopy('absent', 0, 1)).toBe(false);
    expect(() => model.keepCopy('m1', 0, 0)).toThrow(/missedReceives must be an integer of 1 or more/);
    expect(() => queue(true).keepCopy('m1', 0, 1)).toThrow(/FIFO queue delivers each message once/);
  });

  test('ChangeMessageVisibility counts from the call, with the latest handle only', () => {
    const model = queue();
    model.send('m1', 'body');
    const [message] = model.receive(0, 10);
    expect(model.changeVisibility('stale', 5, 100)).toBe(false);
    expect(model.changeVisibility(message!.receiptHandle, 5, 100)).toBe(true);
    expect(model.nextVisibleAt(100)).toBe(5_100);
  });
});

describe('a FIFO queue', () => {
  test('hands out a group in order, and nothing more of it while a message of it is in flight', () => {
    const model = queue(true);
    model.send('a1', 'a1', 'a');
    model.send('b1', 'b1', 'b');
    model.send('a2', 'a2', 'a');
    const first = model.receive(0, 2);
    expect(ids(first)).toEqual(['a1', 'b1']);
    expect(model.receive(1, 10)).toEqual([]);
    model.settle(first, { batchItemFailures: [] });
    expect(ids(model.receive(2, 10))).toEqual(['a2']);
  });

  test('a reported message comes back ahead of the rest of its group', () => {
    const model = queue(true);
    ['a1', 'a2'].forEach((id) => model.send(id, id, 'a'));
    const batch = model.receive(0, 10);
    model.settle(batch, { batchItemFailures: [{ itemIdentifier: 'a1' }, { itemIdentifier: 'a2' }] });
    expect(ids(model.receive(VISIBILITY_MS, 10))).toEqual(['a1', 'a2']);
  });

  test('a message moved by the redrive policy lets its group go on', () => {
    const model = queue(true, 1);
    ['a1', 'a2'].forEach((id) => model.send(id, id, 'a'));
    model.settle(model.receive(0, 1), { batchItemFailures: [{ itemIdentifier: 'a1' }] });
    expect(ids(model.receive(VISIBILITY_MS, 10))).toEqual(['a2']);
    expect(model.movedBySqs).toEqual(['a1']);
  });

  test('refuses a message without a group', () => {
    expect(() => queue(true).send('m1', 'body')).toThrow(RangeError);
  });
});

/**
 * The two ways a consumer applies events: `directStrategy` (the handler does the idempotent work
 * itself) and `transactionalStrategy` (the handler returns effects, committed with the dedup
 * record). DynamoDB is a fake whose `send` records TransactWriteItems and succeeds: what is under
 * test is the strategies' ordering and failure handling, not the engine.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { increment, type Effect } from '../../../../../lambdas/runtime/stores/dynamodb/effects';
import { NotAttemptedError, PermanentError, RetriesExhaustedError } from '../../../../../lambdas/runtime/core/errors';
import { payloadHash } from '../../../../../lambdas/runtime/events/event-id';
import { fromSqsRecord } from '../../../../../lambdas/runtime/decoding/records';
import type { ConsumedEvent } from '../../../../../lambdas/runtime/decoding/routes';
import { directStrategy, type DirectResult } from '../../../../../lambdas/runtime/consumer/direct-strategy';
import { transactionalStrategy } from '../../../../../lambdas/runtime/stores/dynamodb/transactional-strategy';
import { type AcceptedEvent, type Outcome } from '../../../../../lambdas/runtime/consumer/strategy';
import { sqsRecord } from '../../../../helpers/events';
import { asClient, awsError, FakeClient, recordingSleep } from '../../../../helpers/fakes';

function eventAt(index: number, payload: Record<string, unknown> = { n: index }): ConsumedEvent<unknown> {
  return { eventId: `evt-${index}`, type: 'test.event', occurredAt: '2026-11-30T10:00:00Z', source: 'test', payload };
}

function accepted<TResult>(index: number, invoke: () => TResult): AcceptedEvent<TResult> {
  return { index, event: eventAt(index), context: { record: fromSqsRecord(sqsRecord('{}')) }, invoke };
}

function statusOf(outcome: Outcome | undefined): string {
  if (outcome?.status !== 'failed') return String(outcome?.status);
  return `failed:${(outcome.error as Error).name}`;
}

describe('directStrategy', () => {
  const applied = (): DirectResult => Promise.resolve();
  const throttled = (): DirectResult => Promise.reject(awsError('ThrottlingException', 400));
  const declined = (): DirectResult => Promise.reject(new PermanentError('declined'));

  test('with concurrency 1, runs handlers one at a time in batch order; a handler that returns nothing applied its event', async () => {
    const order: number[] = [];
    let running = 0;
    const handler = (index: number) => async () => {
      running += 1;
      expect(running).toBe(1);
      await Promise.resolve();
      order.push(index);
      running -= 1;
    };
    const outcomes = await directStrategy({ concurrency: 1 }).apply([2, 0, 1].map((index) => accepted(index, handler(index))), { ordered: false });
    expect(order).toEqual([2, 0, 1]);
    expect([...outcomes.values()].map(statusOf)).toEqual(['applied', 'applied', 'applied']);
  });

  test('an outcome the handler reports (skipped) is kept', async () => {
    const outcomes = await directStrategy().apply([accepted(0, async () => ({ status: 'skipped' as const, reason: 'older version' }))], { ordered: false });
    expect(outcomes.get(0)).toEqual({ status: 'skipped', reason: 'older version' });
  });

  test('retries a transient handler failure in process with backoff, then reports RetriesExhaustedError', async () => {
    const sleep = recordingSleep();
    const handler = jest.fn(throttled);
    const outcomes = await directStrategy({ sleep, maxAttempts: 4 }).apply([accepted(0, handler)], { ordered: false });
    expect(handler).toHaveBeenCalledTimes(4);
    expect(sleep.delays).toHaveLength(3);
    expect(statusOf(outcomes.get(0))).toBe('failed:RetriesExhaustedError');
  });

  test('a transient failure that clears on retry applies the event', async () => {
    let calls = 0;
    const outcomes = await directStrategy({ sleep: recordingSleep() }).apply([accepted(0, () => (calls++ === 0 ? throttled() : applied()))], { ordered: false });
    expect(outcomes.get(0)).toEqual({ status: 'applied' });
  });

  test('a permanent failure is not retried', async () => {
    const handler = jest.fn(declined);
    const outcomes = await directStrategy({ sleep: recordingSleep() }).apply([accepted(0, handler)], { ordered: false });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(statusOf(outcomes.get(0))).toBe('failed:PermanentError');
  });

  test('a handler that throws synchronously is a failed outcome, not a crash', async () => {
    const outcomes = await directStrategy({ sleep: recordingSleep(), maxAttempts: 1 }).apply([accepted(0, (): DirectResult => {
      throw new TypeError('boom');
    })], { ordered: false });
    expect(statusOf(outcomes.get(0))).toBe('failed:RetriesExhaustedError');
  });

  test('ordered: after a transient failure the later events are not attempted', async () => {
    const later = jest.fn(applied);
    const outcomes = await directStrategy({ sleep: recordingSleep(), maxAttempts: 1 }).apply([accepted(0, applied), accepted(1, throttled), accepted(2, later), accepted(3, later)], { ordered: true });
    expect([0, 1, 2, 3].map((index) => statusOf(outcomes.get(index)))).toEqual(['applied', 'failed:RetriesExhaustedError', 'failed:NotAttemptedError', 'failed:NotAttemptedError']);
    expect(later).not.toHaveBeenCalled();
    expect((outcomes.get(2) as { error: unknown }).error).toBeInstanceOf(NotAttemptedError);
  });

  test('ordered: a permanent failure stops the batch too, for the consumer to dead-letter it before the rest goes on', async () => {
    const outcomes = await directStrategy({ sleep: recordingSleep() }).apply([accepted(0, declined), accepted(1, applied)], { ordered: true });
    expect([statusOf(outcomes.get(0)), statusOf(outcomes.get(1))]).toEqual(['failed:PermanentError', 'failed:NotAttemptedError']);
  });

  test('unordered: a transient failure does not stop the batch', async () => {
    const outcomes = await directStrategy({ sleep: recordingSleep(), maxAttempts: 1 }).apply([accepted(0, throttled), accepted(1, applied)], { ordered: false });
    expect(statusOf(outcomes.get(1))).toBe('applied');
  });
});

describe('transactionalStrategy', () => {
  const views = (pk: string): readonly Effect[] => [increment('counters', { pk }, 'views')];

  function strategy(dynamodb: FakeClient, mode?: 'batch' | 'per-record') {
    return transactionalStrategy({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: { table: 'idem', consumer: 'c' }, retry: { sleep: recordingSleep(), maxAttempts: 1 }, mode });
  }

  test('commits the handlers\' effects with each event\'s dedup record and payload hash', async () => {
    const dynamodb = new FakeClient();
    const outcomes = await strategy(dynamodb).apply([accepted(0, () => views('page#a')), accepted(1, () => views('page#b'))], { ordered: false });
    expect([...outcomes.values()].map(statusOf)).toEqual(['applied', 'applied']);
    const items = dynamodb.commands[0].input.TransactItems as { Put?: { Item: Record<string, { S?: string }> } }[];
    expect(items.filter((item) => item.Put).map((item) => [item.Put?.Item.id.S, item.Put?.Item.payloadHash.S])).toEqual([
      ['c#evt-0', payloadHash(eventAt(0).payload)],
      ['c#evt-1', payloadHash(eventAt(1).payload)],
    ]);
  });

  test('a handler that throws fails its own event only; the others commit', async () => {
    const dynamodb = new FakeClient();
    const outcomes = await strategy(dynamodb).apply([accepted(0, () => views('page#a')), accepted(1, (): readonly Effect[] => {
      throw new PermanentError('cannot compute effects');
    }), accepted(2, () => views('page#c'))], { ordered: false });
    expect([0, 1, 2].map((index) => statusOf(outcomes.get(index)))).toEqual(['applied', 'failed:PermanentError', 'applied']);
  });

  test('per-record mode sends one transaction per event', async () => {
    const dynamodb = new FakeClient();
    await strategy(dynamodb, 'per-record').apply([accepted(0, () => views('page#a')), accepted(1, () => views('page#a'))], { ordered: false });
    expect(dynamodb.commands).toHaveLength(2);
  });

  test('ordered: a transient failure stops the commits after it', async () => {
    const dynamodb = new FakeClient(() => {
      throw awsError('InternalServerError', 500);
    });
    const outcomes = await strategy(dynamodb, 'per-record').apply([accepted(0, () => views('page#a')), accepted(1, () => views('page#b'))], { ordered: true });
    expect((outcomes.get(0) as { error: unknown }).error).toBeInstanceOf(RetriesExhaustedError);
    expect((outcomes.get(1) as { error: unknown }).error).toBeInstanceOf(NotAttemptedError);
    expect(dynamodb.commands).toHaveLength(1);
  });

  test('ordered: after a handler\'s transient failure the later events are not committed, as directStrategy does', async () => {
    const dynamodb = new FakeClient();
    const outcomes = await strategy(dynamodb).apply([accepted(0, (): readonly Effect[] => {
      throw awsError('ServiceUnavailable', 503);
    }), accepted(1, () => views('page#b'))], { ordered: true });
    expect(dynamodb.commands.length).toBe(0);
    expect(statusOf(outcomes.get(1))).toBe('failed:NotAttemptedError');
  });
});

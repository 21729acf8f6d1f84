/**
 * A replay invocation (the client context `eo replay` sets): the consumer applies what is new and
 * answers with what each record came to, and sends nothing to its DLQ; any other invocation answers
 * with the partial batch response alone and dead-letters poison as always.
 */
import { REPLAY_CLIENT_CONTEXT, isReplayInvocation, replayCounts } from '../../../../lambdas/runtime/consumer/replay-mode';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { kinesisEvent, kinesisRecord, lambdaContext, pageView } from '../../../helpers/events';
import { DECLINED, harness, STALE, THROTTLED } from './consumer-harness';

const replayContext = () => ({ ...lambdaContext(), clientContext: REPLAY_CLIENT_CONTEXT as never });

test('only the replay marker makes an invocation a replay', () => {
  expect(isReplayInvocation(replayContext())).toBe(true);
  expect(isReplayInvocation(lambdaContext())).toBe(false);
  expect(isReplayInvocation(undefined)).toBe(false);
  expect(isReplayInvocation({ ...lambdaContext(), clientContext: { Custom: { 'effectively-once': 'other' } } as never })).toBe(false);
});

test('a replay answers with its counts and sends no poison to the DLQ', async () => {
  const { respond, dlqMessages } = harness(SourceKind.KINESIS);
  const event = kinesisEvent(kinesisRecord(pageView('home', 'v-1'), { sequenceNumber: '1' }), kinesisRecord(pageView(STALE, 'v-2'), { sequenceNumber: '2' }), kinesisRecord('not json', { sequenceNumber: '3' }), kinesisRecord(pageView(DECLINED, 'v-4'), { sequenceNumber: '4' }));
  const response = await respond(event, replayContext());
  expect(response).toEqual({ batchItemFailures: [], replay: { records: 4, applied: 1, duplicates: 0, skipped: 1, permanent: 2, reported: 0 } });
  expect(dlqMessages()).toEqual([]);
});

test('a transient failure in a replay is reported, and the records after it on the ordered source are not attempted', async () => {
  const { respond, dlqMessages } = harness(SourceKind.KINESIS);
  const event = kinesisEvent(kinesisRecord(pageView('home', 'v-1'), { sequenceNumber: '1' }), kinesisRecord(pageView(THROTTLED, 'v-2'), { sequenceNumber: '2' }), kinesisRecord(pageView('about', 'v-3'), { sequenceNumber: '3' }));
  const response = await respond(event, replayContext());
  expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toContain('2');
  expect(response.replay).toMatchObject({ records: 3, applied: 1 });
  expect((response.replay?.reported ?? 0)).toBeGreaterThanOrEqual(1);
  expect(dlqMessages()).toEqual([]);
});

test('an invocation that is not a replay answers as before and dead-letters poison', async () => {
  const { respond, dlqMessages } = harness(SourceKind.KINESIS);
  const response = await respond(kinesisEvent(kinesisRecord('not json', { sequenceNumber: '1' })), lambdaContext());
  expect(response).toEqual({ batchItemFailures: [] });
  expect(dlqMessages()).toHaveLength(1);
});

test('replayCounts sorts each record by its outcome, a reported one first', () => {
  expect(replayCounts([
    { outcome: { status: 'applied' }, reported: false },
    { outcome: { status: 'duplicate' }, reported: false },
    { outcome: { status: 'skipped', reason: 'older' }, reported: false },
    { outcome: { status: 'failed', error: new Error('poison') }, reported: false },
    { outcome: { status: 'failed', error: new Error('throttled') }, reported: true },
  ])).toEqual({ records: 5, applied: 1, duplicates: 1, skipped: 1, permanent: 1, reported: 1 });
});

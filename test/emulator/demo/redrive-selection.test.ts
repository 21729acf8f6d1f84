/**
 * What the demo's fix-and-redrive phase sends back from each DLQ: schema violations (the fix),
 * every transient runtime failure (time), and Lambda's stream on-failure pointers; never malformed
 * bodies, unknown event types or messages SQS moved without context.
 */
import type { Message } from '@aws-sdk/client-sqs';
import { FailureKind, SourceKind } from '../../../lambdas/runtime';
import { describeFailure } from '../../../lambdas/runtime/failures/failure-context';
import { DlqReason, type FailureEnvelope } from '../../../aws/dlq-format';
import { entryOf, matches } from '../../../operations/dlq';
import { onFailureRecord } from '../../../emulator/event-sources';
import { isCurable, isCurableFailure, redriveFilter } from '../../../emulator/demo/curable';

let ids = 0;
function message(body: string, attributes: Message['MessageAttributes'] = {}): Message {
  ids += 1;
  return { MessageId: `m-${ids}`, ReceiptHandle: `r-${ids}`, Body: body, Attributes: { SentTimestamp: '1764582000000' }, MessageAttributes: attributes };
}

function wrapper(name: string, kind: FailureKind, source: SourceKind = SourceKind.SQS): Message {
  const error = Object.assign(new Error(`${name} happened`), { name, kind });
  const envelope: FailureEnvelope = describeFailure({
    consumer: 'page-view-counter',
    reason: kind === FailureKind.TRANSIENT ? DlqReason.LAST_ATTEMPT : DlqReason.PERMANENT,
    error,
    record: { kind: source, sourceArn: 'arn:aws:sqs:eu-west-1:000000000000:page-views', itemIdentifier: 'i-1', receiveCount: 5, original: { body: '{}', encoding: 'utf8' } } as never,
    eventId: `e-${name}`,
    now: new Date('2026-12-01T09:00:00Z'),
  });
  return message(JSON.stringify({ ...envelope, error: { ...envelope.error, name, kind } }));
}

function pointer(kind: 'kinesis' | 'dynamodb-stream'): Message {
  const streamArn = kind === 'kinesis' ? 'arn:aws:kinesis:eu-west-1:000000000000:stream/orders' : 'arn:aws:dynamodb:eu-west-1:000000000000:table/orders/stream/2026-12-01T00:00:00.000';
  const record = onFailureRecord({ kind, condition: 'RetryAttemptsExhausted', functionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:fn', streamArn, shardId: 'shard-0', records: [{ sequenceNumber: '100', arrivalMs: 0 }], approximateInvokeCount: 4 });
  return message(JSON.stringify(record));
}

test.each([
  ['SchemaViolationError', FailureKind.PERMANENT, true],
  ['RetriesExhaustedError', FailureKind.TRANSIENT, true],
  ['OutOfTimeError', FailureKind.TRANSIENT, true],
  ['EffectInProgressError', FailureKind.TRANSIENT, true],
  ['ThrottlingException', FailureKind.TRANSIENT, true],
  ['InvalidEnvelopeError', FailureKind.PERMANENT, false],
  ['UnknownEventTypeError', FailureKind.PERMANENT, false],
])('a wrapper of %s (%s) is curable: %s', (name, kind, curable) => {
  expect(isCurable(entryOf(wrapper(name, kind)))).toBe(curable);
});

test('stream on-failure pointers are curable, messages without context are not', () => {
  expect(isCurable(entryOf(pointer('kinesis')))).toBe(true);
  expect(isCurable(entryOf(pointer('dynamodb-stream')))).toBe(true);
  expect(isCurable(entryOf(message('{"eventId":"x"}')))).toBe(false);
});

test('without a kind (the attribute fallback), the runtime\'s transient names are curable', () => {
  expect(isCurableFailure('OutOfTimeError')).toBe(true);
  expect(isCurableFailure('EffectInProgressError')).toBe(true);
  expect(isCurableFailure('SchemaViolationError')).toBe(true);
  expect(isCurableFailure('InvalidEnvelopeError')).toBe(false);
});

test('the filter selects exactly the curable messages of a DLQ', () => {
  const dlq = [wrapper('SchemaViolationError', FailureKind.PERMANENT), wrapper('OutOfTimeError', FailureKind.TRANSIENT), wrapper('EffectInProgressError', FailureKind.TRANSIENT), wrapper('InvalidEnvelopeError', FailureKind.PERMANENT), pointer('dynamodb-stream'), message('bare body')].map(entryOf);
  const filter = redriveFilter(dlq);
  expect(filter).toEqual({ errorType: ['EffectInProgressError', 'OutOfTimeError', 'RetryAttemptsExhausted', 'SchemaViolationError'] });
  expect(dlq.filter((entry) => filter !== undefined && matches(entry, filter)).map((entry) => entry.errorType)).toEqual(['SchemaViolationError', 'OutOfTimeError', 'EffectInProgressError', 'RetryAttemptsExhausted']);
});

test('a DLQ holding only malformed or unknown events has nothing to redrive', () => {
  expect(redriveFilter([wrapper('InvalidEnvelopeError', FailureKind.PERMANENT), wrapper('UnknownEventTypeError', FailureKind.PERMANENT)].map(entryOf))).toBeUndefined();
});

test('an error name shared by a curable and an incurable message is left out: nothing incurable is sent back', () => {
  const dlq = [wrapper('Error', FailureKind.TRANSIENT), wrapper('Error', FailureKind.PERMANENT), wrapper('OutOfTimeError', FailureKind.TRANSIENT)].map(entryOf);
  expect(redriveFilter(dlq)).toEqual({ errorType: ['OutOfTimeError'] });
});

/**
 * The wrapper format's one validator: a body that claims `effectively-once/failure` is checked
 * against the whole layout, and every field that is missing or wrong is named by its path.
 */
import { checkFailureEnvelope, FAILURE_FORMAT, FAILURE_FORMAT_VERSION, isFailureEnvelope, type FailureEnvelope } from '../../aws/dlq-format';

const valid: FailureEnvelope = {
  format: FAILURE_FORMAT,
  version: FAILURE_FORMAT_VERSION,
  consumer: 'page-view-counter',
  reason: 'permanent',
  error: { name: 'SchemaViolationError', message: 'bad', kind: 'permanent', stack: 'at x', details: { field: 'page' } },
  attempts: 1,
  firstFailureAt: '2026-12-01T10:00:00.000Z',
  lastFailureAt: '2026-12-01T10:00:00.000Z',
  eventId: 'e-1',
  eventType: 'page.viewed',
  source: { kind: 'sqs', arn: 'arn:aws:sqs:us-east-1:000000000000:page-views', itemIdentifier: 'm-1' },
  original: { body: '{}', encoding: 'utf8', attributes: { ApproximateReceiveCount: '1' }, messageAttributes: { tenant: { stringValue: 'a', dataType: 'String' } } },
};

test('a whole wrapper passes, as JSON gives it back', () => {
  expect(checkFailureEnvelope(JSON.parse(JSON.stringify(valid)))).toEqual({ envelope: valid });
  expect(isFailureEnvelope(valid)).toBe(true);
});

test('a body that does not claim the format is not checked: it is another kind of message', () => {
  for (const body of [undefined, null, 'text', [valid], { ...valid, format: 'other' }, { requestContext: {} }]) expect(checkFailureEnvelope(body)).toBeUndefined();
});

test('the format alone names every field the wrapper lacks', () => {
  expect(checkFailureEnvelope({ format: FAILURE_FORMAT })).toEqual({
    problems: ['version is missing', 'consumer is missing', 'reason is missing', 'error is missing', 'attempts is missing', 'firstFailureAt is missing', 'lastFailureAt is missing', 'source is missing', 'original is missing'],
  });
  expect(isFailureEnvelope({ format: FAILURE_FORMAT })).toBe(false);
});

test.each<[string, Record<string, unknown>, string]>([
  ['another version', { version: 2 }, 'version is 2, expected 1'],
  ['a source kind no redrive knows', { source: { ...valid.source, kind: 'ftp' } }, 'source.kind is "ftp", expected sqs or kinesis or dynamodb-stream'],
  ['a source without its ARN', { source: { kind: 'sqs', itemIdentifier: 'm-1' } }, 'source.arn is missing'],
  ['an error that is a string', { error: 'boom' }, 'error is "boom", expected an object'],
  ['an error without a name', { error: { message: 'x', kind: 'permanent' } }, 'error.name is missing'],
  ['an original body that is not text', { original: { body: { page: 'x' }, encoding: 'utf8' } }, 'original.body is an object, expected a string'],
  ['an encoding no redrive knows', { original: { body: 'x', encoding: 'hex' } }, 'original.encoding is "hex", expected utf8 or base64'],
  ['attributes that are not strings', { original: { ...valid.original, attributes: { ApproximateReceiveCount: 1 } } }, 'original.attributes is an object, expected an object of strings'],
  ['message attributes without a data type', { original: { ...valid.original, messageAttributes: { tenant: { stringValue: 'a' } } } }, "original.messageAttributes is an object, expected an object of Lambda's SQS message attributes"],
  ['a failure time that is no time', { firstFailureAt: 'yesterday' }, 'firstFailureAt is "yesterday", expected an ISO-8601 time'],
  ['attempts that are not a count', { attempts: '3' }, 'attempts is "3", expected a whole number'],
  ['an event id that is a number', { eventId: 42 }, 'eventId is 42, expected a string'],
  ['a null consumer', { consumer: null }, 'consumer is null, expected a string'],
])('names %s', (_name, change, problem) => {
  expect(checkFailureEnvelope({ ...valid, ...change })).toEqual({ problems: [problem] });
});

test('a reason or error kind a later runtime may add is shown, not refused', () => {
  expect(checkFailureEnvelope({ ...valid, reason: 'quarantined', error: { ...valid.error, kind: 'fatal' } })?.envelope).toBeDefined();
});

/**
 * Which failures are worth retrying. Retrying a permanent failure burns the retry budget forever;
 * calling a transient one permanent sends a record that would have succeeded to the DLQ.
 *
 * The AWS errors here are built the way the SDK v3 builds them (real exception classes where the
 * SDK exports one, otherwise an Error with `name` and `$metadata`): what is under test is our
 * classification, not the service.
 */
import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { classifyError, classifyHttpStatus } from '../../../../lambdas/runtime/core/classify';
import {
  ConfigurationError,
  DlqSendError,
  EnvelopeProblem,
  FailureKind,
  InvalidEnvelopeError,
  NotAttemptedError,
  PermanentError,
  PublishError,
  RetriesExhaustedError,
  SchemaViolationError,
  TransientError,
  UnknownEventTypeError,
} from '../../../../lambdas/runtime/core/errors';
import { awsError } from '../../../helpers/fakes';

const { TRANSIENT, PERMANENT } = FailureKind;
const metadata = (httpStatusCode: number) => ({ httpStatusCode, requestId: 'req-1', attempts: 3, totalRetryDelay: 120 });

describe('classifyError: AWS SDK errors', () => {
  test.each<[string, unknown, FailureKind]>([
    ['DynamoDB ProvisionedThroughputExceededException (400)', new ProvisionedThroughputExceededException({ message: 'Throughput exceeded', $metadata: metadata(400) }), TRANSIENT],
    ['DynamoDB TransactionConflictException (400)', new TransactionConflictException({ message: 'Conflict', $metadata: metadata(400) }), TRANSIENT],
    ['DynamoDB ConditionalCheckFailedException (400)', new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: metadata(400) }), PERMANENT],
    ['DynamoDB TransactionCanceledException (400): the committer reads its reasons before classifying', new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: metadata(400) }), PERMANENT],
    ['Kinesis ProvisionedThroughputExceededException (400)', awsError('ProvisionedThroughputExceededException', 400), TRANSIENT],
    ['ThrottlingException (400)', awsError('ThrottlingException', 400), TRANSIENT],
    ['SQS RequestThrottled (403)', awsError('RequestThrottled', 403), TRANSIENT],
    ['KMSThrottlingException (400)', awsError('KMSThrottlingException', 400), TRANSIENT],
    ['TooManyRequestsException (429)', awsError('TooManyRequestsException', 429), TRANSIENT],
    ['LimitExceededException (400)', awsError('LimitExceededException', 400), TRANSIENT],
    ['InternalServerError (500)', awsError('InternalServerError', 500), TRANSIENT],
    ['ServiceUnavailable (503)', awsError('ServiceUnavailable', 503), TRANSIENT],
    ['an unknown name with status 500', awsError('SomethingBrokeException', 500), TRANSIENT],
    ['an unknown name with status 502', awsError('BadGatewayException', 502), TRANSIENT],
    ['an unknown name with status 503', awsError('SlowDown', 503), TRANSIENT],
    ['an unknown name with status 408', awsError('RequestTimeoutException2', 408), TRANSIENT],
    ['an unknown name with status 429', awsError('TooManyThings', 429), TRANSIENT],
    ['ValidationException (400)', awsError('ValidationException', 400), PERMANENT],
    ['AccessDeniedException (403)', awsError('AccessDeniedException', 403), PERMANENT],
    ['ResourceNotFoundException (404)', awsError('ResourceNotFoundException', 404), PERMANENT],
    ['SQS QueueDoesNotExist (400)', awsError('AWS.SimpleQueueService.NonExistentQueue', 400), PERMANENT],
    ['SQS InvalidParameterValue (400)', awsError('InvalidParameterValue', 400), PERMANENT],
    ['a 413 payload too large', awsError('RequestEntityTooLargeException', 413), PERMANENT],
    ['a 400 that the SDK marks $retryable', Object.assign(awsError('SomeClientException', 400), { $retryable: { throttling: true } }), TRANSIENT],
    ['a 404 that the SDK marks $retryable', Object.assign(awsError('EventualConsistencyNotFound', 404), { $retryable: {} }), TRANSIENT],
    ['an SDK error without an HTTP status (e.g. a network failure before any response)', Object.assign(new Error('socket hang up'), { name: 'NetworkingError', $metadata: {} }), TRANSIENT],
  ])('%s', (_label, error, kind) => {
    expect(classifyError(error)).toBe(kind);
  });

  test('the name wins over a 4xx status: a throttle is transient whatever its status says', () => {
    expect(classifyError(awsError('ThrottlingException', 400))).toBe(TRANSIENT);
    expect(classifyError(awsError('ProvisionedThroughputExceededException', 400))).toBe(TRANSIENT);
  });
});

describe('classifyError: node and plain errors', () => {
  test.each<[string, unknown, FailureKind]>([
    ['a plain Error', new Error('boom'), TRANSIENT],
    ['a TypeError', new TypeError('x is undefined'), TRANSIENT],
    ['an ECONNRESET code', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), TRANSIENT],
    ['an ETIMEDOUT code', Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }), TRANSIENT],
    ['an EAI_AGAIN code', Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' }), TRANSIENT],
    ['a TimeoutError', Object.assign(new Error('timed out'), { name: 'TimeoutError' }), TRANSIENT],
    ['an error with statusCode 403', Object.assign(new Error('forbidden'), { statusCode: 403 }), PERMANENT],
    ['an error with statusCode 502', Object.assign(new Error('bad gateway'), { statusCode: 502 }), TRANSIENT],
    ['an error with status 404', Object.assign(new Error('not found'), { status: 404 }), PERMANENT],
    ['an error with status 429', Object.assign(new Error('slow down'), { status: 429 }), TRANSIENT],
    ['an error with a non-numeric status', Object.assign(new Error('odd'), { status: '400' }), TRANSIENT],
    ['Powertools IdempotencyAlreadyInProgressError', Object.assign(new Error('in progress'), { name: 'IdempotencyAlreadyInProgressError' }), TRANSIENT],
  ])('%s', (_label, error, kind) => {
    expect(classifyError(error)).toBe(kind);
  });
});

describe('classifyError: our own errors carry their kind', () => {
  class PaymentDeclinedError extends PermanentError {}
  class InventoryBusyError extends TransientError {}

  test.each<[string, unknown, FailureKind]>([
    ['PermanentError', new PermanentError('no'), PERMANENT],
    ['InvalidEnvelopeError', new InvalidEnvelopeError(EnvelopeProblem.NOT_JSON, 'body is not JSON'), PERMANENT],
    ['SchemaViolationError', new SchemaViolationError('page.viewed', ['pageId: Required']), PERMANENT],
    ['UnknownEventTypeError', new UnknownEventTypeError('page.clicked', ['page.viewed']), PERMANENT],
    ['a PermanentError subclass of a handler', new PaymentDeclinedError('card declined'), PERMANENT],
    ['TransientError', new TransientError('later'), TRANSIENT],
    ['RetriesExhaustedError', new RetriesExhaustedError(3, new Error('timeout')), TRANSIENT],
    ['NotAttemptedError', new NotAttemptedError(), TRANSIENT],
    ['DlqSendError', new DlqSendError('DLQ down'), TRANSIENT],
    ['PublishError', new PublishError('2 entries failed', ['1', '2']), TRANSIENT],
    ['a TransientError subclass of a handler', new InventoryBusyError('locked'), TRANSIENT],
    ['ConfigurationError (neither kind: unrecognised, so transient)', new ConfigurationError('X is required'), TRANSIENT],
  ])('%s', (_label, error, kind) => {
    expect(classifyError(error)).toBe(kind);
  });

  test('our kind wins over an HTTP status the error also carries', () => {
    expect(classifyError(Object.assign(new PermanentError('bad'), { $metadata: { httpStatusCode: 503 } }))).toBe(PERMANENT);
    expect(classifyError(Object.assign(new TransientError('busy'), { $metadata: { httpStatusCode: 400 } }))).toBe(TRANSIENT);
  });

  test('RetriesExhaustedError wrapping a permanent cause stays transient: only the outer error counts', () => {
    expect(classifyError(new RetriesExhaustedError(3, new PermanentError('x')))).toBe(TRANSIENT);
  });
});

describe('classifyError: things thrown that are not errors', () => {
  test.each<[string, unknown]>([
    ['a string', 'something went wrong'],
    ['a number', 500],
    ['null', null],
    ['undefined', undefined],
    ['an empty object', {}],
    ['a symbol', Symbol('failure')],
  ])('%s is transient (unknown failures get a bounded number of retries)', (_label, thrown) => {
    expect(classifyError(thrown)).toBe(TRANSIENT);
  });

  test('a plain object shaped like an SDK error is classified by its fields', () => {
    expect(classifyError({ name: 'ThrottlingException' })).toBe(TRANSIENT);
    expect(classifyError({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } })).toBe(PERMANENT);
  });
});

describe('classifyHttpStatus', () => {
  test.each<[number, FailureKind]>([
    [200, TRANSIENT],
    [399, TRANSIENT],
    [400, PERMANENT],
    [401, PERMANENT],
    [403, PERMANENT],
    [404, PERMANENT],
    [407, PERMANENT],
    [408, TRANSIENT],
    [409, PERMANENT],
    [413, PERMANENT],
    [428, PERMANENT],
    [429, TRANSIENT],
    [499, PERMANENT],
    [500, TRANSIENT],
    [502, TRANSIENT],
    [503, TRANSIENT],
    [504, TRANSIENT],
  ])('%i is %s', (status, kind) => {
    expect(classifyHttpStatus(status)).toBe(kind);
  });
});

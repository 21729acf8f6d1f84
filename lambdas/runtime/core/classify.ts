import { FailureKind, PermanentError, TransientError } from './errors';

/** AWS error names that mean "try again later". */
const TRANSIENT_ERROR_NAMES: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'LimitExceededException',
  'TransactionConflictException',
  'TransactionInProgressException',
  'InternalServerError',
  'InternalFailure',
  'InternalError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'KMSThrottlingException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  // Powertools idempotency: another invocation holds the record, or its store failed.
  'IdempotencyAlreadyInProgressError',
  'IdempotencyPersistenceLayerError',
]);

/** Cancellation reason codes of `TransactWriteItems` that a retry can clear. */
export const TRANSIENT_CANCELLATION_CODES: ReadonlySet<string> = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
]);

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  statusCode?: unknown;
  status?: unknown;
}

/**
 * Decides whether a failure is worth retrying.
 *
 * Our own errors carry their kind. AWS SDK errors are classified by name, the SDK's
 * `$retryable` hint, then HTTP status; plain errors with a `statusCode` or `status` by status.
 * 408 and 429 are transient, other 4xx permanent, 5xx transient. Anything unrecognised is
 * transient: retrying an unknown failure a bounded number of times costs little, while calling it
 * permanent would send a record that might have succeeded to the DLQ.
 */
export function classifyError(error: unknown): FailureKind {
  if (error instanceof PermanentError) return FailureKind.PERMANENT;
  if (error instanceof TransientError) return FailureKind.TRANSIENT;
  if (typeof error !== 'object' || error === null) return FailureKind.TRANSIENT;
  const shape = error as ErrorShape;
  if (isTransientName(shape.name) || isTransientName(shape.code)) return FailureKind.TRANSIENT;
  if (shape.$retryable) return FailureKind.TRANSIENT;
  const status = statusOf(shape);
  return status === undefined ? FailureKind.TRANSIENT : classifyHttpStatus(status);
}

/** 408 and 429 are transient, other 4xx permanent, everything else transient. */
export function classifyHttpStatus(status: number): FailureKind {
  if (status === 408 || status === 429) return FailureKind.TRANSIENT;
  if (status >= 400 && status < 500) return FailureKind.PERMANENT;
  return FailureKind.TRANSIENT;
}

function isTransientName(name: unknown): boolean {
  return typeof name === 'string' && TRANSIENT_ERROR_NAMES.has(name);
}

function statusOf(shape: ErrorShape): number | undefined {
  const candidates = [shape.$metadata?.httpStatusCode, shape.statusCode, shape.status];
  return candidates.find((value): value is number => typeof value === 'number');
}

/**
 * SQS's ranges for receive and visibility parameters: ReceiveMessage `MaxNumberOfMessages`
 * 1..10, `WaitTimeSeconds` 0..20, `VisibilityTimeout` 0..43200 (also on ChangeMessageVisibility
 * and each ChangeMessageVisibilityBatch entry). API Reference, ReceiveMessage and
 * ChangeMessageVisibility. The first two messages are AWS's (LocalStack's validated snapshots
 * `test_send_receive_max_number_of_messages`, `test_send_receive_wait_time_seconds`); the
 * VisibilityTimeout wording follows WaitTimeSeconds', as no capture of it was found.
 */
import { fail, OK, type CheckResult } from './aws-error';
import { SQS_LIMITS } from '../../aws/limits';
import { sqsError } from './sqs-errors';

export const SQS_RANGE_RULES = {
  maxNumberOfMessages: 'sqs.receive.max-number-of-messages',
  waitTimeSeconds: 'sqs.receive.wait-time-seconds',
  visibilityTimeout: 'sqs.visibility-timeout',
} as const;

/** The parameters of ReceiveMessage that have a range. */
export interface SqsReceiveInput {
  readonly MaxNumberOfMessages?: number;
  readonly WaitTimeSeconds?: number;
  readonly VisibilityTimeout?: number;
}

/** ReceiveMessage's ranges, in the order SQS reports them. */
export function checkSqsReceive(input: SqsReceiveInput): CheckResult {
  const { MaxNumberOfMessages: max, WaitTimeSeconds: wait } = input;
  if (max !== undefined && !inRange(max, 1, SQS_LIMITS.maxReceiveMessages)) {
    return rangeError(SQS_RANGE_RULES.maxNumberOfMessages, `Value ${max} for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and ${SQS_LIMITS.maxReceiveMessages}, if provided.`);
  }
  if (wait !== undefined && !inRange(wait, 0, SQS_LIMITS.maxWaitTimeSeconds)) {
    return rangeError(SQS_RANGE_RULES.waitTimeSeconds, `Value ${wait} for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= ${SQS_LIMITS.maxWaitTimeSeconds}, if provided.`);
  }
  return checkVisibilityTimeout(input.VisibilityTimeout);
}

/** `VisibilityTimeout` 0..43200 when given. */
export function checkVisibilityTimeout(timeout: number | undefined): CheckResult {
  if (timeout === undefined || inRange(timeout, 0, SQS_LIMITS.maxVisibilityTimeoutSeconds)) return OK;
  return rangeError(SQS_RANGE_RULES.visibilityTimeout, `Value ${timeout} for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= ${SQS_LIMITS.maxVisibilityTimeoutSeconds}, if provided.`);
}

function inRange(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}

function rangeError(rule: string, message: string): CheckResult {
  return fail(sqsError(rule, 'InvalidParameterValue', message));
}

/**
 * SQS's rules for the FIFO fields of a message, sent alone or as a batch entry (SQS Developer
 * Guide, "Amazon SQS FIFO queues"; API Reference, SendMessage: `MessageGroupId` and
 * `MessageDeduplicationId`, 1..128 alphanumeric and punctuation characters): a FIFO queue needs a
 * message group, and a deduplication id unless it has content-based deduplication; a standard
 * queue refuses a deduplication id (a message group is allowed there, with the same characters:
 * fair queues); a FIFO queue
 * refuses a per-message delay. Messages as AWS words them, from errors quoted in public
 * post-mortems and runbooks (its "The request include parameter" included); the group id's
 * wording mirrors the deduplication id's, which was the one found.
 */
import { fail, firstFailure, OK, type CheckResult } from './aws-error';
import type { SqsFacts } from './facts';
import { sqsError } from './sqs-errors';
import { FIFO_ID_MAX_LENGTH, isFifoId } from '../../aws/sqs/fifo';

/** The FIFO fields of a message. */
export interface SqsFifoFields {
  readonly MessageGroupId?: string;
  readonly MessageDeduplicationId?: string;
  readonly DelaySeconds?: number;
}

export const SQS_FIFO_RULES = {
  groupMissing: 'sqs.fifo.message-group-id.missing',
  deduplicationMissing: 'sqs.fifo.message-deduplication-id.missing',
  idCharacters: 'sqs.fifo.ids.characters',
  deduplicationOnStandard: 'sqs.fifo.message-deduplication-id.standard-queue',
  delayOnFifo: 'sqs.fifo.delay-seconds',
} as const;

const NOT_FOR_THIS_QUEUE_TYPE = 'The request include parameter that is not valid for this queue type.';

/** The FIFO rules for one message on a queue that is FIFO or not (`facts.fifo`). */
export function checkSqsFifoFields(message: SqsFifoFields, facts: SqsFacts): CheckResult {
  if (!facts.fifo) return checkStandard(message);
  return firstFailure([
    () => (message.MessageGroupId === undefined ? fail(sqsError(SQS_FIFO_RULES.groupMissing, 'MissingParameter', 'The request must contain the parameter MessageGroupId.')) : OK),
    () => checkId('MessageGroupId', message.MessageGroupId),
    () => checkDeduplication(message, facts),
    () => checkId('MessageDeduplicationId', message.MessageDeduplicationId),
    () => (message.DelaySeconds === undefined ? OK : fail(sqsError(SQS_FIFO_RULES.delayOnFifo, 'InvalidParameterValue', `Value ${message.DelaySeconds} for parameter DelaySeconds is invalid. Reason: ${NOT_FOR_THIS_QUEUE_TYPE}`))),
  ]);
}

/** A standard queue's group id names a fair queue's tenant; SendMessage gives it the same characters and length as on a FIFO queue. */
function checkStandard(message: SqsFifoFields): CheckResult {
  if (message.MessageDeduplicationId === undefined) return checkId('MessageGroupId', message.MessageGroupId);
  const text = `Value ${message.MessageDeduplicationId} for parameter MessageDeduplicationId is invalid. Reason: ${NOT_FOR_THIS_QUEUE_TYPE}`;
  return fail(sqsError(SQS_FIFO_RULES.deduplicationOnStandard, 'InvalidParameterValue', text));
}

function checkDeduplication(message: SqsFifoFields, facts: SqsFacts): CheckResult {
  if (message.MessageDeduplicationId !== undefined || facts.contentBasedDeduplication) return OK;
  return fail(sqsError(SQS_FIFO_RULES.deduplicationMissing, 'InvalidParameterValue', 'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly'));
}

function checkId(parameter: 'MessageGroupId' | 'MessageDeduplicationId', value: string | undefined): CheckResult {
  if (value === undefined || isFifoId(value)) return OK;
  const text = `Value ${value} for parameter ${parameter} is invalid. Reason: ${parameter} can only include alphanumeric and punctuation characters. 1 to ${FIFO_ID_MAX_LENGTH} in length.`;
  return fail(sqsError(SQS_FIFO_RULES.idCharacters, 'InvalidParameterValue', text));
}

/**
 * The rules for one SQS message, sent alone (SendMessage) or as one entry of SendMessageBatch:
 * its body, its attributes, its size against the queue's `MaximumMessageSize`, its delay.
 * Sources: API Reference, SendMessage (`MessageBody`: 1 character at least, only the XML `Char`
 * set; `DelaySeconds` 0..900) and Developer Guide, message quotas (the size counts the body and
 * each attribute's name, type and value). Messages as recorded from AWS: an invalid character
 * (aws-sdk-go error quoted in asim/nitro-plugins#437), too long (LocalStack's validated
 * snapshots, SendMessage and a batch entry differ), the delay (aws-samples replay issue #8).
 */
import { blobBytes, fail, firstFailure, OK, utf8Bytes, type CheckResult } from './aws-error';
import type { SqsFacts } from './facts';
import { SQS_LIMITS } from '../../aws/limits';
import { checkSqsAttributes, type SqsAttributes } from './sqs-attributes';
import { checkSqsFifoFields, type SqsFifoFields } from './sqs-fifo';
import { sqsError } from './sqs-errors';
import { firstRefusedCharacter } from './sqs-text';

/** The parts of a SendMessage request, or of a SendMessageBatch entry, that the rules read. */
export interface SqsMessageInput extends SqsFifoFields {
  readonly MessageBody?: string;
  readonly MessageAttributes?: SqsAttributes;
  readonly DelaySeconds?: number;
}

/** Where the message stands: SQS words a size error differently in a batch entry. */
export type SqsMessageContext = 'SendMessage' | 'SendMessageBatch';

export const SQS_MESSAGE_RULES = {
  bodyMissing: 'sqs.message-body.missing',
  bodyCharacters: 'sqs.message-body.characters',
  size: 'sqs.message-size',
  delay: 'sqs.delay-seconds',
} as const;

/** Every rule for one message, in order: body, attributes, size, delay, the FIFO fields (sqs-fifo.ts). */
export function checkSqsMessage(message: SqsMessageInput, facts: SqsFacts = {}, context: SqsMessageContext = 'SendMessage'): CheckResult {
  return firstFailure([
    () => checkBody(message.MessageBody),
    () => checkSqsAttributes(message.MessageAttributes),
    () => checkSize(message, facts.maximumMessageSize ?? SQS_LIMITS.maxMessageBytes, context),
    () => checkDelay(message.DelaySeconds),
    () => checkSqsFifoFields(message, facts),
  ]);
}

/** The size SQS checks: the body plus each attribute's name, data type and value, in bytes. */
export function sqsMessageBytes(message: SqsMessageInput): number {
  const attributes = Object.entries(message.MessageAttributes ?? {});
  const attributeBytes = attributes.reduce(
    (sum, [name, value]) => sum + utf8Bytes(name) + utf8Bytes(value.DataType ?? '') + utf8Bytes(value.StringValue ?? '') + blobBytes(value.BinaryValue),
    0,
  );
  return utf8Bytes(message.MessageBody ?? '') + attributeBytes;
}

function checkBody(body: string | undefined): CheckResult {
  if (body === undefined || body === '') {
    return fail(sqsError(SQS_MESSAGE_RULES.bodyMissing, 'MissingParameter', 'The request must contain the parameter MessageBody.'));
  }
  const refused = firstRefusedCharacter(body);
  if (refused === undefined) return OK;
  const message = `Invalid binary character '${refused}' was found in the message body, the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].`;
  return fail(sqsError(SQS_MESSAGE_RULES.bodyCharacters, 'InvalidMessageContents', message));
}

function checkSize(message: SqsMessageInput, limit: number, context: SqsMessageContext): CheckResult {
  if (sqsMessageBytes(message) <= limit) return OK;
  const verb = context === 'SendMessage' ? 'are invalid' : 'cannot be validated';
  return fail(sqsError(SQS_MESSAGE_RULES.size, 'InvalidParameterValue', `One or more parameters ${verb}. Reason: Message must be shorter than ${limit} bytes.`));
}

function checkDelay(delay: number | undefined): CheckResult {
  if (delay === undefined || (delay >= 0 && delay <= SQS_LIMITS.maxDelaySeconds)) return OK;
  const message = `Value ${delay} for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= ${SQS_LIMITS.maxDelaySeconds}.`;
  return fail(sqsError(SQS_MESSAGE_RULES.delay, 'InvalidParameterValue', message));
}

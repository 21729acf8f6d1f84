import { SendMessageCommand, type MessageAttributeValue, type SQSClient } from '@aws-sdk/client-sqs';
import { withRetries, type RetryOptions } from '../core/backoff';
import { DlqSendError, messageOf } from '../core/errors';
import { ATTRIBUTE_CONTEXT_FORMAT, DlqAttribute, FAILURE_FORMAT, type FailureEnvelope } from '../../../aws/dlq-format';
import { escapeJsonForSqs, isSqsText, toSqsText, truncateUtf8 } from '../../../aws/sqs-text';
import { SQS_LIMITS } from '../../../aws/limits';
import { FIFO_ID_MAX_LENGTH, isFifoQueue } from '../../../aws/sqs/fifo';
import { createHash } from 'node:crypto';
import { firstSentOfOriginal } from '../../../aws/first-sent';
import { sqsMessageBytes } from '../../../aws/sqs/message-size';

export { ATTRIBUTE_CONTEXT_FORMAT, DlqAttribute } from '../../../aws/dlq-format';

/**
 * UTF-8 bytes kept of each attribute value: SQS counts every attribute toward the message size,
 * so each is bounded. The error message keeps more, being what triage filters on first; the rest
 * (names, reason, event id of at most 256 ASCII characters, counts, timestamps) are short.
 */
const ATTRIBUTE_MESSAGE_BYTES = 1_024;
const ATTRIBUTE_VALUE_BYTES = 256;

/** Writes failure wrappers to one DLQ. */
export class DlqSender {
  public constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly retry: RetryOptions = {},
  ) {}

  /**
   * Sends the wrapper; retries transient errors; throws {@link DlqSendError} when it cannot, so
   * that the caller leaves the record failed (redelivered) rather than lost.
   *
   * A wrapper too large for SQS degrades to the original body with the context in message
   * attributes. When even that is too large the send fails: the record stays with its source.
   *
   * Only what SQS accepts is sent: the wrapper's JSON is escaped where SQS refuses a character,
   * so it keeps the whole error exactly; attribute values, being excerpts, have such characters
   * replaced by U+FFFD and are cut to a byte bound.
   */
  public async send(failure: FailureEnvelope): Promise<void> {
    const full = this.commandFor(escapeJsonForSqs(JSON.stringify(failure)), failure, FAILURE_FORMAT);
    const command = messageBytes(full) <= SQS_LIMITS.maxMessageBytes ? full : this.commandFor(fallbackBody(failure), failure, ATTRIBUTE_CONTEXT_FORMAT);
    try {
      await withRetries(() => this.sqs.send(command), this.retry);
    } catch (error) {
      throw new DlqSendError(`could not send ${failure.source.itemIdentifier} to the DLQ ${this.queueUrl}: ${messageOf(error)}`, { cause: error });
    }
  }

  private commandFor(body: string, failure: FailureEnvelope, format: string): SendMessageCommand {
    return new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: body, MessageAttributes: contextAttributes(failure, format), ...groupIds(this.queueUrl, failure) });
  }
}

/**
 * A FIFO DLQ's send needs a message group and a deduplication id. The group is the original
 * message's, so that the DLQ keeps each group's failures in their order for the redrive; the
 * deduplication id is the original message's identity, so that sending the same failure twice
 * within SQS's 5 minutes (a crash after the send, before the batch response) leaves one copy.
 *
 * A standard DLQ takes no deduplication id, but keeps the original's group id when it had one:
 * on a standard queue that is the message's tenant (SQS fair queues), and fairness applies to the
 * DLQ and to the redrive as well, so one tenant's flood of failures does not bury the others'.
 */
function groupIds(queueUrl: string, failure: FailureEnvelope): { MessageGroupId?: string; MessageDeduplicationId?: string } {
  const originalGroup = failure.original.attributes?.MessageGroupId;
  if (!isFifoQueue(queueUrl)) return originalGroup ? { MessageGroupId: originalGroup.slice(0, FIFO_ID_MAX_LENGTH) } : {};
  const group = originalGroup || failure.consumer;
  const identity = createHash('sha256').update(`${failure.source.arn}\n${failure.source.itemIdentifier}`).digest('hex');
  return { MessageGroupId: group.slice(0, FIFO_ID_MAX_LENGTH), MessageDeduplicationId: identity };
}

/** What SQS counts toward its size limit: the body plus each attribute's name, type and value. */
function messageBytes(command: SendMessageCommand): number {
  return sqsMessageBytes(command.input.MessageBody ?? '', command.input.MessageAttributes);
}

/**
 * The original body, for the attribute fallback. SQS bodies and base64 Kinesis data are SQS text
 * already; a DynamoDB stream record (JSON) may hold U+FFFE, U+FFFF or a lone surrogate, which the
 * escaper makes acceptable without changing the JSON value. What cannot be done: carry exactly
 * an original that is not JSON and holds a character SQS refuses (none of our sources produces
 * one). It is sent as it is; SQS refuses it, and the record stays with its source, as one too
 * large for any message does.
 */
function fallbackBody(failure: FailureEnvelope): string {
  const { body } = failure.original;
  return isSqsText(body) || !isJson(body) ? body : escapeJsonForSqs(body);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function contextAttributes(failure: FailureEnvelope, format: string): Record<string, MessageAttributeValue> {
  const values: Record<string, string | undefined> = {
    [DlqAttribute.FORMAT]: format,
    [DlqAttribute.CONSUMER]: failure.consumer,
    [DlqAttribute.ERROR_NAME]: failure.error.name,
    [DlqAttribute.ERROR_MESSAGE]: failure.error.message || '(no message)',
    [DlqAttribute.REASON]: failure.reason,
    [DlqAttribute.EVENT_ID]: failure.eventId,
    [DlqAttribute.ATTEMPTS]: String(failure.attempts),
    [DlqAttribute.FAILED_AT]: failure.lastFailureAt,
    [DlqAttribute.FIRST_SENT_AT]: isoTime(firstSentOfOriginal(failure.original, failure.source.kind)),
  };
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(values)) {
    const maxBytes = name === DlqAttribute.ERROR_MESSAGE ? ATTRIBUTE_MESSAGE_BYTES : ATTRIBUTE_VALUE_BYTES;
    if (value) attributes[name] = { DataType: 'String', StringValue: attributeText(value, maxBytes) };
  }
  return attributes;
}

function isoTime(epochMs: number | undefined): string | undefined {
  return epochMs === undefined ? undefined : new Date(epochMs).toISOString();
}

/** A value SQS accepts in a String attribute: refused characters replaced first (U+FFFD is 3 bytes), then cut. */
function attributeText(value: string, maxBytes: number): string {
  return truncateUtf8(toSqsText(value), maxBytes);
}

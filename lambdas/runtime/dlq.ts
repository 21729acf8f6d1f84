import { SendMessageCommand, type MessageAttributeValue, type SQSClient } from '@aws-sdk/client-sqs';
import { withRetries, type RetryOptions } from './backoff';
import { DlqSendError, messageOf } from './errors';
import { FAILURE_FORMAT, type FailureEnvelope } from './failureContext';

/** SQS's largest message body, in bytes. */
export const SQS_MAX_MESSAGE_BYTES = 1_048_576;
/** Marks a DLQ message whose context travels in attributes because the wrapper would not fit. */
export const ATTRIBUTE_CONTEXT_FORMAT = 'effectively-once/failure-attributes';

/** Message attributes set on every DLQ message we write, so tools can filter without parsing bodies. */
export const DlqAttribute = {
  FORMAT: 'eo-format',
  CONSUMER: 'eo-consumer',
  ERROR_NAME: 'eo-error-name',
  ERROR_MESSAGE: 'eo-error-message',
  REASON: 'eo-reason',
  EVENT_ID: 'eo-event-id',
  ATTEMPTS: 'eo-attempts',
  FAILED_AT: 'eo-failed-at',
} as const;

const ATTRIBUTE_MESSAGE_LIMIT = 1_024;

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
   */
  public async send(failure: FailureEnvelope): Promise<void> {
    const full = this.commandFor(JSON.stringify(failure), failure, FAILURE_FORMAT);
    const command = messageBytes(full) <= SQS_MAX_MESSAGE_BYTES ? full : this.commandFor(failure.original.body, failure, ATTRIBUTE_CONTEXT_FORMAT);
    try {
      await withRetries(() => this.sqs.send(command), this.retry);
    } catch (error) {
      throw new DlqSendError(`could not send ${failure.source.itemIdentifier} to the DLQ ${this.queueUrl}: ${messageOf(error)}`, { cause: error });
    }
  }

  private commandFor(body: string, failure: FailureEnvelope, format: string): SendMessageCommand {
    return new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: body, MessageAttributes: contextAttributes(failure, format) });
  }
}

/** What SQS counts toward its size limit: the body plus each attribute's name, type and value. */
function messageBytes(command: SendMessageCommand): number {
  const { MessageBody = '', MessageAttributes = {} } = command.input;
  let bytes = Buffer.byteLength(MessageBody);
  for (const [name, value] of Object.entries(MessageAttributes)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '') + Buffer.byteLength(value.StringValue ?? '');
  }
  return bytes;
}

function contextAttributes(failure: FailureEnvelope, format: string): Record<string, MessageAttributeValue> {
  const values: Record<string, string | undefined> = {
    [DlqAttribute.FORMAT]: format,
    [DlqAttribute.CONSUMER]: failure.consumer,
    [DlqAttribute.ERROR_NAME]: failure.error.name,
    [DlqAttribute.ERROR_MESSAGE]: failure.error.message.slice(0, ATTRIBUTE_MESSAGE_LIMIT) || '(no message)',
    [DlqAttribute.REASON]: failure.reason,
    [DlqAttribute.EVENT_ID]: failure.eventId,
    [DlqAttribute.ATTEMPTS]: String(failure.attempts),
    [DlqAttribute.FAILED_AT]: failure.lastFailureAt,
  };
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value) attributes[name] = { DataType: 'String', StringValue: value };
  }
  return attributes;
}

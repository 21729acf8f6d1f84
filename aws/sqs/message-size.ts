/**
 * What SQS counts toward a message's size limit: the body plus each message attribute's name,
 * data type and value (Developer Guide, "Amazon SQS message attributes": "the message size
 * includes the message body and the attribute names, types and values").
 */
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';

/** The bytes SQS counts for a body and its message attributes. */
export function sqsMessageBytes(body: string, attributes: Readonly<Record<string, MessageAttributeValue>> = {}): number {
  let bytes = Buffer.byteLength(body);
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '') + Buffer.byteLength(value.StringValue ?? '') + (value.BinaryValue?.byteLength ?? 0);
  }
  return bytes;
}

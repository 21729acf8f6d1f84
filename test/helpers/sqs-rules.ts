/**
 * An independent check of a SendMessage input against the rules SQS documents, for tests that
 * must not trust the emulators (fauxqs accepts characters and attributes that SQS refuses).
 *
 * Written from the documentation, not from the runtime's `sqsText.ts`: a check that reuses the
 * code under test would agree with it by construction. Sources, as of @aws-sdk/client-sqs
 * 3.1175 (its API model's documentation, the same text as the SQS API Reference):
 * - `SendMessageRequest.MessageBody`: at least one character, at most 1 MiB (1,048,576 bytes);
 *   only `#x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF` (the W3C
 *   XML `Char` production); anything else is refused.
 * - `MessageAttributeValue`: name, type and value must not be empty; a String value has the body's
 *   character rules; the name, type and value of every attribute count toward the message size.
 * - `SendMessageRequest.MessageAttributes` and the Developer Guide's "Amazon SQS message
 *   attributes": at most 10 attributes; a name of up to 256 characters of A-Z, a-z, 0-9, `_`,
 *   `-` and `.`, case-sensitive, not starting with `AWS.` or `Amazon.` in any casing, not
 *   starting or ending with a period, without two periods in a row; data types `String`,
 *   `Number` and `Binary`, each optionally followed by `.` and a custom label.
 * - `CreateQueue` `MaximumMessageSize`: 1,024 to 1,048,576 bytes, default 1,048,576 (1 MiB).
 *   SQS raised both the ceiling and the default from 262,144 bytes (256 KiB) in 2025.
 */
import type { MessageAttributeValue, SendMessageCommandInput } from '@aws-sdk/client-sqs';

/** SQS's largest message and the default `MaximumMessageSize` of a new queue, in bytes. */
export const SQS_DOCUMENTED_MAX_MESSAGE_BYTES = 1_048_576;
/** The smallest `MaximumMessageSize` a queue may have, in bytes. */
const SQS_DOCUMENTED_MIN_MESSAGE_BYTES = 1_024;
const MAX_ATTRIBUTES = 10;
const MAX_NAME_LENGTH = 256;

// The documented character set as one Unicode-aware class; with the `u` flag a lone surrogate
// is one code point and matches, a valid pair is one astral code point and does not.
const OUTSIDE_XML_CHARS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const NAME_CHARACTERS = /^[A-Za-z0-9_.-]+$/;
const RESERVED_NAME_PREFIX = /^(aws|amazon)\./i;
const DATA_TYPE = /^(String|Number|Binary)(\.(.+))?$/;

export interface SqsRuleOptions {
  /** The queue's `MaximumMessageSize`. @default 1048576 (SQS's maximum and default) */
  readonly maximumMessageSize?: number;
}

/** Every documented SQS rule the input breaks, one sentence each; empty when SQS would accept it. */
export function sqsViolations(input: SendMessageCommandInput, options: SqsRuleOptions = {}): string[] {
  const attributes = Object.entries(input.MessageAttributes ?? {});
  return [
    ...bodyViolations(input.MessageBody),
    ...(attributes.length > MAX_ATTRIBUTES ? [`${attributes.length} message attributes; at most ${MAX_ATTRIBUTES}`] : []),
    ...attributes.flatMap(([name, value]) => [...nameViolations(name), ...valueViolations(name, value)]),
    ...sizeViolations(input, options.maximumMessageSize ?? SQS_DOCUMENTED_MAX_MESSAGE_BYTES),
  ];
}

function bodyViolations(body: string | undefined): string[] {
  if (body === undefined || body.length === 0) return ['the body is empty'];
  return characterViolations('the body', body);
}

function characterViolations(where: string, text: string): string[] {
  const found = OUTSIDE_XML_CHARS.exec(text);
  if (!found) return [];
  const codePoint = found[0].codePointAt(0) ?? 0;
  return [`${where} holds U+${codePoint.toString(16).toUpperCase().padStart(4, '0')} at index ${found.index}, outside SQS's characters`];
}

function nameViolations(name: string): string[] {
  const problems: string[] = [];
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) problems.push(`attribute name "${name}" is ${name.length} characters; 1..${MAX_NAME_LENGTH} allowed`);
  if (name.length > 0 && !NAME_CHARACTERS.test(name)) problems.push(`attribute name "${name}" holds a character outside A-Z a-z 0-9 _ - .`);
  if (name.startsWith('.') || name.endsWith('.')) problems.push(`attribute name "${name}" starts or ends with a period`);
  if (name.includes('..')) problems.push(`attribute name "${name}" has two periods in a row`);
  if (RESERVED_NAME_PREFIX.test(name)) problems.push(`attribute name "${name}" starts with a reserved prefix (AWS. or Amazon.)`);
  return problems;
}

function valueViolations(name: string, value: MessageAttributeValue): string[] {
  const type = DATA_TYPE.exec(value.DataType ?? '');
  if (!type) return [`attribute "${name}" has data type "${value.DataType ?? ''}"; String, Number or Binary (optionally .label) allowed`];
  const label = type[3] === undefined ? [] : characterViolations(`the data type of attribute "${name}"`, type[3]);
  if (type[1] === 'Binary') return [...label, ...(value.BinaryValue?.length ? [] : [`attribute "${name}" has an empty BinaryValue`])];
  return [...label, ...stringValueViolations(name, type[1], value.StringValue)];
}

function stringValueViolations(name: string, type: string, text: string | undefined): string[] {
  if (text === undefined || text.length === 0) return [`attribute "${name}" has an empty StringValue`];
  const numeric = type === 'Number' && !Number.isFinite(Number(text)) ? [`attribute "${name}" is a Number but "${text}" is not a number`] : [];
  return [...numeric, ...characterViolations(`the value of attribute "${name}"`, text)];
}

function sizeViolations(input: SendMessageCommandInput, limit: number): string[] {
  if (limit < SQS_DOCUMENTED_MIN_MESSAGE_BYTES || limit > SQS_DOCUMENTED_MAX_MESSAGE_BYTES) {
    return [`MaximumMessageSize ${limit} is outside ${SQS_DOCUMENTED_MIN_MESSAGE_BYTES}..${SQS_DOCUMENTED_MAX_MESSAGE_BYTES}`];
  }
  const size = sqsMessageSize(input);
  return size > limit ? [`the message is ${size} bytes (body and attributes); at most ${limit}`] : [];
}

/** The size SQS checks against `MaximumMessageSize`: the body plus each attribute's name, type and value, in UTF-8 bytes. */
export function sqsMessageSize(input: SendMessageCommandInput): number {
  const attributes = Object.entries(input.MessageAttributes ?? {});
  const attributeBytes = attributes.reduce((sum, [name, value]) => sum + utf8Bytes(name) + utf8Bytes(value.DataType ?? '') + attributeValueBytes(value), 0);
  return utf8Bytes(input.MessageBody ?? '') + attributeBytes;
}

function attributeValueBytes(value: MessageAttributeValue): number {
  return value.BinaryValue ? value.BinaryValue.length : utf8Bytes(value.StringValue ?? '');
}

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}
